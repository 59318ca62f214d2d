#pragma once
/// @file
/// Two runs of one SOURCE model through different programs (XNNPACK vs
/// oneDNN, int8 vs float, two versions of a delegate), joined per source
/// operator: `glassbox compare A.etdp A.etrecord B.etdp B.etrecord`.
///
///   ETDump A + ETRecord A --> Inspector A --> ops view A --.
///                                                          +--> join --> rows, one-side rows,
///   ETDump B + ETRecord B --> Inspector B --> ops view B --'             module and type rollups
///
/// The two programs share no debug handles, so their ETRecords' edge graphs
/// say which ops are the same: by operator name when both graphs name their
/// compute operators alike, else by structure (aot::align_float_twin_pairs:
/// the same operators in the same order once quantize/dequantize nodes are
/// set aside, as an int8 model and its float twin are). When one program
/// runs several source ops as one timed unit (a fused ConvReLU) and the
/// other runs them apart, they are joined as one row: a time is never split
/// between ops to compare it.
///
///   StatusOr<RunComparison> c = compare_runs({&inspector_a, &record_a},
///                                            {&inspector_b, &record_b});
///   StatusOr<std::string> text = render_run_comparison(*c, Format::kTable);
///   // or, from files: compare_run_files({"a.etdp", "a.etrecord"}, {"b.etdp", "b.etrecord"})
///
/// compare_ops (views.h) is the other comparison: two runs of the SAME
/// program, joined by debug handle (`inspect --baseline`).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// How the two programs' operators were matched.
enum class RunJoin : std::uint8_t {
  kNames,      ///< By operator name (the same graph, or mostly the same).
  kStructure,  ///< By position, quantization nodes aside (int8 vs float).
};
/// "names" or "structure".
std::string_view to_string(RunJoin join);

/// One run: its Inspector, built with its own ETRecord, and that ETRecord
/// (whose "forward" edge graph names the ops). Both must outlive the call.
struct RunSide {
  const Inspector* inspector = nullptr;
  const etrecord::ETRecord* record = nullptr;
  std::string name;  ///< How tables call the run (a file name); "" = "A" / "B".
};

/// One source operator (or a group one side ran as one unit).
struct RunCompareRow {
  std::vector<std::string> op_names;    ///< A's names (B's when only B has it).
  std::vector<std::string> op_names_b;  ///< B's names (differ when joined by structure).
  std::vector<std::string> op_types;    ///< As op_names.
  std::string module;                   ///< Innermost module path of the first op; "" = top.
  std::string backend_a;                ///< Who ran it in A ("" = a portable kernel).
  std::string backend_b;
  /// Mean time per execution (ns); nullopt for a side that has no time for it.
  std::optional<double> mean_ns_a;
  std::optional<double> mean_ns_b;
  /// mean_ns_b / mean_ns_a; nullopt unless both are present and A's is > 0.
  std::optional<double> ratio;
  /// mean_ns_b - mean_ns_a, a missing side counting 0: time gained (< 0) or lost.
  double delta_ns = 0;
};

/// The rollup of the rows by module or op type: every row (one-side rows
/// too), a group's time shared equally among its ops.
struct RunRollupRow {
  std::string key;  ///< Module path ("" = the top level) or op type.
  /// Source ops counted (A's ops of each row, B's for rows only B has).
  std::size_t ops = 0;
  double mean_ns_a = 0;
  double mean_ns_b = 0;
  std::optional<double> ratio;  ///< b / a when a > 0.
  double delta_ns = 0;          ///< b - a.
};

struct RunComparison {
  RunJoin join = RunJoin::kNames;
  std::string name_a = "A";
  std::string name_b = "B";
  /// Ops both runs have, largest |delta_ns| first.
  std::vector<RunCompareRow> rows;
  /// Ops (or rows without a source op) only A, or only B, has time for,
  /// largest first.
  std::vector<RunCompareRow> only_a;
  std::vector<RunCompareRow> only_b;
  /// Largest |delta_ns| first.
  std::vector<RunRollupRow> by_module;
  std::vector<RunRollupRow> by_type;
  /// Sums over every row (both, only_a and only_b).
  double total_ns_a = 0;
  double total_ns_b = 0;
};

/// Joins the ops views of `a` and `b`. Errors: kInvalidArgument when a side
/// is incomplete or an ETRecord has no "forward" edge graph, when the two
/// graphs neither share operator names nor align by structure (the
/// message says where they first differ), or when the runs' times are in
/// different units or in raw ticks.
StatusOr<RunComparison> compare_runs(const RunSide& a, const RunSide& b);

/// One run as files: its ETDump and the ETRecord of its program.
struct RunFiles {
  std::string etdump;
  std::string etrecord;
};

struct CompareRunsOptions {
  std::uint32_t skip_first_runs = 0;  ///< Warm-up executions ignored in each dump.
  /// The decoders that expand the dumps' raw traces (the loaded plug-ins':
  /// glassbox/etdump/raw_trace.h); unset for none, when a dump with raw
  /// traces is refused naming their backend.
  etdump::RawTraceDecoderLookup decoders;
};

/// Reads both runs and compares them, each named by its ETDump's path (what
/// `glassbox compare` and Python's glassbox.compare call). Errors name the
/// file at fault: kMismatch when an ETDump was not written by its ETRecord's
/// program (fingerprints differ), the readers' errors, compare_runs's.
StatusOr<RunComparison> compare_run_files(const RunFiles& a, const RunFiles& b,
                                          const CompareRunsOptions& options = {});

/// table, csv, tsv or json (docs/inspector.md, "Comparing two programs");
/// chrome has no form of it (kInvalidArgument).
StatusOr<std::string> render_run_comparison(const RunComparison& comparison, Format format);

}  // namespace glassbox::inspector

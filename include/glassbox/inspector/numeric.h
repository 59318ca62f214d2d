#pragma once
/// @file
/// Numeric debugging: which operator's output goes wrong, inside
/// delegates too. Compares the values a run logged at debug level
/// "intermediates" with the ETRecord's reference outputs (computed ahead of
/// time on the portable kernels, etrecord/reference_runner.h).
///
///   ETDump DebugEvents ----.   (instruction, identifier) -> debug handles
///   debug data (tensor) ---+-> unit per runtime output -> last source op's
///   ETRecord references ---'   reference -> comparators -> first failure
///
///   GLASSBOX_ASSIGN_OR_RETURN(inspector::NumericReport report,
///       inspector::compare_numerics(dump, record, debug_data, {}));
///   if (report.first_failure) report.rows[*report.first_failure] ...
///   std::string text = inspector::render_numeric(report, Format::kTable);
///
/// Units. Every logged value of the chosen execution that maps to source
/// ops becomes a row:
/// - an operator output: instruction -> debug_handle_map (for a delegate
///   call, every op the delegate ran: its output is compared at the
///   delegate's last op);
/// - a delegate-internal output: (instruction, identifier) -> the delegate
///   map, by exact key (int to int, string to string; no substring match);
/// - a program output: compared with ETRecord::reference_outputs.
/// Each row is compared with the reference output of the LAST op of its
/// handles in source order (the edge graph's topological order): a fused
/// group (conv+relu) is compared at its output, the relu's.
///
/// Decompositions. When a delegate logs several outputs for the same set of
/// handles at one instruction (tan lowered as sin, cos, div), only the last
/// of them (in execution order) computes the source op's output; the
/// others have no reference of their own. They form ONE row: all its
/// identifiers are listed (the compared one last), it sits at the position
/// of its first output, and a wrong value there names the source op and
/// every identifier of the decomposition as suspects.
///
/// Threshold. A row "exceeds" when the threshold metric is worse than the
/// threshold (above for max_abs, l1, mse; below for snr and cosine), when it
/// is NaN, or when runtime and reference disagree on a non-finite element.
/// The first exceeding operator row in execution order (operator, delegate
/// call or delegate-internal; program outputs are not operators) is the
/// first failure.
///
/// Non-finite values are never hidden or replaced (ExecuTorch's nan_to_num
/// also turns inf into finite numbers): each row counts NaN and inf on
/// both sides. An element where both sides hold NaN, or the same infinity,
/// agrees (error 0) and is left out of snr and cosine; any other
/// disagreement involving a non-finite value is counted as a mismatch and
/// makes max_abs, l1 and mse +inf, snr -inf and cosine NaN.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// The comparators. The numbers are not serialized.
enum class Comparator : std::uint8_t {
  kMaxAbs,  ///< max |runtime - reference|
  kL1,      ///< mean |runtime - reference| (mean abs error)
  kMse,     ///< mean (runtime - reference)^2
  kSnr,     ///< 10 log10(sum reference^2 / sum error^2), dB; +inf if equal
  kCosine,  ///< cosine similarity; 1 when both are all zeros
};
/// "max_abs", "l1", "mse", "snr" or "cosine".
std::string_view to_string(Comparator comparator);
/// One comparator name; kInvalidArgument names the accepted ones.
StatusOr<Comparator> parse_comparator(std::string_view text);
/// A comma-separated list of names, or "all"; duplicates are dropped and
/// the result is in the canonical order above. kInvalidArgument for an
/// unknown or empty entry.
StatusOr<std::vector<Comparator>> parse_comparators(std::string_view text);
/// Every comparator, in canonical order.
std::vector<Comparator> all_comparators();
/// The default threshold of `metric`: max_abs 1e-3, l1 1e-4, mse 1e-6,
/// snr 40 dB, cosine 0.9999.
double default_threshold(Comparator metric);

struct NumericOptions {
  /// Metrics to report (the threshold metric is always computed).
  std::vector<Comparator> comparators = all_comparators();
  Comparator threshold_metric = Comparator::kMaxAbs;
  /// nullopt: default_threshold(threshold_metric).
  std::optional<double> threshold;
  /// Which "Execute" run to compare (0-based among executions): its
  /// values must come from the ETRecord's reference inputs.
  std::uint32_t execution = 0;
  /// As InspectorOptions::allow_fingerprint_mismatch.
  bool allow_fingerprint_mismatch = false;
  /// Keep each compared row's runtime values (NumericRow::runtime_values),
  /// for views built on top (the quant view).
  bool keep_runtime_values = false;
};

/// What a row's runtime value is.
enum class NumericRowKind : std::uint8_t {
  kOperator,          ///< a kernel call's output
  kDelegateCall,      ///< a delegate call's output, seen from outside
  kDelegateInternal,  ///< logged by a delegate under its identifier
  kProgramOutput,     ///< a method output
};
/// "operator", "delegate_call", "delegate" or "program_output".
std::string_view to_string(NumericRowKind kind);

/// Whether a row could be compared.
enum class NumericStatus : std::uint8_t {
  kCompared,
  kUnmapped,       ///< no source op (identifier not in the map, ...)
  kNoReference,    ///< the ETRecord has no reference for it
  kNoData,         ///< logged without tensor data (no sink, sink full)
  kNotATensor,     ///< an int, bool or double value
  kShapeMismatch,  ///< runtime and reference shapes differ
};
/// "compared", "unmapped", "no_reference", "no_data", "not_a_tensor",
/// "shape_mismatch".
std::string_view to_string(NumericStatus status);

/// NaN and infinity counts of one side.
struct NonFinite {
  std::uint64_t nan = 0;
  std::uint64_t inf = 0;
  friend bool operator==(const NonFinite&, const NonFinite&) = default;
};

/// One metric's value on a row.
struct MetricValue {
  Comparator comparator = Comparator::kMaxAbs;
  double value = 0;
};

/// One compared unit (see the file comment).
struct NumericRow {
  NumericRowKind kind = NumericRowKind::kOperator;
  /// Position in execution order: index of the unit's first value among the
  /// run's logged values.
  std::uint32_t order = 0;
  InstructionId instruction;
  std::string backend;  ///< For delegate rows.
  /// Delegate-internal rows: every identifier of the unit in execution
  /// order; the value compared is the last one's.
  std::vector<aot::DelegateDebugIdentifier> identifiers;
  /// Which output of the instruction, identifier or method (0-based).
  std::uint32_t output_index = 0;
  std::vector<DebugHandle> debug_handles;  ///< Sorted.
  std::vector<std::string> op_names;       ///< Source ops, in source order.
  std::vector<std::string> op_types;
  /// The source op whose reference is used (the last in source order), and
  /// which of its outputs.
  DebugHandle reference_handle;
  std::string reference_op;
  std::uint32_t reference_output = 0;
  std::vector<std::int64_t> runtime_sizes;
  std::vector<std::int64_t> reference_sizes;
  /// When the compared output is sized by data (a dynamic value of the edge
  /// graph: NonZero, TopK with a computed k, NonMaxSuppression), the bound
  /// the program reserved; runtime_sizes is this execution's size. Empty
  /// otherwise.
  std::vector<std::int64_t> bound_sizes;
  /// The logged tensor's element type (an int8 delegate logs CHAR or BYTE).
  ScalarType runtime_dtype = ScalarType::kFloat;
  /// The logged values were int8/uint8 codes, compared after dequantizing
  /// them with the source op's output scale and zero point (its
  /// quantize_linear in the ETRecord's edge graph): the reference is float.
  bool dequantized = false;
  /// The logged values as compared (dequantized when `dequantized`), when
  /// NumericOptions::keep_runtime_values.
  std::vector<double> runtime_values;
  NumericStatus status = NumericStatus::kCompared;
  std::string note;  ///< Why a row was not compared, in words.
  /// kNoData because the tensor's bytes cannot be read: they lie outside
  /// the debug data given, or its metadata is damaged (not because the run
  /// logged none).
  bool data_unreadable = false;
  /// data_unreadable because the ETDump's tensor metadata is damaged or
  /// undecodable (dtype, sizes, strides, offset): the ETDump's fault, not
  /// the debug data's.
  bool metadata_damaged = false;
  /// The requested comparators, in canonical order (compared rows only).
  std::vector<MetricValue> metrics;
  /// The threshold metric's value (compared rows only).
  double threshold_value = 0;
  NonFinite runtime_nonfinite;
  NonFinite reference_nonfinite;
  /// Elements where one side is non-finite and the other differs.
  std::uint64_t nonfinite_mismatches = 0;
  bool exceeds = false;
  bool first_failure = false;
};

struct NumericReport {
  std::vector<Comparator> comparators;
  Comparator threshold_metric = Comparator::kMaxAbs;
  double threshold = 0;
  std::uint32_t execution = 0;
  std::vector<NumericRow> rows;  ///< In execution order.
  /// Index into rows of the first exceeding operator row.
  std::optional<std::size_t> first_failure;
  /// Logged tensors whose bytes cannot be read (rows with data_unreadable):
  /// the comparison is not to be trusted, and tools treat it as an error,
  /// naming the ETDump for those with damaged metadata
  /// (damaged_tensor_metadata), else the debug-data file (truncated, or
  /// another run's).
  std::size_t unreadable_tensors = 0;
  std::size_t damaged_tensor_metadata = 0;
  std::vector<Diagnostic> diagnostics;
};

/// OK when `record` holds reference op outputs to compare with; else
/// kInvalidArgument saying how to make an ETRecord that does (compare_numerics
/// checks it too: callers use it to name the ETRecord file as the fault).
Status check_has_references(const etrecord::ETRecord& record);

/// Compares execution `options.execution` of `dump` with `record`'s
/// references. `debug_data` is the debug-data buffer or file the logged
/// tensors' offsets point into (only read during the call).
///
/// Errors: kMismatch (fingerprints differ, not allowed); kInvalidArgument
/// when the record has no reference op outputs ("lower with
/// --reference-inputs or --reference-seed"), the execution does not exist,
/// or the run logged no values ("run at debug level intermediates").
StatusOr<NumericReport> compare_numerics(const etdump::ETDumpFile& dump,
                                         const etrecord::ETRecord& record,
                                         std::span<const std::uint8_t> debug_data,
                                         const NumericOptions& options = {});

/// The metrics of `runtime` against `reference` (same length), for every
/// comparator, plus the non-finite counts; exposed for tests and tools.
struct Comparison {
  double max_abs = 0;
  double l1 = 0;
  double mse = 0;
  double snr_db = 0;
  double cosine = 1;
  NonFinite runtime_nonfinite;
  NonFinite reference_nonfinite;
  std::uint64_t nonfinite_mismatches = 0;
  double value(Comparator comparator) const;
};
/// Both spans are only read during the call; they must be equally long.
Comparison compare_values(std::span<const double> runtime, std::span<const float> reference);

/// True when `value` of `metric` is worse than `threshold` (or NaN).
bool exceeds_threshold(Comparator metric, double value, double threshold);

/// `report` as table, csv, tsv or json (docs/inspector.md, "--numeric");
/// chrome is refused with kInvalidArgument.
StatusOr<std::string> render_numeric(const NumericReport& report, Format format);

}  // namespace glassbox::inspector

#pragma once
/// @file
/// The backend conformance linter behind `glassbox check-backend`: the rules
/// a delegate's profiling must follow for the Inspector to trust it, as
/// PASS/FAIL lines (docs/backend-authors.md, "Check your backend").
///
///   backend (built in or plug-in) --lower, run per log mode x level--.
///                                                                     v
///   ETDump + ETRecord (given, or made above) ---> artifact rules --> RuleResult[]
///   the run's intermediate outputs x portable reference --> numerics
///
///   // A backend, end to end:
///   GLASSBOX_ASSIGN_OR_RETURN(std::vector<conformance::RuleResult> rules,
///                             conformance::check_backend({.backend = "xnnpack"}));
///   // Existing artifacts (ours or ExecuTorch's):
///   std::vector<conformance::RuleResult> lint = conformance::check_artifacts(dump, record);
///   bool ok = conformance::all_passed(lint);
///
/// Wall-clock numbers (the hooks' cost per event) are INFO lines: a rule
/// never passes or fails on time measured on a shared machine.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::conformance {

/// What a rule concluded. kSkip: the rule does not apply (a log mode the
/// backend does not support, no values to compare), with the reason;
/// kInfo: a measurement, never a verdict.
enum class Outcome : std::uint8_t { kPass, kFail, kSkip, kInfo };

/// "PASS", "FAIL", "SKIP" or "INFO".
std::string_view to_string(Outcome outcome);

/// One line of the report.
struct RuleResult {
  std::string rule;  ///< e.g. "coverage.logged_in_map"
  Outcome outcome = Outcome::kPass;
  std::string detail;  ///< why, in one sentence (names what failed)
  bool pass() const { return outcome != Outcome::kFail; }
};

/// Whether no rule failed.
bool all_passed(std::span<const RuleResult> results);

/// The largest delegate metadata the rules accept: what ETDumpGen interns
/// (one 32-byte record per event, the string once per dump). Longer
/// metadata is copied into every event (a slot per 32 bytes), which costs
/// each event of a delegate loop and a dump's size several times over.
inline constexpr std::size_t kMaxDelegateMetadataBytes = 112;

struct ArtifactOptions {
  std::size_t max_metadata_bytes = kMaxDelegateMetadataBytes;
  /// Prefixes every failure's detail ("posttime, all: "): which run of
  /// check_backend the dump came from. Empty for a given dump.
  std::string label;
};

/// The rules that need no run, over a dump and the ETRecord of its program
/// (method "forward"), each a RuleResult in this order:
///   coverage.logged_in_map   every (instruction, identifier) a delegate
///                            logged is in that delegate call's map
///   coverage.map_logged      every identifier of a map is logged, in every
///                            execution that ran the delegate call
///   ids.set                  no delegate event without an identifier, with
///                            -1 or a negative int, or an empty string; no
///                            event the tracer refused as invalid
///   events.balanced          every delegate event ends after it starts and
///                            lies inside its DELEGATE_CALL (times in the
///                            delegate's declared clock; 1 us of slack
///                            for one placed by a declared offset)
///   time.monotonic           per delegate call, run and thread, end times
///                            never go back in logged order (declared clock)
///   metadata.limits          no delegate metadata over max_metadata_bytes
/// A dump without delegate events fails coverage.map_logged when the
/// record maps identifiers. Details name the first offenders.
std::vector<RuleResult> check_artifacts(const etdump::ETDumpFile& dump,
                                        const etrecord::ETRecord& record,
                                        const ArtifactOptions& options = {});

struct BackendCheckOptions {
  /// A registered backend (built in, or loaded with a plug-in first).
  std::string backend;
  /// An ONNX model; "" takes the default: the demo model for "demo", else
  /// testdata/onnx/tiny_cnn.onnx (conv, relu, pool, linear).
  std::string model_path;
  /// Seed of the random inputs (uniform in [-1, 1)).
  std::uint32_t seed = 7;
  /// Executions per profiling run (the rules see each of them), and per
  /// side of the hooks' cost measurement.
  int iterations = 2;
  /// Executions timed per side (tracing on, off) for hooks.cost.
  int cost_executions = 20;
  /// Numerics: the largest |delegate - portable| allowed per element.
  double tolerance = 1e-3;
  std::size_t max_metadata_bytes = kMaxDelegateMetadataBytes;
  /// The "identifiers" compile spec: "generated", "int" or "string".
  std::string identifiers = "generated";
  /// A deliberate fault ("" for none), as `lower --perturb`: the operator
  /// with this identifier adds 0.05 to its output, which numerics must
  /// catch.
  std::string perturb;
};

/// Lowers the model with `options.backend` (FAIL "lower" when its
/// partitioner takes nothing), runs it once per log mode (realtime,
/// posttime) and profiling level (all, method, none), and reports:
///   lower, log_mode.realtime, log_mode.posttime (SKIP when the backend's
///   prepare_runtime refuses the mode with kNotSupported), every
///   check_artifacts rule over the profiled runs, profiling_level.method
///   and profiling_level.none (only what the level allows is logged),
///   numerics (each identifier's logged intermediate output against the
///   portable kernels' output, within `tolerance`), and hooks.cost (INFO:
///   mean ns per delegate event, tracing on vs off).
/// Errors: what the model or backend cannot even start with (no such
/// backend, an unreadable model).
StatusOr<std::vector<RuleResult>> check_backend(const BackendCheckOptions& options);

/// One line per rule, "PASS  rule  detail", then a summary line.
std::string render_table(std::span<const RuleResult> results);
/// {"passed": bool, "rules": [{"rule", "outcome", "detail"}...]}, with a
/// trailing newline.
std::string render_json(std::span<const RuleResult> results);

}  // namespace glassbox::conformance

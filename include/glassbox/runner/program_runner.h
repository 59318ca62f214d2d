#pragma once
/// @file
/// Loads a .gbx program, runs it with ETDumpGen recording, and writes the
/// ETDump (and debug data): the work behind `glassbox run` and `glassbox
/// demo`, and the run step of end-to-end tests. Prepares the runtime half of
/// every backend this build has (backends/common/backend_plugin.h).
///
///   runner::RunOptions run{.program_path = "m.gbx", .etdump_path = "m.etdp"};
///   GLASSBOX_ASSIGN_OR_RETURN(runner::RunSummary summary, runner::run_program(run));

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runner {

struct RunOptions {
  std::string program_path;
  std::string etdump_path;
  std::string debug_data_path;  // "" for none
  int iterations = 1;
  int warmup = 0;
  runtime::DebugLevel debug_level = runtime::DebugLevel::kNoLogging;
  runtime::ProfilingLevel profiling_level = runtime::ProfilingLevel::kAllEvents;
  // The TSC clock (in ns; steady_clock where there is no invariant TSC),
  // or steady_clock.
  bool use_tsc = true;
  // "" keeps the delegates' compile specs; "realtime" or "posttime" forces
  // every delegate's logging mode.
  std::string delegate_profiling;
  // Which delegate intermediate outputs are captured (debug level
  // intermediates): int ids in "BEGIN:END", string ids matching '*'
  // patterns. Empty keeps everything.
  std::string capture_id_range;
  std::vector<std::string> capture_names;
  // Threads for delegates that use them (XNNPACK); 0 keeps the program's
  // compile spec.
  std::uint32_t threads = 0;
  // Delegates with Winograd convolutions (oneDNN) use them where they are
  // faster; false runs every convolution with a direct algorithm.
  bool winograd = true;
  // Input 0 as a NumPy .npy file (float32/float64/int64, shape checked) or
  // raw little-endian float32 bytes; when empty, inputs are uniform random
  // in [-1, 1) from `seed`.
  std::string input_path;
  // Reference output 0 (.npy): the run fails when an element differs by
  // more than tolerance + rtol * |expected| (NumPy's allclose rule).
  std::string expect_path;
  double tolerance = 1e-4;
  double rtol = 0;
  // Where to write output 0 (.npy).
  std::string output_path;
  std::uint32_t seed = 0;
  // Called once a second during long runs with (done, total).
  std::function<void(int, int)> progress;
  // When set (a signal handler may set it), the run stops after the current
  // execution and still writes the ETDump and debug data of the executions
  // completed so far (RunSummary::interrupted).
  const std::atomic<bool>* stop = nullptr;
};

struct RunSummary {
  std::uint64_t events = 0;
  std::uint64_t dropped = 0;
  double mean_execute_ms = 0;  // wall time per execute, traced runs only
  std::string fingerprint;
  std::vector<std::vector<float>> outputs;  // of the last run
  std::vector<std::vector<std::int64_t>> output_shapes;
  double max_abs_error = -1;  // against --expect; -1 when not compared
  int completed = 0;          // recorded executions that ran to the end
  bool interrupted = false;   // `stop` ended the run early
};

StatusOr<RunSummary> run_program(const RunOptions& options);

/// Errors (kInvalidArgument) when `options.capture_id_range` is not
/// BEGIN:END with 0 <= BEGIN < END, or a `capture_names` pattern is empty,
/// too long or one too many: what run_program refuses before it opens a
/// file, for a command line to report as its own mistake.
Status check_capture_options(const RunOptions& options);

}  // namespace glassbox::runner

// `glassbox run PROGRAM.gbx --etdump OUT.etdp [...]`.

#include <atomic>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "glassbox/io/output_files.h"
#include "glassbox/io/printable.h"
#include "glassbox/runner/program_runner.h"
#include "src/cli/commands.h"
#include "src/cli/interrupt.h"
#include "src/cli/plugin_option.h"
#include "src/cli/progress_line.h"
#include "src/cli/run_cli.h"

namespace glassbox::cli {
namespace {

using runner::run_program;
using runner::RunOptions;
using runner::RunSummary;

struct RunCommandOptions {
  RunOptions run;
  std::string debug_level = "none";
  std::string profiling_level = "all";
  std::string clock = "tsc";
  std::string conv_algorithm = "auto";
};

// The command line alone: a failure here is a usage error (exit code 2).
Status check_run_usage(const RunCommandOptions& options) {
  const RunOptions& run = options.run;
  GLASSBOX_RETURN_IF_ERROR(
      check_outputs_are_not_inputs({run.program_path, run.input_path, run.expect_path},
                                   {run.etdump_path, run.debug_data_path, run.output_path}));
  for (const auto& [name, value] :
       {std::pair{"--tolerance", options.run.tolerance}, std::pair{"--rtol", options.run.rtol}}) {
    if (!std::isfinite(value) || value < 0) {
      return Status(Error::kInvalidArgument, std::string(name) +
                                                 " must be a finite number >= 0 (a NaN would turn "
                                                 "the check off)");
    }
  }
  return runner::check_capture_options(run);
}

Status run(RunCommandOptions options, io::OutputFiles& outputs, const std::atomic<bool>* stop,
           std::ostream& out, bool* interrupted) {
  options.run.stop = stop;
  static const std::map<std::string, runtime::DebugLevel> kDebugLevels = {
      {"none", runtime::DebugLevel::kNoLogging},
      {"outputs", runtime::DebugLevel::kProgramOutputs},
      {"intermediates", runtime::DebugLevel::kIntermediateOutputs}};
  options.run.debug_level = kDebugLevels.at(options.debug_level);
  static const std::map<std::string, runtime::ProfilingLevel> kProfilingLevels = {
      {"none", runtime::ProfilingLevel::kNone},
      {"method", runtime::ProfilingLevel::kMethodOnly},
      {"all", runtime::ProfilingLevel::kAllEvents}};
  options.run.profiling_level = kProfilingLevels.at(options.profiling_level);
  options.run.use_tsc = options.clock == "tsc";
  options.run.winograd = options.conv_algorithm == "auto";
  if (options.run.debug_level != runtime::DebugLevel::kNoLogging &&
      options.run.debug_data_path.empty()) {
    options.run.debug_data_path = options.run.etdump_path + ".bin";
  }
  // Written under temporary names, renamed into place once all succeeded;
  // the summary names the final paths.
  const RunOptions shown = options.run;
  GLASSBOX_RETURN_IF_ERROR(outputs.refuse_inputs(
      {options.run.program_path, options.run.input_path, options.run.expect_path}));
  GLASSBOX_ASSIGN_OR_RETURN(options.run.etdump_path, outputs.add(shown.etdump_path));
  if (!shown.debug_data_path.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(options.run.debug_data_path, outputs.add(shown.debug_data_path));
  }
  if (!shown.output_path.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(options.run.output_path, outputs.add(shown.output_path));
  }
  ProgressLine progress("glassbox run", "executions");
  options.run.progress = [&progress](int done, int total) { progress.update(done, total); };
  StatusOr<RunSummary> ran = run_program(options.run);
  progress.clear();
  GLASSBOX_ASSIGN_OR_RETURN(RunSummary summary, std::move(ran));
  if (!shown.output_path.empty() && summary.outputs.empty()) {
    return Status(Error::kInvalidArgument, "-o: the program has no outputs to write");
  }
  if (!shown.expect_path.empty() && summary.outputs.empty()) {
    return Status(Error::kInvalidArgument, "--expect: the program has no outputs to compare");
  }
  options.run = shown;
  *interrupted = summary.interrupted;
  if (summary.interrupted) {
    out << "interrupted: saved the ETDump of the " << summary.completed
        << " completed execution(s)\n";
  }
  out << "ran " << options.run.program_path << " " << summary.completed << " time(s)";
  if (options.run.warmup > 0) out << " after " << options.run.warmup << " warm-up run(s)";
  out << ": " << summary.mean_execute_ms << " ms per execute (traced)\n"
      << "  ETDump: " << options.run.etdump_path << " (" << summary.events << " events, "
      << summary.dropped << " dropped)\n";
  if (!options.run.debug_data_path.empty()) {
    out << "  debug data: " << options.run.debug_data_path << "\n";
  }
  out << "  program fingerprint: " << io::printable(summary.fingerprint) << "\n";
  if (!options.run.output_path.empty()) out << "  output 0: " << options.run.output_path << "\n";
  if (summary.max_abs_error >= 0) {
    out << "  output 0 matches " << options.run.expect_path << ": max abs error "
        << summary.max_abs_error << " (tolerance " << options.run.tolerance << ")\n";
  }
  out.flush();
  if (!out) return Status(Error::kAccessFailed, "cannot write the summary to standard output");
  return outputs.commit();
}

}  // namespace

void add_run_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* command =
      app.add_subcommand("run", "Run a program (.gbx) and record an ETDump of every execution");
  command->add_option("program", options->run.program_path, "the program (.gbx)")->required();
  add_plugin_option(*command);
  command->add_option("--etdump", options->run.etdump_path, "where to write the ETDump (.etdp)")
      ->required();
  command
      ->add_option("--iterations", options->run.iterations,
                   "recorded executions (one event block each)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command->add_option("--warmup", options->run.warmup, "executions before recording starts")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  command->add_option("--debug-data", options->run.debug_data_path,
                      "where logged tensors' bytes go (default with a debug "
                      "level: ETDUMP.bin)");
  command
      ->add_option("--debug-level", options->debug_level,
                   "none, outputs (program outputs) or intermediates "
                   "(every instruction's and delegate op's outputs)")
      ->check(CLI::IsMember({"none", "outputs", "intermediates"}))
      ->capture_default_str();
  command
      ->add_option("--profiling-level", options->profiling_level,
                   "all, method (Method::execute only) or none (no profile events: the "
                   "ETDump holds one block per execution and any values --debug-level logs; "
                   "compare 'ms per execute' across levels to see what profiling costs)")
      ->check(CLI::IsMember({"none", "method", "all"}))
      ->capture_default_str();
  add_clock_option(*command, &options->clock);
  command
      ->add_option("--delegate-profiling", options->run.delegate_profiling,
                   "force the delegates' logging mode: realtime (start/end around each "
                   "operator) or posttime (timestamps kept, the same events logged after the "
                   "delegate's loop; the default unless a compile spec says otherwise)")
      ->check(CLI::IsMember({"realtime", "posttime"}));
  auto* input = command->add_option(
      "--input", options->run.input_path,
      "input 0: a NumPy .npy file (float32/64 or int32/64; converted to the input's dtype: "
      "int64 token ids stay exact), or raw little-endian float32 bytes");
  command
      ->add_option("--seed", options->run.seed,
                   "seed for random float inputs in [-1, 1) (when no --input); int64 "
                   "inputs are 0 and bool inputs true")
      ->excludes(input)
      ->capture_default_str();
  command->add_option("--capture-ids", options->run.capture_id_range,
                      "with --debug-level intermediates: keep only int delegate "
                      "outputs with ids in [BEGIN, END), given as BEGIN:END");
  command->add_option("--capture-names", options->run.capture_names,
                      "with --debug-level intermediates: keep only string "
                      "delegate outputs matching these patterns ('*' wildcard)");
  command
      ->add_option("--threads", options->run.threads,
                   "threads for XNNPACK and oneDNN delegates (0: the program's compile "
                   "spec, default 1)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  command
      ->add_option("--conv-algorithm", options->conv_algorithm,
                   "auto (oneDNN runs large 3x3 convolutions as Winograd, 1.2-3x faster, "
                   "rounding differently; docs/operators.md) or direct (every convolution "
                   "direct)")
      ->check(CLI::IsMember({"auto", "direct"}))
      ->capture_default_str();
  command->add_option("--expect", options->run.expect_path,
                      "reference output 0 (.npy); fails (exit 1) when an element differs by "
                      "more than --tolerance + --rtol x |expected|");
  command
      ->add_option("--tolerance", options->run.tolerance,
                   "absolute error allowed against --expect (finite, >= 0)")
      ->capture_default_str();
  command
      ->add_option("--rtol", options->run.rtol,
                   "relative error allowed against --expect, as a fraction of |expected| "
                   "(finite, >= 0; untrained models' near-zero outputs make an absolute "
                   "tolerance alone meaningless)")
      ->capture_default_str();
  command->add_option("-o,--output", options->run.output_path,
                      "write output 0 of the last execution as .npy, in its own dtype "
                      "(float32; int64 ids, int32, int8, uint8 and bool masks exactly)");
  command->callback([options, &context] {
    InterruptFlag interrupt;
    bool interrupted = false;
    run_command(
        context, [&] { return check_run_usage(*options); },
        [&] {
          return with_output_files([&](io::OutputFiles& outputs) {
            return run(*options, outputs, interrupt.get(), *context.out, &interrupted);
          });
        });
    if (context.status.ok() && interrupted) context.exit_code = kExitInterrupted;
  });
}

}  // namespace glassbox::cli

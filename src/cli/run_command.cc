// `glassbox run PROGRAM.gbx --etdump OUT.etdp [...]`.

#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "glassbox/runner/program_runner.h"
#include "src/cli/commands.h"

namespace glassbox::cli {
namespace {

using runner::run_program;
using runner::RunOptions;
using runner::RunSummary;

struct RunCommandOptions {
  RunOptions run;
  std::string debug_level = "none";
  std::string profiling_level = "all";
  std::string clock = "steady";
};

Status run(RunCommandOptions options, std::ostream& out) {
  static const std::map<std::string, runtime::DebugLevel> kDebugLevels = {
      {"none", runtime::DebugLevel::kNoLogging},
      {"outputs", runtime::DebugLevel::kProgramOutputs},
      {"intermediates", runtime::DebugLevel::kIntermediateOutputs}};
  options.run.debug_level = kDebugLevels.at(options.debug_level);
  options.run.profiling_level = options.profiling_level == "method"
                                    ? runtime::ProfilingLevel::kMethodOnly
                                    : runtime::ProfilingLevel::kAllEvents;
  options.run.use_tsc = options.clock == "tsc";
  if (options.run.debug_level != runtime::DebugLevel::kNoLogging &&
      options.run.debug_data_path.empty()) {
    options.run.debug_data_path = options.run.etdump_path + ".bin";
  }
  options.run.progress = [](int done, int total) {
    std::cerr << "\rglassbox run: " << done << "/" << total << " executions" << std::flush;
  };
  GLASSBOX_ASSIGN_OR_RETURN(RunSummary summary, run_program(options.run));
  if (options.run.iterations + options.run.warmup > 1) std::cerr << "\r";
  out << "ran " << options.run.program_path << " " << options.run.iterations << " time(s)";
  if (options.run.warmup > 0) out << " after " << options.run.warmup << " warm-up run(s)";
  out << ": " << summary.mean_execute_ms << " ms per execute (traced)\n"
      << "  ETDump: " << options.run.etdump_path << " (" << summary.events << " events, "
      << summary.dropped << " dropped)\n";
  if (!options.run.debug_data_path.empty()) {
    out << "  debug data: " << options.run.debug_data_path << "\n";
  }
  out << "  program fingerprint: " << summary.fingerprint << "\n";
  if (!options.run.output_path.empty()) out << "  output 0: " << options.run.output_path << "\n";
  if (summary.max_abs_error >= 0) {
    out << "  output 0 matches " << options.run.expect_path << ": max abs error "
        << summary.max_abs_error << " (tolerance " << options.run.tolerance << ")\n";
  }
  return Status();
}

}  // namespace

void add_run_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* command =
      app.add_subcommand("run", "Run a program (.gbx) and record an ETDump of every execution");
  command->add_option("program", options->run.program_path, "the program (.gbx)")
      ->required()
      ->check(CLI::ExistingFile);
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
                   "method (Method::execute only) or all")
      ->check(CLI::IsMember({"method", "all"}))
      ->capture_default_str();
  command
      ->add_option("--clock", options->clock,
                   "steady (ticks are ns) or tsc (cycle counter; the "
                   "ratio is stored in the dump)")
      ->check(CLI::IsMember({"steady", "tsc"}))
      ->capture_default_str();
  command
      ->add_option("--delegate-profiling", options->run.delegate_profiling,
                   "force the delegates' logging mode: realtime or "
                   "posttime (default: their compile specs)")
      ->check(CLI::IsMember({"realtime", "posttime"}));
  auto* input = command->add_option(
      "--input", options->run.input_path,
      "input 0: a NumPy .npy file (float32/64 or int32/64; converted to the input's dtype: "
      "int64 token ids stay exact), or raw little-endian float32 bytes");
  input->check(CLI::ExistingFile);
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
                   "threads for XNNPACK delegates (0: the program's compile "
                   "spec, default 1)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  command
      ->add_option("--expect", options->run.expect_path,
                   "reference output 0 (.npy); fails (exit 1) when the max abs "
                   "error exceeds --tolerance")
      ->check(CLI::ExistingFile);
  command
      ->add_option("--tolerance", options->run.tolerance, "max abs error allowed against --expect")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("-o,--output", options->run.output_path,
                      "write output 0 of the last execution as .npy");
  command->callback([options, &context] { context.status = run(*options, *context.out); });
}

}  // namespace glassbox::cli

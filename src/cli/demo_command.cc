// `glassbox demo`: the main job. Until the runtime executor exists it
// records a synthetic delegated run (src/cli/synthetic_run.h).

#include <memory>
#include <string>

#include "src/cli/commands.h"
#include "src/cli/synthetic_run.h"

namespace glassbox::cli {
namespace {

struct DemoOptions {
  std::string out_dir = "glassbox-demo";
  int iterations = 3;
  std::string clock = "steady";
  bool string_ids = false;
  bool no_intermediates = false;
};

Status demo(const DemoOptions& options, std::ostream& out) {
  SyntheticRunOptions run;
  run.iterations = options.iterations;
  run.use_tsc = options.clock == "tsc";
  run.string_ids = options.string_ids;
  run.log_intermediates = !options.no_intermediates;
  GLASSBOX_ASSIGN_OR_RETURN(SyntheticRunFiles files,
                            record_synthetic_run(run, options.out_dir));
  out << "recorded " << files.events << " events of a synthetic delegated run ("
      << options.iterations << " executions)\n"
      << "  ETDump:     " << files.etdump_path << "\n"
      << "  debug data: " << files.debug_data_path << "\n"
      << "decode it with: glassbox etdump show " << files.etdump_path
      << " --debug-data " << files.debug_data_path << "\n";
  return Status();
}

}  // namespace

void add_demo_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* command = app.add_subcommand(
      "demo",
      "Record a synthetic delegated run (a fused conv+relu and tan as "
      "sin/cos/div, real-time and post-time delegate events, a worker "
      "thread, intermediate tensors) into DIR/demo.etdp and DIR/demo.bin");
  command->add_option("--out", options->out_dir, "output directory")
      ->capture_default_str();
  command->add_option("--iterations", options->iterations,
                      "executions to record (one event block each)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command->add_option("--clock", options->clock,
                      "steady (ticks are ns) or tsc (cycle counter, "
                      "calibrated; the ratio is stored in the dump)")
      ->check(CLI::IsMember({"steady", "tsc"}))
      ->capture_default_str();
  command->add_flag("--string-ids", options->string_ids,
                    "log with string delegate identifiers instead of ints");
  command->add_flag("--no-intermediates", options->no_intermediates,
                    "do not log intermediate tensors");
  command->callback([options, &context] {
    context.status = demo(*options, *context.out);
  });
}

}  // namespace glassbox::cli

// `glassbox demo`: the main job, end to end on the demo model (ConvReLUTanModel).
// Build it, lower it to the demo delegate with an ETRecord, run it with
// ETDumpGen, then join the ETDump with the ETRecord in the Inspector and
// print the per-operator table (delegate events mapped back to the source
// operators and their module paths).

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "backends/demo/aot/demo_model.h"
#include "backends/demo/demo_plugin.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/io/output_files.h"
#include "glassbox/report/report.h"
#include "glassbox/runner/program_runner.h"
#include "src/cli/commands.h"
#include "src/cli/interrupt.h"
#include "src/cli/plugin_option.h"
#include "src/cli/run_cli.h"

namespace glassbox::cli {
namespace {

using runner::run_program;
using runner::RunOptions;
using runner::RunSummary;

struct DemoOptions {
  std::string out_dir = "glassbox-demo";
  int iterations = 5;
  std::string ids = "generated";
  std::string log_mode = "realtime";
  std::string clock = "tsc";
};

Status demo(const DemoOptions& options, io::OutputFiles& outputs, const std::atomic<bool>* stop,
            std::ostream& out, bool* interrupted) {
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Status(Error::kAccessFailed, "cannot create " + options.out_dir);
  const std::string program_path = options.out_dir + "/demo.gbx";
  const std::string etrecord_path = options.out_dir + "/demo.etrecord";
  const std::string etdump_path = options.out_dir + "/demo.etdp";
  const std::string trace_path = options.out_dir + "/demo.trace.json";
  const std::string report_path = options.out_dir + "/demo.html";
  // Each file is written under a temporary name and renamed into place once
  // the whole demo has succeeded.
  GLASSBOX_ASSIGN_OR_RETURN(const std::string program_file, outputs.add(program_path));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string etrecord_file, outputs.add(etrecord_path));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string etdump_file, outputs.add(etdump_path));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string trace_file, outputs.add(trace_path));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string report_file, outputs.add(report_path));

  // 1. Ahead of time: the model, lowered to the demo delegate.
  GLASSBOX_ASSIGN_OR_RETURN(aot::Graph model, backends::demo::build_conv_relu_tan_model());
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  GLASSBOX_RETURN_IF_ERROR(backends::add_to_recipe(
      backends::demo::demo_plugin(), {.identifiers = options.ids, .perturb = ""}, &recipe));
  recipe.compile_specs.push_back(
      aot::CompileSpec::from_string(runtime::kProfilingSpecKey, options.log_mode));
  GLASSBOX_ASSIGN_OR_RETURN(exporter::ExecutorchProgramManager program,
                            exporter::export_model(std::move(model), recipe));
  GLASSBOX_RETURN_IF_ERROR(program.save(program_file));
  GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record, program.get_etrecord());
  GLASSBOX_RETURN_IF_ERROR(record.save(etrecord_file));

  // 2. Run time: the program under ETDumpGen.
  RunOptions run;
  run.program_path = program_file;
  run.etdump_path = etdump_file;
  run.iterations = options.iterations;
  run.warmup = 1;
  run.use_tsc = options.clock == "tsc";
  run.stop = stop;
  GLASSBOX_ASSIGN_OR_RETURN(RunSummary summary, run_program(run));
  *interrupted = summary.interrupted;
  if (summary.completed == 0) {
    return Status(Error::kInvalidState, "interrupted before any execution completed");
  }

  // 3. After the run: the Inspector joins the two.
  GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(etdump_file));
  GLASSBOX_ASSIGN_OR_RETURN(inspector::Inspector inspector,
                            inspector::Inspector::create(dump, &record));
  GLASSBOX_RETURN_IF_ERROR(io::write_file(trace_file, inspector::to_chrome_trace(inspector)));
  report::ReportOptions report_options;
  report_options.title = "ConvReLUTanModel";
  GLASSBOX_ASSIGN_OR_RETURN(
      std::string page,
      report::render_report({.current = &inspector, .etrecord = &record}, report_options));
  GLASSBOX_RETURN_IF_ERROR(io::write_file(report_file, page));

  out << "Lowered ConvReLUTanModel to the demo delegate (identifiers: " << options.ids << ", "
      << options.log_mode << " logging) and ran it " << summary.completed << " times ("
      << summary.mean_execute_ms << " ms per execute).\n\n"
      << inspector::render(inspector, inspector::View::kOps, inspector::Format::kTable)
      << "\nFiles in " << options.out_dir << "/:\n"
      << "  demo.gbx         the program (fingerprint " << program.fingerprint() << ")\n"
      << "  demo.etrecord    the ETRecord (edge graph, debug handle and delegate maps)\n"
      << "  demo.etdp        the ETDump (" << summary.events << " events, " << summary.dropped
      << " dropped)\n"
      << "  demo.trace.json  a Chrome trace: open it in https://ui.perfetto.dev\n"
      << "  demo.html        the report: one page to open in a browser (glassbox report)\n"
      << "More views: glassbox inspect --etdump " << etdump_path << " --etrecord " << etrecord_path
      << " --view events|modules|reconcile\n";
  if (summary.interrupted) {
    out << "interrupted: the files hold the " << summary.completed << " completed execution(s)\n";
  }
  out.flush();
  if (!out) return Status(Error::kAccessFailed, "cannot write to standard output");
  return outputs.commit();
}

}  // namespace

void add_demo_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* command = app.add_subcommand(
      "demo",
      "The main job on the demo model (ConvReLUTanModel): lower it to the demo delegate "
      "with an ETRecord, run it under ETDumpGen, and print per-operator time "
      "inside the delegate mapped back to the model's operators. Writes "
      "demo.gbx, demo.etrecord, demo.etdp, demo.trace.json and demo.html (the report) into DIR");
  command->add_option("--out", options->out_dir, "output directory (DIR)")->capture_default_str();
  add_plugin_option(*command);
  command
      ->add_option("--iterations", options->iterations,
                   "recorded executions (one event block each)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command
      ->add_option("--ids", options->ids,
                   "delegate debug identifiers: generated (0, 1, ...), int "
                   "(manual, 100, 101, ...) or string")
      ->check(CLI::IsMember({"generated", "int", "string"}))
      ->capture_default_str();
  command
      ->add_option("--log-mode", options->log_mode,
                   "realtime (start/end around each op) or posttime "
                   "(timestamps logged after the loop)")
      ->check(CLI::IsMember({"realtime", "posttime"}))
      ->capture_default_str();
  add_clock_option(*command, &options->clock);
  command->callback([options, &context] {
    InterruptFlag interrupt;
    bool interrupted = false;
    context.status = with_output_files([&](io::OutputFiles& outputs) {
      return demo(*options, outputs, interrupt.get(), *context.out, &interrupted);
    });
    if (context.status.ok() && interrupted) context.exit_code = kExitInterrupted;
  });
}

}  // namespace glassbox::cli

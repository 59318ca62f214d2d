// `glassbox check-backend (--backend NAME | --plugin PATH) [--model M.onnx]
//                         [--format table|json] [-o FILE]`
// `glassbox check-backend --etdump R.etdp --etrecord M.etrecord [...]`:
// the conformance linter (conformance/conformance.h does the work).

#include <memory>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/conformance/conformance.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etrecord/etrecord.h"
#include "src/cli/commands.h"
#include "src/cli/plugin_option.h"

namespace glassbox::cli {
namespace {

struct CheckBackendOptions {
  std::string backend;
  std::vector<std::string> plugins;  // --plugin's paths (run_cli loaded them)
  std::string model;
  std::string ids = "generated";
  std::string etdump;
  std::string etrecord;
  std::string format = "table";
  std::string output;
  std::uint32_t seed = 7;
  double tolerance = 1e-3;
};

// The command line alone: a failure here is a usage error (exit code 2).
Status check_usage(const CheckBackendOptions& options) {
  const bool artifacts = !options.etdump.empty() || !options.etrecord.empty();
  const bool backend = !options.backend.empty() || !options.plugins.empty();
  if (artifacts && (backend || !options.model.empty())) {
    return Status(Error::kInvalidArgument,
                  "give either a backend (--backend or --plugin, optionally --model) or "
                  "existing artifacts (--etdump and --etrecord), not both");
  }
  if (artifacts && (options.etdump.empty() || options.etrecord.empty())) {
    return Status(Error::kInvalidArgument, "--etdump and --etrecord go together");
  }
  if (!artifacts && !backend) {
    return Status(Error::kInvalidArgument,
                  "nothing to check: give --backend NAME, --plugin PATH, or --etdump and "
                  "--etrecord");
  }
  if (options.tolerance < 0) {
    return Status(Error::kInvalidArgument, "--tolerance must be >= 0");
  }
  if (!options.backend.empty() && backends::find_backend_plugin(options.backend) == nullptr) {
    return Status(Error::kInvalidArgument, "--backend " + options.backend +
                                               ": no such backend (built in, or loaded with "
                                               "--plugin)");
  }
  if (options.backend.empty() && options.plugins.size() > 1) {
    return Status(Error::kInvalidArgument,
                  "several plug-ins loaded: name the one to check with --backend");
  }
  return check_outputs_are_not_inputs({options.model, options.etdump, options.etrecord},
                                      {options.output});
}

// The backend a lone --plugin registered: the last one registered.
std::string plugin_backend(const CheckBackendOptions& options) {
  if (!options.backend.empty()) return options.backend;
  const std::span<const backends::BackendPlugin* const> all = backends::backend_plugins();
  return all.empty() ? std::string() : std::string(all.back()->name);
}

Status check_backend(const CheckBackendOptions& options, std::ostream& out, bool* passed) {
  std::vector<conformance::RuleResult> results;
  if (!options.etdump.empty()) {
    GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(options.etdump));
    GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record,
                              etrecord::ETRecord::load(options.etrecord));
    results = conformance::check_artifacts(dump, record);
  } else {
    conformance::BackendCheckOptions check;
    check.backend = plugin_backend(options);
    check.model_path = options.model;
    check.identifiers = options.ids;
    check.seed = options.seed;
    check.tolerance = options.tolerance;
    GLASSBOX_ASSIGN_OR_RETURN(results, conformance::check_backend(check));
  }
  *passed = conformance::all_passed(results);
  const std::string text = options.format == "json" ? conformance::render_json(results)
                                                    : conformance::render_table(results);
  return write_text_output(text, options.output, {options.model, options.etdump, options.etrecord},
                           out);
}

}  // namespace

void add_check_backend_commands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<CheckBackendOptions>();
  CLI::App* command = app.add_subcommand(
      "check-backend",
      "Lint a backend's profiling against the rules the Inspector relies on: lower and run a "
      "small model through it (every log mode and profiling level), or lint an existing "
      "ETDump with its ETRecord (ExecuTorch's too). One line per rule: PASS, FAIL (and why), "
      "SKIP (and why) or INFO");
  command->footer(
      "Rules (docs/backend-authors.md, \"Check your backend\"): lower (the partitioner takes\n"
      "something), log_mode.realtime / log_mode.posttime (SKIP when prepare_runtime refuses the\n"
      "mode with kNotSupported), coverage.logged_in_map, coverage.map_logged, ids.set,\n"
      "events.balanced, time.monotonic, metadata.limits (at most 112 bytes), "
      "profiling_level.method,\n"
      "profiling_level.none, numerics (intermediate outputs against the portable kernels),\n"
      "hooks.cost (INFO: ns per delegate event, tracing on vs off; never a verdict). With\n"
      "--etdump/--etrecord only the rules that need no run.\n"
      "Exit codes: 0 every rule passed, 1 a rule failed or a bad input, 2 usage.");
  std::string backend_help;
  for (const backends::BackendPlugin* plugin : backends::backend_plugins()) {
    backend_help += (backend_help.empty() ? "" : ", ") + std::string(plugin->name);
  }
  command->add_option("--backend", options->backend,
                      "the backend to check: " + backend_help +
                          ", or one a --plugin loads (default with one --plugin: its backend)");
  add_plugin_option(*command);
  command->add_option("--model", options->model,
                      "an ONNX model to check with (default: the demo model for demo, else "
                      "testdata/onnx/tiny_cnn.onnx: conv, relu, pool, linear)");
  command->add_option("--ids", options->ids, "the identifiers compile spec to lower with")
      ->check(CLI::IsMember({"generated", "int", "string"}))
      ->capture_default_str();
  command->add_option("--seed", options->seed, "seed of the random inputs in [-1, 1)")
      ->capture_default_str();
  command
      ->add_option("--tolerance", options->tolerance,
                   "numerics: the largest |delegate - portable| allowed per element")
      ->check(finite_number())
      ->capture_default_str();
  command->add_option("--etdump", options->etdump, "lint this ETDump (with --etrecord)");
  command->add_option("--etrecord", options->etrecord, "the ETRecord of the --etdump's program");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "write here instead of stdout");
  command->callback([options, command, &context] {
    // run_cli loaded the plug-ins already; their paths say how many.
    if (command->count("--plugin") > 0) {
      options->plugins = command->get_option("--plugin")->as<std::vector<std::string>>();
    }
    bool passed = true;
    run_command(
        context, [&] { return check_usage(*options); },
        [&] { return check_backend(*options, *context.out, &passed); });
    if (context.status.ok() && !passed) context.exit_code = 1;
  });
}

}  // namespace glassbox::cli

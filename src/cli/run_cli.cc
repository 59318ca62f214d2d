#include "src/cli/run_cli.h"

#include <cmath>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <sstream>
#include <string>

#include "backends/common/plugin_loader.h"
#include "glassbox/config.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/io/output_files.h"
#include "glassbox/io/printable.h"
#include "src/cli/commands.h"

namespace glassbox::cli {
namespace {

constexpr const char* kFooter =
    "Exit codes:\n"
    "  0  success\n"
    "  1  bad input: a file is missing, unreadable, truncated or corrupt, or its\n"
    "     content is not what the command needs; or an output cannot be written\n"
    "  2  usage: unknown option, missing argument, bad value or combination\n"
    "  130  run/demo interrupted (SIGINT/SIGTERM): the completed executions were saved;\n"
    "       export interrupted: nothing was written\n"
    "Errors are printed as one line on stderr: \"glassbox: <message>\".";

std::string version_text() {
  return std::string("glassbox ") + kVersion + "\nreads ETDump schema version " +
         std::to_string(etdump::kETDumpSchemaVersion);
}

// The whole command tree; `context` collects the chosen command's result.
void add_all_commands(CLI::App& app, CommandContext& context) {
  app.set_version_flag("--version", version_text());
  app.footer(kFooter);
  app.require_subcommand(1);
  add_demo_commands(app, context);
  add_lower_commands(app, context);
  add_run_commands(app, context);
  add_etdump_commands(app, context);
  add_etrecord_commands(app, context);
  add_inspect_commands(app, context);
  add_report_commands(app, context);
  add_export_commands(app, context);
  add_compare_commands(app, context);
  add_check_backend_commands(app, context);
}

constexpr const char* kDescription =
    "Glassbox: delegate profiling tools for ExecuTorch-style runtimes";

}  // namespace

void add_clock_option(CLI::App& command, std::string* clock) {
  command
      .add_option("--clock", *clock,
                  "tsc (the cycle counter, scaled to ns as it is read: about half the cost of a "
                  "steady_clock read; steady where the CPU has no invariant TSC) or steady "
                  "(std::chrono::steady_clock). Both record nanoseconds")
      ->check(CLI::IsMember({"steady", "tsc"}))
      ->capture_default_str();
}

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        if (CLI::detail::lexical_cast(text, value) && std::isfinite(value)) return std::string();
        return "must be a finite number, got '" + text + "' (a NaN would turn the check off)";
      },
      "NUMBER");
}

Status write_output_chunks(const std::string& output, const std::vector<std::string>& inputs,
                           std::ostream& out, const io::ChunkProducer& produce) {
  if (output.empty() || output == "-") {
    const Status stdout_failed(Error::kAccessFailed, "cannot write to standard output");
    GLASSBOX_RETURN_IF_ERROR(produce([&](std::string_view chunk) {
      out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      return out ? Status() : stdout_failed;
    }));
    out.flush();
    return out ? Status() : stdout_failed;
  }
  io::OutputFiles outputs;
  GLASSBOX_RETURN_IF_ERROR(outputs.refuse_inputs(inputs));
  GLASSBOX_ASSIGN_OR_RETURN(const std::string file, outputs.add(output));
  GLASSBOX_RETURN_IF_ERROR(outputs.name_outputs(io::write_file_chunks(file, produce)));
  return outputs.commit();
}

Status write_text_output(const std::string& text, const std::string& output,
                         const std::vector<std::string>& inputs, std::ostream& out) {
  return write_output_chunks(output, inputs, out,
                             [&text](const io::ChunkSink& write) { return write(text); });
}

Status check_outputs_are_not_inputs(const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs) {
  for (const std::string& output : outputs) {
    for (const std::string& input : inputs) {
      if (!output.empty() && !input.empty() && io::same_file(output, input)) {
        return Status(Error::kInvalidArgument,
                      output +
                          " is both an input and an output of this command; refusing to "
                          "overwrite it");
      }
    }
  }
  return Status();
}

void run_command(CommandContext& context, const std::function<Status()>& check_usage,
                 const std::function<Status()>& work) {
  context.status = check_usage();
  if (!context.status.ok()) {
    context.usage_error = true;
    return;
  }
  context.status = work();
}

namespace {

// "glassbox inspect": the subcommands given, for messages.
std::string command_text(const CLI::App& app) {
  std::string text = "glassbox";
  for (const CLI::App* sub = &app;;) {
    const std::vector<CLI::App*> chosen = sub->get_subcommands();
    if (chosen.empty()) return text;
    sub = chosen.front();
    text += " " + sub->get_name();
  }
}

// The first word of the command line that names no command where one is
// expected ("glassbox frobnicate", "glassbox etdump frobnicate"), as
// "unknown command 'frobnicate' (glassbox takes: demo, lower, ...)"; none
// when every word up to the first option or argument names a command.
std::optional<std::string> unknown_command(CLI::App& app, int argc, const char* const* argv) {
  CLI::App* at = &app;
  std::string path = "glassbox";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const std::vector<CLI::App*> commands = at->get_subcommands([](CLI::App*) { return true; });
    if (word.empty() || word[0] == '-' || commands.empty()) return std::nullopt;
    CLI::App* next = nullptr;
    std::string names;
    for (CLI::App* command : commands) {
      if (command->get_name() == word) next = command;
      names += (names.empty() ? "" : ", ") + command->get_name();
    }
    if (next == nullptr) {
      return "unknown command '" + io::printable(word) + "' (" + path + " takes: " + names + ")";
    }
    at = next;
    path += " " + word;
  }
  return std::nullopt;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  // Plug-ins first: the command tree lists their backends (--backend).
  if (const Status loaded = backends::load_command_line_plugins(argc, argv); !loaded.ok()) {
    err << "glassbox: " << loaded.message() << "\n";
    return kExitBadInput;
  }
  CLI::App app(kDescription, "glassbox");
  CommandContext context;
  context.out = &out;
  context.err = &err;
  add_all_commands(app, context);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    const std::optional<std::string> unknown = unknown_command(app, argc, argv);
    err << "glassbox: " << (unknown ? *unknown : std::string(e.what()))
        << " (see glassbox --help)\n";
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    // Readers check sizes against the file before allocating (io::read_file
    // names the file and the bytes); this is the last guard.
    err << "glassbox: out of memory in '" << command_text(app)
        << "': an input needs more memory than this machine has\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    // Commands report errors as Status; this only guards against a bug.
    err << "glassbox: internal error: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!context.status.ok()) {
    err << "glassbox: " << context.status.message() << "\n";
    if (context.usage_error) return kExitUsage;
    return context.exit_code == kExitInterrupted ? kExitInterrupted : kExitBadInput;
  }
  return context.exit_code;
}

CommandLineOutcome run_command_line(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"glassbox"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  CommandLineOutcome outcome;
  outcome.status = backends::load_command_line_plugins(static_cast<int>(argv.size()), argv.data());
  if (!outcome.status.ok()) return outcome;
  CLI::App app(kDescription, "glassbox");
  std::ostringstream out, err;
  CommandContext context;
  context.out = &out;
  context.err = &err;
  add_all_commands(app, context);
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    outcome.parsed = false;
    return outcome;
  }
  outcome.status = context.status;
  outcome.out = out.str();
  return outcome;
}

int run_cli(int argc, char** argv) { return run_cli(argc, argv, std::cout, std::cerr); }

}  // namespace glassbox::cli

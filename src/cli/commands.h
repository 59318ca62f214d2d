#pragma once
// Every subcommand registers itself through one function listed here;
// run_cli() calls each. To add a subcommand, write its own file with an
// add_<name>_commands() function, declare it below and call it from
// run_cli.cc.

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "glassbox/core/status.h"
#include "glassbox/io/output_files.h"

namespace glassbox::cli {

/// What a subcommand's callback may use while it runs. `out` receives the
/// command's output; a failing command stores its error in `status` (it
/// never prints it: run_cli does, as one line, and picks the exit code).
struct CommandContext {
  std::ostream* out = nullptr;
  /// Per-input notes of commands that go on after a bad input (a skipped
  /// dump), and their summaries; never the command's result.
  std::ostream* err = nullptr;
  Status status;
  /// A successful command's exit code when it is not kExitOk (an
  /// interrupted run that saved its work: kExitInterrupted); a failed
  /// command's when it is kExitInterrupted (an interrupted export).
  int exit_code = 0;
  /// The failure is the command line's (exit code 2), not the input's (1).
  bool usage_error = false;
};

/// `--clock tsc|steady` into `clock` ("tsc" unless given), as `run` and
/// `demo` take it: the events' clock.
void add_clock_option(CLI::App& command, std::string* clock);

/// The check of an option that takes a finite number (`--threshold`): a
/// NaN would silently turn every comparison against it off.
CLI::Validator finite_number();

/// A usage error when an output names the same file as an input (a
/// command must never overwrite what it reads); empty paths are skipped.
Status check_outputs_are_not_inputs(const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs);

/// Writes what `produce` hands out to `out` (when `output` is "" or "-") or
/// to the file `output`, through a temporary file renamed into place, never
/// over one of `inputs`. The `-o` of `inspect` and `compare`; a large
/// result (a chrome trace) is never held whole.
Status write_output_chunks(const std::string& output, const std::vector<std::string>& inputs,
                           std::ostream& out, const io::ChunkProducer& produce);

/// write_output_chunks of one text.
Status write_text_output(const std::string& text, const std::string& output,
                         const std::vector<std::string>& inputs, std::ostream& out);

/// Runs `work` with the command's output files (io::OutputFiles, passed
/// in); an error names the user's files, never their temporaries.
template <typename Work>
Status with_output_files(Work work) {
  io::OutputFiles outputs;
  return outputs.name_outputs(work(outputs));
}

/// Runs a command in two steps, so that exit codes mean what the README
/// says: `check_usage` looks at the command line alone (options, their
/// values and combinations; no file is opened), and its failure is a usage
/// error; `work` does the work, and its failure is the input's.
void run_command(CommandContext& context, const std::function<Status()>& check_usage,
                 const std::function<Status()>& work);

/// `glassbox etdump show` (etdump_command.cc).
void add_etdump_commands(CLI::App& app, CommandContext& context);

/// `glassbox lower` (lower_command.cc).
void add_lower_commands(CLI::App& app, CommandContext& context);

/// `glassbox etrecord show` (etrecord_command.cc).
void add_etrecord_commands(CLI::App& app, CommandContext& context);

/// `glassbox inspect` (inspect_command.cc).
void add_inspect_commands(CLI::App& app, CommandContext& context);

/// `glassbox run` (run_command.cc).
void add_run_commands(CLI::App& app, CommandContext& context);

/// `glassbox report` (report_command.cc).
void add_report_commands(CLI::App& app, CommandContext& context);

/// `glassbox compare` (compare_command.cc).
void add_compare_commands(CLI::App& app, CommandContext& context);

/// `glassbox check-backend` (check_backend_command.cc).
void add_check_backend_commands(CLI::App& app, CommandContext& context);

/// `glassbox export` (export_command.cc).
void add_export_commands(CLI::App& app, CommandContext& context);

/// `glassbox demo` (demo_command.cc).
void add_demo_commands(CLI::App& app, CommandContext& context);

}  // namespace glassbox::cli

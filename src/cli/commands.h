#pragma once
// Every subcommand registers itself through one function listed here;
// run_cli() calls each. To add a subcommand, write its own file with an
// add_<name>_commands() function, declare it below and call it from
// run_cli.cc.

#include <ostream>

#include "CLI/CLI.hpp"
#include "glassbox/core/status.h"

namespace glassbox::cli {

/// What a subcommand's callback may use while it runs. `out` receives the
/// command's output; a failing command stores its error in `status` (it
/// never prints it: run_cli does, as one line, and picks the exit code).
struct CommandContext {
  std::ostream* out = nullptr;
  Status status;
};

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

/// `glassbox demo` (demo_command.cc).
void add_demo_commands(CLI::App& app, CommandContext& context);

}  // namespace glassbox::cli

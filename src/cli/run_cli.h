#pragma once
// The `glassbox` command line, as a library so that tests can run it. The
// executable (tools/glassbox/main.cc) only calls run_cli(argc, argv).

#include <ostream>
#include <string>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::cli {

/// Exit codes, documented in `glassbox --help`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  ///< A file is missing or invalid.
inline constexpr int kExitUsage = 2;     ///< Bad command line.
/// Stopped by SIGINT/SIGTERM after saving the completed work.
inline constexpr int kExitInterrupted = 130;

/// Runs the CLI with the process's stdout and stderr.
int run_cli(int argc, char** argv);

/// Runs the CLI writing to `out` and `err` (both borrowed for the call).
/// Errors are one line on `err`: "glassbox: <message>".
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// What one command line did, with the command's own Status (tests check
/// error codes, which the exit code folds together).
struct CommandLineOutcome {
  bool parsed = true;  ///< False when the command line itself was rejected.
  Status status;       ///< The command's result (ok when not parsed).
  std::string out;     ///< What the command wrote to its output.
};

/// Runs `glassbox ARGS...` (without the program name) through the same
/// command tree as run_cli.
CommandLineOutcome run_command_line(const std::vector<std::string>& args);

}  // namespace glassbox::cli

#pragma once
// The `glassbox` command line, as a library so that tests can run it. The
// executable (tools/glassbox/main.cc) only calls run_cli(argc, argv).

#include <ostream>

namespace glassbox::cli {

/// Exit codes, documented in `glassbox --help`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  ///< A file is missing or invalid.
inline constexpr int kExitUsage = 2;     ///< Bad command line.

/// Runs the CLI with the process's stdout and stderr.
int run_cli(int argc, char** argv);

/// Runs the CLI writing to `out` and `err` (both borrowed for the call).
/// Errors are one line on `err`: "glassbox: <message>".
int run_cli(int argc, const char* const* argv, std::ostream& out,
            std::ostream& err);

}  // namespace glassbox::cli

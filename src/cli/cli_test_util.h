#pragma once
// Runs the `glassbox` command line in-process for tests: the exit code and
// what it printed on stdout and stderr.

#include <sstream>
#include <string>
#include <vector>

#include "src/cli/run_cli.h"

namespace glassbox::cli {

struct CliResult {
  int exit_code;
  std::string out;
  std::string err;
};

/// `args` without the program name, e.g. {"run", "m.gbx", "--etdump", "m.etdp"}.
inline CliResult run_glassbox(std::vector<std::string> args) {
  args.insert(args.begin(), "glassbox");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

}  // namespace glassbox::cli

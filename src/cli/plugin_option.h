#pragma once
// `--plugin PATH` of the commands that use backends (lower, run, demo). The
// libraries are loaded before the command line is parsed
// (backends::load_command_line_plugins in run_cli), so that `--backend`
// accepts their names; the option itself only declares and documents them.

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace glassbox::cli {

inline void add_plugin_option(CLI::App& command) {
  command
      .add_option_function<std::vector<std::string>>(
          "--plugin", [](const std::vector<std::string>&) {},
          "a backend plug-in (shared library) to load first; repeatable. GLASSBOX_PLUGINS "
          "(colon-separated paths) loads more. A plug-in built for another ABI, build or "
          "Glassbox version is refused (exit 1). See docs/backend-authors.md")
      ->type_name("PATH");
}

}  // namespace glassbox::cli

#pragma once
// `--plugin PATH` of the commands that use backends (lower, run, demo) or
// their raw-trace decoders (inspect, report, export). The libraries are
// loaded before the command line is parsed
// (backends::load_command_line_plugins in run_cli), so that `--backend`
// accepts their names and a dump's raw traces find their decoder; the
// option itself only declares and documents them.

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace glassbox::cli {

/// `for_decoding`: the command reads dumps (inspect, report, export), so
/// the help says what a plug-in does there.
inline void add_plugin_option(CLI::App& command, bool for_decoding = false) {
  const std::string what =
      for_decoding ? "a backend plug-in (shared library) whose decoder expands the raw traces its "
                     "delegate logged (deferred decoding); repeatable. A dump with raw traces of a "
                     "backend no loaded plug-in decodes is refused (exit 1). "
                   : "a backend plug-in (shared library) to load first; repeatable. ";
  command
      .add_option_function<std::vector<std::string>>(
          "--plugin", [](const std::vector<std::string>&) {},
          what +
              "GLASSBOX_PLUGINS (colon-separated paths) loads more. A plug-in built for another "
              "ABI, build or Glassbox version is refused (exit 1). See docs/backend-authors.md")
      ->type_name("PATH");
}

}  // namespace glassbox::cli

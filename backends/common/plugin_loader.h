#pragma once
/// @file
/// Loads backend plug-ins (glassbox/backends/plugin.h) from shared
/// libraries into the registry of backend_plugin.h, from `--plugin PATH`
/// and from GLASSBOX_PLUGINS.
///
///   GLASSBOX_RETURN_IF_ERROR(load_backend_plugin("/opt/npu/libexample_npu.so"));
///   find_backend_plugin("example_npu");  // now registered
///
/// A library is opened with RTLD_NOW, so a symbol it needs and this
/// program lacks fails the load (dlerror's text names it) instead of a
/// later call. A refused library is never called again, nor closed (its
/// static constructors have run; closing could leave what they did
/// dangling).

#include <string>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::backends {

/// The environment variable of plug-in paths, colon-separated.
inline constexpr char kPluginsEnvironmentVariable[] = "GLASSBOX_PLUGINS";

/// Opens `path` (a path without '/' is taken in the current directory,
/// never searched for), calls its glassbox_plugin_entry and registers the
/// backend (register_backend_plugin). Errors, each one sentence starting
/// "plug-in PATH: ": dlopen's failure (kAccessFailed, with dlerror's text);
/// no entry symbol or a null entry (kNotFound, naming
/// glassbox_plugin_entry); what register_backend_plugin refuses. Loading
/// the same library twice is a no-op.
Status load_backend_plugin(const std::string& path);

/// The paths in GLASSBOX_PLUGINS, in order, empty entries skipped.
std::vector<std::string> plugin_paths_from_environment();

/// For a command that takes plug-ins (`lower`, `run`, `demo`,
/// `check-backend`, and `inspect`, `report`, `export` for their raw-trace
/// decoders, as argv[1]): loads GLASSBOX_PLUGINS', then each
/// `--plugin PATH` / `--plugin=PATH` of the command line in order, before
/// the command line is parsed, so `--backend` accepts their names. Other
/// commands load nothing. The first failure stops and is returned.
Status load_command_line_plugins(int argc, const char* const* argv);

}  // namespace glassbox::backends

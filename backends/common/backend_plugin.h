#pragma once
/// @file
/// The registry of backends the tools use: the built-in ones (demo,
/// XNNPACK, oneDNN when built), registered at first use, and plug-ins
/// loaded at run time (backends/common/plugin_loader.h), all through
/// `register_backend_plugin`, so `glassbox lower`, `glassbox run`, the
/// runner and the bindings treat every backend alike. The types a backend
/// provides are public: glassbox/backends/plugin.h. Adding a built-in
/// backend is one `<name>_plugin.cc` and one line in backend_plugins.cc.
///
///   const BackendPlugin* xnnpack = find_backend_plugin("xnnpack");
///   exporter::Recipe recipe;
///   GLASSBOX_RETURN_IF_ERROR(add_to_recipe(*xnnpack, {.identifiers = "int", .perturb = "3"},
///   &recipe));
///   ... export, save ...
///   GLASSBOX_RETURN_IF_ERROR(prepare_backend_runtimes({.log_mode = {}, .threads = 2}));

#include <span>
#include <string_view>

#include "glassbox/backends/plugin.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/export/program_manager.h"

namespace glassbox::backends {

/// Registers the backend of `entry` after checking, in this order, its
/// ABI version, its build tag (both against this binary's), that it has a
/// name other than "portable", a partitioner and a runtime half, and that
/// no other backend has its name (kVersionMismatch for the first two,
/// kInvalidArgument else: one sentence naming what differs). `origin` ("built
/// in", or the plug-in's path) is kept for the message of a later clash.
/// Registering the same BackendPlugin again is a no-op. `entry.plugin`
/// must outlive the process; `entry` itself is read during the call.
/// Not thread-safe: register before lowering or running.
Status register_backend_plugin(const PluginEntry& entry, std::string_view origin);

/// Every registered backend: the built-in ones in a stable order, then
/// plug-ins in load order. The span is invalidated by a registration.
std::span<const BackendPlugin* const> backend_plugins();

/// The backend named `name`, or null.
const BackendPlugin* find_backend_plugin(std::string_view name);

/// The registered backends' raw-trace decoders (deferred decoding), looked
/// up when called: what inspect, report, compare and Python's Inspector
/// expand a dump's raw traces with.
etdump::RawTraceDecoderLookup raw_trace_decoders();

/// Adds `plugin`'s partitioner and the compile specs of `settings` to
/// `recipe`.
Status add_to_recipe(const BackendPlugin& plugin, const LowerSettings& settings,
                     exporter::Recipe* recipe);

/// Calls every backend's prepare_runtime with `settings`.
Status prepare_backend_runtimes(const RunSettings& settings);

}  // namespace glassbox::backends

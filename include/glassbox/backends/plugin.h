#pragma once
/// @file
/// A backend as the tools see it, and the boundary of a backend plug-in.
///
/// A backend is one `BackendPlugin`: its AOT half (a partitioner for
/// `glassbox lower`, optionally a report of what it leaves on the portable
/// kernels) and its runtime half (`prepare_runtime` registers a
/// runtime::BackendInterface and applies run options). The built-in
/// backends and plug-ins loaded at run time register through one function,
/// with one `PluginEntry` each.
///
/// A plug-in is a shared library, built against this Glassbox version's
/// installed headers (CMake: `glassbox::plugin_api`), that exports:
///
///   extern "C" GLASSBOX_PLUGIN_EXPORT const void* glassbox_plugin_entry(void) {
///     static const glassbox::backends::PluginEntry entry{
///         glassbox::backends::kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, &my_plugin};
///     return &entry;
///   }
///
/// The ABI is C++ (docs/backend-authors.md): a plug-in must be built with the
/// same compiler family and major version, the same C++ standard library
/// release and the same Glassbox version as the `glassbox` that loads it.
/// The loader reads `abi_version` first (the only field whose place never
/// changes), then compares `build_tag` with its own, and only then reads
/// `plugin`. The plug-in links no Glassbox library: its undefined symbols
/// (aot::global_backend_registry, runtime::register_backend, the hooks) bind
/// to the loading program's single copies.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/partitioner.h"
#include "glassbox/config.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/runtime/delegate_specs.h"

/// The version of the `PluginEntry` / `BackendPlugin` layout. Raised on any
/// change to either struct, LowerSettings or RunSettings. 2: the raw-trace
/// decoder (BackendPlugin::decode_raw_trace).
#define GLASSBOX_PLUGIN_ABI_VERSION 2

#define GLASSBOX_PLUGIN_STRINGIFY_(x) #x
#define GLASSBOX_PLUGIN_STRINGIFY(x) GLASSBOX_PLUGIN_STRINGIFY_(x)
#if defined(__clang__)
#define GLASSBOX_PLUGIN_COMPILER_ "clang-" GLASSBOX_PLUGIN_STRINGIFY(__clang_major__)
#elif defined(__GNUC__)
#define GLASSBOX_PLUGIN_COMPILER_ "gcc-" GLASSBOX_PLUGIN_STRINGIFY(__GNUC__)
#else
#define GLASSBOX_PLUGIN_COMPILER_ "unknown-compiler"
#endif
#if defined(_GLIBCXX_RELEASE)
#define GLASSBOX_PLUGIN_STDLIB_ "libstdc++-" GLASSBOX_PLUGIN_STRINGIFY(_GLIBCXX_RELEASE)
#elif defined(_LIBCPP_VERSION)
#define GLASSBOX_PLUGIN_STDLIB_ "libc++-" GLASSBOX_PLUGIN_STRINGIFY(_LIBCPP_VERSION)
#else
#define GLASSBOX_PLUGIN_STDLIB_ "unknown-stdlib"
#endif

/// What a plug-in and its loader must agree on beyond the ABI version, e.g.
/// "gcc-12 libstdc++-12 glassbox-0.1.0". A macro, not a variable or inline
/// function: it must expand in the plug-in's own translation unit, since a
/// symbol of the header would bind to the loader's copy at load time.
#define GLASSBOX_PLUGIN_BUILD_TAG \
  GLASSBOX_PLUGIN_COMPILER_ " " GLASSBOX_PLUGIN_STDLIB_ " glassbox-" GLASSBOX_VERSION_STRING

/// Marks the entry point visible in a library built with
/// -fvisibility=hidden.
#define GLASSBOX_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace glassbox::backends {

inline constexpr std::uint32_t kPluginAbiVersion = GLASSBOX_PLUGIN_ABI_VERSION;
/// The symbol every plug-in exports.
inline constexpr char kPluginEntrySymbol[] = "glassbox_plugin_entry";

/// What `lower` asks of a backend's AOT half.
struct LowerSettings {
  /// The "identifiers" compile spec: "generated", "int" or "string".
  std::string identifiers = "generated";
  /// A deliberate fault for numeric debugging: the delegate debug
  /// identifier of the operator(s) to perturb ("" for none); see
  /// glassbox/runtime/delegate_specs.h.
  std::string perturb;
};

/// Run options for every backend's runtime half; unset keeps what the
/// program's compile specs say.
struct RunSettings {
  std::optional<runtime::DelegateLogMode> log_mode;
  /// Threads for backends that use them; 0 keeps the compile spec.
  std::uint32_t threads = 0;
  /// False: every convolution runs a direct algorithm. True lets backends
  /// that have Winograd kernels (oneDNN) use them where they are faster;
  /// their sums round differently (see docs/operators.md).
  bool winograd = true;
};

struct BackendPlugin {
  /// The name `--backend` takes ("demo", "xnnpack"): the name of its
  /// aot::BackendDetails and of its runtime::BackendInterface. Unique among
  /// registered backends; never "portable".
  std::string_view name;
  /// One line for --help.
  std::string_view summary;
  /// A partitioner over this backend's AOT half (registered in
  /// aot::global_backend_registry() on first use; the registry owns it).
  StatusOr<aot::Partitioner> (*make_partitioner)();
  /// Per node of `graph`, in node order, why the partitioner leaves it on
  /// the portable kernels, or "" when it takes it. Null when the backend
  /// has no report.
  StatusOr<std::vector<std::string>> (*partition_report)(const aot::Graph& graph);
  /// Registers the runtime half (idempotent) and applies `settings` to
  /// delegates initialised from now on.
  Status (*prepare_runtime)(const RunSettings& settings);
  /// Per node of `graph`, in node order, whether the backend runs it as
  /// (part of) an int8 operator (`lower` prints the count). Null when the
  /// backend has no int8 operators.
  StatusOr<std::vector<bool>> (*int8_report)(const aot::Graph& graph) = nullptr;
  /// Deferred decoding: expands one raw trace its runtime half logged
  /// (glassbox/runtime/delegate_raw_trace.h) into per-operator events, on
  /// the host, when `inspect`, `report` or `export` read the dump. A C
  /// function (glassbox/etdump/raw_trace.h): bytes, size and the backend's
  /// declared clock in; events out through a callback; 0 or an error
  /// message. Null when the backend logs its events directly (the
  /// built-ins). The host checks every event it gives.
  GlassboxRawTraceDecoder decode_raw_trace = nullptr;
};

/// What `glassbox_plugin_entry` returns (and what each built-in backend
/// registers). Standard layout; `abi_version` stays the first field in
/// every ABI version, so any loader can read it.
struct PluginEntry {
  /// kPluginAbiVersion of the headers the plug-in was built with.
  std::uint32_t abi_version;
  /// GLASSBOX_PLUGIN_BUILD_TAG as the plug-in's compiler expanded it.
  const char* build_tag;
  /// The backend; must live as long as the process (a static).
  const BackendPlugin* plugin;
};

/// The AOT half of type `Backend` registered as `name` in
/// aot::global_backend_registry(), registered with `register_backend` on
/// first use (the registry owns it; a second `lower` in one process, as in
/// tests, finds it there).
template <typename Backend>
StatusOr<Backend*> registered_backend(const char* name,
                                      Status (*register_backend)(aot::BackendRegistry&)) {
  aot::BackendRegistry& registry = aot::global_backend_registry();
  if (!registry.lookup(name).ok()) GLASSBOX_RETURN_IF_ERROR(register_backend(registry));
  GLASSBOX_ASSIGN_OR_RETURN(aot::BackendDetails * details, registry.lookup(name));
  auto* backend = dynamic_cast<Backend*>(details);
  if (backend == nullptr) {
    return Status(Error::kInternal,
                  std::string("backend '") + name + "' is registered but is of another type");
  }
  return backend;
}

}  // namespace glassbox::backends

#pragma once
/// @file
/// A backend as the tools see it: one object per delegate holding its AOT
/// half (a partitioner for `lower`, optionally a report of what it leaves
/// on the portable kernels) and its runtime half (registration with the
/// runtime and run options), so `glassbox lower`, `glassbox run`, the
/// runner and the bindings treat every backend alike. Adding a backend is
/// one `<name>_plugin.cc` and one line in backend_plugins.cc.
///
///   const BackendPlugin* xnnpack = find_backend_plugin("xnnpack");
///   exporter::Recipe recipe;
///   GLASSBOX_RETURN_IF_ERROR(add_to_recipe(*xnnpack, {.identifiers = "int", .perturb = "3"},
///   &recipe));
///   ... export, save ...
///   GLASSBOX_RETURN_IF_ERROR(prepare_backend_runtimes({.log_mode = {}, .threads = 2}));

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/partitioner.h"
#include "glassbox/core/status.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends {

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
  /// The name `--backend` takes ("demo", "xnnpack").
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

/// The backends built into this binary, in a stable order.
std::span<const BackendPlugin* const> backend_plugins();

/// The backend named `name`, or null.
const BackendPlugin* find_backend_plugin(std::string_view name);

/// Adds `plugin`'s partitioner and the compile specs of `settings` to
/// `recipe`.
Status add_to_recipe(const BackendPlugin& plugin, const LowerSettings& settings,
                     exporter::Recipe* recipe);

/// Calls every backend's prepare_runtime with `settings`.
Status prepare_backend_runtimes(const RunSettings& settings);

}  // namespace glassbox::backends

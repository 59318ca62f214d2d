#pragma once
/// @file
/// The AOT half of a delegate backend: `BackendDetails::preprocess` compiles
/// one partition (a subgraph) into opaque bytes plus a debug handle map that
/// says which source operators each delegate debug identifier stands for.
/// `to_backend()` (to_backend.h) calls it; backends are found by name in a
/// `BackendRegistry`.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/compile_spec.h"
#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// What `preprocess` returns.
struct PreprocessResult {
  /// The backend's compiled form of the subgraph, stored in the program and
  /// handed to the runtime half's init().
  std::vector<std::uint8_t> processed_bytes;
  /// Identifier -> debug handles of the subgraph's nodes; nullopt when the
  /// backend reports none (its events then map to the whole delegate call).
  std::optional<DebugHandleMap> debug_handle_map;
};

class BackendDetails {
 public:
  virtual ~BackendDetails() = default;

  /// The backend's unique name; the runtime half registers the same name.
  virtual std::string name() const = 0;

  /// Compiles `subgraph` (verified, with the source graph's debug handles,
  /// module hierarchy and value ids; its inputs are the partition's inputs,
  /// its constants are copied in). Non-const because a backend may keep
  /// state across calls; each call should build its own
  /// DelegateMappingBuilder.
  virtual StatusOr<PreprocessResult> preprocess(const Graph& subgraph,
                                                std::span<const CompileSpec> compile_specs) = 0;
};

/// Backends by name. Not thread-safe: register everything at start-up.
class BackendRegistry {
 public:
  /// Takes ownership. A null backend or a name already registered is
  /// kInvalidArgument.
  Status register_backend(std::unique_ptr<BackendDetails> backend);
  /// The backend named `name` (kNotFound otherwise). The pointer lives as long
  /// as the registry.
  StatusOr<BackendDetails*> lookup(std::string_view name) const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::unique_ptr<BackendDetails>, std::less<>> backends_;
};

/// The process-wide registry used by tools.
BackendRegistry& global_backend_registry();

}  // namespace glassbox::aot

#pragma once
/// @file
/// `DelegateMappingBuilder`: builds the `DebugHandleMap` a backend returns
/// from `preprocess`, with ExecuTorch's semantics (exir/backend/utils.py),
/// made stricter where ExecuTorch silently accepts mistakes.
///
///   DelegateMappingBuilder builder(/*generated_identifiers=*/true);
///   builder.insert_delegate_mapping_entry(nodes_of_fused_op);  // -> 0
///   builder.insert_delegate_mapping_entry(tan_node);           // -> 1
///   result.debug_handle_map = builder.get_delegate_mapping();
///
/// Use one builder per `preprocess` call. A builder is either manual (the
/// caller names every entry with an int or a string identifier) or generated
/// (the builder numbers entries 0, 1, 2, ... without gaps), never both.
///
/// Errors (all kInvalidArgument, and the builder is unchanged after one):
/// - an identifier given to a generated builder, or none to a manual one;
/// - `insert_` with an identifier that already has an entry;
/// - no nodes or handles, a node without a debug handle, or handle 0
///   (ExecuTorch drops handle-less nodes silently and keeps 0);
/// - an int identifier outside [0, INT32_MAX] (the runtime logs int ids as
///   int32 with -1 meaning unset) or an empty string identifier;
/// - int and string identifiers in one map.
/// Everything is validated before a generated id is consumed, so a failed
/// insert never leaves a gap (ExecuTorch's builder burns the id).

#include <optional>
#include <span>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

class DelegateMappingBuilder {
 public:
  explicit DelegateMappingBuilder(bool generated_identifiers = false)
      : generated_(generated_identifiers) {}

  /// Adds a new entry mapping `identifier` (or the next generated one) to the
  /// debug handles of the given nodes, and returns the identifier used.
  /// Node pointers are only read during the call.
  StatusOr<DelegateDebugIdentifier> insert_delegate_mapping_entry(
      const Node& node, std::optional<DelegateDebugIdentifier> identifier = {});
  StatusOr<DelegateDebugIdentifier> insert_delegate_mapping_entry(
      std::span<const Node* const> nodes, std::optional<DelegateDebugIdentifier> identifier = {});
  /// As above, from debug handles directly.
  StatusOr<DelegateDebugIdentifier> insert_delegate_mapping_entry(
      std::span<const DebugHandle> handles, std::optional<DelegateDebugIdentifier> identifier = {});

  /// ExecuTorch's upsert variant: like `insert_`, except that an identifier that
  /// already has an entry gets the nodes' handles added to that entry
  /// (kept sorted and unique) instead of being rejected.
  StatusOr<DelegateDebugIdentifier> upsert_delegate_mapping_entry(
      const Node& node, std::optional<DelegateDebugIdentifier> identifier = {});
  StatusOr<DelegateDebugIdentifier> upsert_delegate_mapping_entry(
      std::span<const Node* const> nodes, std::optional<DelegateDebugIdentifier> identifier = {});

  /// The map built so far: identifiers sorted, each with sorted unique handles.
  const DebugHandleMap& get_delegate_mapping() const { return map_; }

  bool generated_identifiers() const { return generated_; }

 private:
  enum class Mode { kInsert, kUpsert };
  StatusOr<std::vector<DebugHandle>> handles_of(std::span<const Node* const> nodes) const;
  StatusOr<DelegateDebugIdentifier> add(std::vector<DebugHandle> handles,
                                        std::optional<DelegateDebugIdentifier> identifier,
                                        Mode mode);

  bool generated_;
  std::int64_t next_generated_ = 0;
  DebugHandleMap map_;
};

}  // namespace glassbox::aot

#include "glassbox/aot/delegate_mapping_builder.h"

#include <algorithm>
#include <limits>

namespace glassbox::aot {
namespace {

Status invalid(std::string message) { return Status(Error::kInvalidArgument, std::move(message)); }

void sort_unique(std::vector<DebugHandle>* handles) {
  std::sort(handles->begin(), handles->end());
  handles->erase(std::unique(handles->begin(), handles->end()), handles->end());
}

}  // namespace

StatusOr<std::vector<DebugHandle>> DelegateMappingBuilder::handles_of(
    std::span<const Node* const> nodes) const {
  std::vector<DebugHandle> handles;
  for (const Node* node : nodes) {
    if (node == nullptr) return invalid("delegate mapping entry: null node");
    // ExecuTorch skips nodes without a handle while one valid handle remains;
    // that hides a broken graph, so it is an error here.
    if (!node->debug_handle.is_set()) {
      return invalid("delegate mapping entry: node '" + node->name + "' has no debug handle");
    }
    handles.push_back(node->debug_handle);
  }
  return handles;
}

StatusOr<DelegateDebugIdentifier> DelegateMappingBuilder::add(
    std::vector<DebugHandle> handles, std::optional<DelegateDebugIdentifier> identifier,
    Mode mode) {
  // Every check runs before a generated id is taken, so ids have no gaps.
  if (generated_ && identifier) {
    return invalid("builders using generated identifiers can't take a manual identifier (got " +
                   describe(*identifier) + ")");
  }
  if (!generated_ && !identifier) {
    return invalid("no identifier provided to a builder using manual identifiers");
  }
  if (handles.empty()) return invalid("delegate mapping entry: no nodes or debug handles given");
  for (DebugHandle h : handles) {
    if (!h.is_set())
      return invalid("delegate mapping entry: debug handle 0 (unset) is not allowed");
  }
  DelegateDebugIdentifier id = identifier ? *identifier : DelegateDebugIdentifier(next_generated_);
  if (const auto* i = std::get_if<std::int64_t>(&id)) {
    if (*i < 0 || *i > std::numeric_limits<std::int32_t>::max()) {
      return invalid("identifier " + describe(id) +
                     " outside [0, INT32_MAX]; the runtime logs int identifiers as int32");
    }
  } else if (std::get<std::string>(id).empty()) {
    return invalid("identifier must not be an empty string");
  }
  if (!map_.empty() && kind_of(map_.begin()->first) != kind_of(id)) {
    return invalid("identifier " + describe(id) + " is " + std::string(to_string(kind_of(id))) +
                   " but this map's identifiers are " +
                   std::string(to_string(kind_of(map_.begin()->first))));
  }
  auto existing = map_.find(id);
  if (existing != map_.end() && mode == Mode::kInsert) {
    return invalid("delegate debug identifier " + describe(id) +
                   " was already inserted; duplicate identifiers are not allowed");
  }

  if (generated_) ++next_generated_;
  if (existing != map_.end()) {
    handles.insert(handles.end(), existing->second.begin(), existing->second.end());
    sort_unique(&handles);
    existing->second = std::move(handles);
  } else {
    sort_unique(&handles);
    map_.emplace(id, std::move(handles));
  }
  return id;
}

StatusOr<DelegateDebugIdentifier> DelegateMappingBuilder::insert_delegate_mapping_entry(
    const Node& node, std::optional<DelegateDebugIdentifier> identifier) {
  const Node* nodes[] = {&node};
  return insert_delegate_mapping_entry(std::span<const Node* const>(nodes), std::move(identifier));
}

StatusOr<DelegateDebugIdentifier> DelegateMappingBuilder::insert_delegate_mapping_entry(
    std::span<const Node* const> nodes, std::optional<DelegateDebugIdentifier> identifier) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<DebugHandle> handles, handles_of(nodes));
  return add(std::move(handles), std::move(identifier), Mode::kInsert);
}

StatusOr<DelegateDebugIdentifier> DelegateMappingBuilder::insert_delegate_mapping_entry(
    std::span<const DebugHandle> handles, std::optional<DelegateDebugIdentifier> identifier) {
  return add(std::vector<DebugHandle>(handles.begin(), handles.end()), std::move(identifier),
             Mode::kInsert);
}

StatusOr<DelegateDebugIdentifier> DelegateMappingBuilder::upsert_delegate_mapping_entry(
    const Node& node, std::optional<DelegateDebugIdentifier> identifier) {
  const Node* nodes[] = {&node};
  return upsert_delegate_mapping_entry(std::span<const Node* const>(nodes), std::move(identifier));
}

StatusOr<DelegateDebugIdentifier> DelegateMappingBuilder::upsert_delegate_mapping_entry(
    std::span<const Node* const> nodes, std::optional<DelegateDebugIdentifier> identifier) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<DebugHandle> handles, handles_of(nodes));
  return add(std::move(handles), std::move(identifier), Mode::kUpsert);
}

}  // namespace glassbox::aot

#include "src/etrecord/executorch_maps.h"

#include <algorithm>
#include <string>
#include <vector>

#include "src/etrecord/map_json.h"

namespace glassbox::etrecord::internal {
namespace {

constexpr std::uint64_t kMaxHandle = std::numeric_limits<std::uint32_t>::max();
// Nested lists deeper than this are not a handle list but an attack.
constexpr int kMaxListDepth = 8;

Status collect_handles(const Json& j, const std::string& path, int depth,
                       std::vector<DebugHandle>* handles) {
  if (j.is_array()) {
    if (depth >= kMaxListDepth) return corrupt(path, "handle lists nested too deeply");
    for (std::size_t i = 0; i < j.size(); ++i) {
      GLASSBOX_RETURN_IF_ERROR(
          collect_handles(j[i], path + "[" + std::to_string(i) + "]", depth + 1, handles));
    }
    return Status();
  }
  if (!j.is_number_unsigned()) {
    return corrupt(
        path, "expected a debug handle (a non-negative integer) or a list of them, got " + dump(j));
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::uint64_t h, as_count(j, path, kMaxHandle));
  if (h != 0) handles->push_back(DebugHandle(static_cast<std::uint32_t>(h)));
  return Status();
}

// ExecuTorch writes one handle as a bare int and several as a list, in
// graph order; the join wants a sorted set.
StatusOr<std::vector<DebugHandle>> handle_set(const Json& j, const std::string& path) {
  std::vector<DebugHandle> handles;
  GLASSBOX_RETURN_IF_ERROR(collect_handles(j, path, 0, &handles));
  std::sort(handles.begin(), handles.end());
  handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
  return handles;
}

StatusOr<std::optional<aot::DebugHandleMap>> identifier_map(const Json& j,
                                                            const std::string& path) {
  if (j.is_null()) return std::optional<aot::DebugHandleMap>();
  if (!j.is_object()) return corrupt(path, "expected an object of identifier -> handles or null");
  if (j.empty()) return std::optional<aot::DebugHandleMap>();
  const bool int_keys = std::all_of(j.items().begin(), j.items().end(), [](const auto& item) {
    return aot::internal::parse_canonical_key(item.key(), kMaxInt32).has_value();
  });
  aot::DebugHandleMap map;
  for (const auto& [key, value] : j.items()) {
    const std::string at = path + "[\"" + key + "\"]";
    if (key.empty()) return corrupt(at, "empty identifier");
    GLASSBOX_ASSIGN_OR_RETURN(std::vector<DebugHandle> handles, handle_set(value, at));
    if (handles.empty()) continue;  // An identifier with no source op maps nothing.
    aot::DelegateDebugIdentifier id =
        int_keys ? aot::DelegateDebugIdentifier(static_cast<std::int64_t>(
                       *aot::internal::parse_canonical_key(key, kMaxInt32)))
                 : aot::DelegateDebugIdentifier(key);
    map[std::move(id)] = std::move(handles);
  }
  Status valid = aot::validate_debug_handle_map(map);
  if (!valid.ok()) return corrupt(path, valid.message());
  return std::optional<aot::DebugHandleMap>(std::move(map));
}

StatusOr<aot::DelegateMapEntry> delegate_entry(const Json& j, const std::string& path) {
  if (!j.is_object()) return corrupt(path, "expected {\"name\", \"delegate_map\"}");
  auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) {
    return corrupt(child(path, "name"), "expected the backend's name");
  }
  aot::DelegateMapEntry entry{name->get<std::string>(), std::nullopt};
  if (auto map = j.find("delegate_map"); map != j.end()) {
    GLASSBOX_ASSIGN_OR_RETURN(entry.delegate_map,
                              identifier_map(*map, child(path, "delegate_map")));
  }
  return entry;
}

}  // namespace

StatusOr<aot::PerMethod<aot::InstructionDebugHandles>> parse_executorch_debug_handle_map(
    std::string_view text) {
  GLASSBOX_ASSIGN_OR_RETURN(auto maps, per_method<aot::InstructionDebugHandles>(text, &handle_set));
  for (auto& [method, map] : maps) {
    std::erase_if(map, [](const auto& item) { return item.second.empty(); });
  }
  return maps;
}

StatusOr<aot::PerMethod<aot::InstructionDelegateMap>> parse_executorch_delegate_map(
    std::string_view text) {
  return per_method<aot::InstructionDelegateMap>(text, &delegate_entry);
}

}  // namespace glassbox::etrecord::internal

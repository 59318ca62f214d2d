#include "src/etrecord/map_json.h"

#include <limits>

#include "glassbox/etrecord/etrecord_json.h"

namespace glassbox::etrecord {
namespace internal {
namespace {

// A delegate entry holds its debug handle map under ExecuTorch's name.
constexpr std::string_view kEntriesMember = "delegate_map";

StatusOr<aot::DelegateMapEntry> delegate_entry_from(const Json& j, const std::string& path) {
  if (!j.is_object()) return corrupt(path, "expected {\"name\", \"delegate_map\"}");
  auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) {
    return corrupt(child(path, "name"), "expected the backend's name");
  }
  auto map = j.find(kEntriesMember);
  if (map == j.end()) return corrupt(child(path, kEntriesMember), "missing");
  aot::DelegateMapEntry entry{name->get<std::string>(), std::nullopt};
  if (!map->is_null()) {
    GLASSBOX_ASSIGN_OR_RETURN(entry.delegate_map,
                              aot::internal::read_debug_handle_map(j, kEntriesMember, path));
  }
  return entry;
}

template <typename Map>
std::string entry_text(const aot::PerMethod<Map>& maps, Json (*value)(const Map&)) {
  Json root = Json::object();
  for (const auto& [method, map] : maps)
    aot::internal::append_new_member(&root, method, value(map));
  return dump(root);
}

}  // namespace

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Json debug_handles_value(const aot::InstructionDebugHandles& map) {
  Json j = Json::object();
  for (const auto& [id, handles] : map) {
    aot::internal::append_new_member(&j, std::to_string(id.value),
                                     aot::internal::debug_handles_to_json(handles));
  }
  return j;
}

Json delegates_value(const aot::InstructionDelegateMap& map) {
  Json j = Json::object();
  for (const auto& [id, entry] : map) {
    Json e = Json::object();
    e["name"] = entry.backend;
    if (entry.delegate_map) {
      aot::internal::write_debug_handle_map(*entry.delegate_map, kEntriesMember, &e);
    } else {
      e[std::string(kEntriesMember)] = nullptr;
    }
    aot::internal::append_new_member(&j, std::to_string(id.value), std::move(e));
  }
  return j;
}

Json num_outs_value(const aot::InstructionNumOuts& map) {
  Json j = Json::object();
  for (const auto& [id, n] : map) aot::internal::append_new_member(&j, std::to_string(id.value), n);
  return j;
}

std::string debug_handle_map_entry(const aot::PerMethod<aot::InstructionDebugHandles>& maps) {
  return entry_text(maps, &debug_handles_value);
}
std::string delegate_map_entry(const aot::PerMethod<aot::InstructionDelegateMap>& maps) {
  return entry_text(maps, &delegates_value);
}
std::string num_outs_map_entry(const aot::PerMethod<aot::InstructionNumOuts>& maps) {
  return entry_text(maps, &num_outs_value);
}

StatusOr<aot::PerMethod<aot::InstructionDebugHandles>> parse_debug_handle_map_entry(
    std::string_view text) {
  return per_method<aot::InstructionDebugHandles>(text, &aot::internal::debug_handles_from_json);
}

StatusOr<aot::PerMethod<aot::InstructionDelegateMap>> parse_delegate_map_entry(
    std::string_view text) {
  return per_method<aot::InstructionDelegateMap>(text, &delegate_entry_from);
}

StatusOr<aot::PerMethod<aot::InstructionNumOuts>> parse_num_outs_map_entry(std::string_view text) {
  return per_method<aot::InstructionNumOuts>(
      text, [](const Json& j, const std::string& path) -> StatusOr<std::int32_t> {
        GLASSBOX_ASSIGN_OR_RETURN(std::uint64_t n, as_count(j, path, kMaxInt32));
        return static_cast<std::int32_t>(n);
      });
}

std::string tensor_meta_entry(const std::vector<std::int64_t>& sizes) {
  Json j = Json::object();
  j["dtype"] = "FLOAT";
  j["sizes"] = sizes;
  return dump(j);
}

StatusOr<std::vector<std::int64_t>> parse_tensor_meta_entry(std::string_view text) {
  GLASSBOX_ASSIGN_OR_RETURN(Json j, aot::internal::parse_json_bounded<Json>(text, "(document)"));
  if (!j.is_object()) return corrupt("(document)", "not a JSON object");
  auto dtype = j.find("dtype");
  if (dtype == j.end() || *dtype != "FLOAT") {
    return corrupt("dtype", "only \"FLOAT\" reference tensors are supported");
  }
  auto sizes = j.find("sizes");
  if (sizes == j.end() || !sizes->is_array()) return corrupt("sizes", "expected a list");
  constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 40;
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < sizes->size(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(std::uint64_t s,
                              as_count((*sizes)[i], "sizes[" + std::to_string(i) + "]", kMaxDim));
    out.push_back(static_cast<std::int64_t>(s));
  }
  return out;
}

}  // namespace internal

std::string instruction_debug_handles_to_json(const aot::InstructionDebugHandles& map) {
  return internal::dump(internal::debug_handles_value(map));
}
std::string delegate_map_to_json(const aot::InstructionDelegateMap& map) {
  return internal::dump(internal::delegates_value(map));
}
std::string num_outs_map_to_json(const aot::InstructionNumOuts& map) {
  return internal::dump(internal::num_outs_value(map));
}

}  // namespace glassbox::etrecord

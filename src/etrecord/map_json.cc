#include "src/etrecord/map_json.h"

#include <limits>

#include "glassbox/etrecord/etrecord_json.h"

namespace glassbox::etrecord {
namespace internal {
namespace {

constexpr std::uint64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();

Status corrupt(const std::string& path, const std::string& problem) {
  return Status(Error::kCorruptData, path + ": " + problem);
}

std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

StatusOr<Json> parse(std::string_view text) {
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return corrupt("(document)", "not valid JSON");
  if (!j.is_object()) return corrupt("(document)", "expected an object keyed by method name");
  return j;
}

// A non-negative JSON integer no larger than `max`.
StatusOr<std::uint64_t> as_count(const Json& j, const std::string& path, std::uint64_t max) {
  if (!j.is_number_unsigned()) {
    return corrupt(path, "expected a non-negative integer, got " + dump(j));
  }
  const auto v = j.get<std::uint64_t>();
  if (v > max) return corrupt(path, std::to_string(v) + " is out of range");
  return v;
}

// A key written by std::to_string of a value in [0, max]: digits only, no
// sign, no leading zero, so each number has exactly one spelling.
StatusOr<std::uint64_t> key_as_int(const std::string& key, const std::string& path,
                                   std::uint64_t max) {
  const bool canonical = !key.empty() && key.size() <= 10 &&
                         key.find_first_not_of("0123456789") == std::string::npos &&
                         (key == "0" || key[0] != '0');
  if (!canonical || std::stoull(key) > max) {
    return corrupt(path, "key \"" + key + "\" is not an integer in [0, " +
                             std::to_string(max) + "]");
  }
  return std::stoull(key);
}

StatusOr<std::vector<DebugHandle>> handles_from(const Json& j, const std::string& path) {
  if (!j.is_array() || j.empty()) return corrupt(path, "expected a non-empty list of debug handles");
  std::vector<DebugHandle> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    GLASSBOX_ASSIGN_OR_RETURN(std::uint64_t h,
                              as_count(j[i], at, std::numeric_limits<std::uint32_t>::max()));
    if (h == 0) return corrupt(at, "debug handle 0 means none and cannot be mapped");
    if (!out.empty() && out.back().value >= h) {
      return corrupt(path, "debug handles must be sorted and unique");
    }
    out.emplace_back(static_cast<std::uint32_t>(h));
  }
  return out;
}

Json handles_value(const std::vector<DebugHandle>& handles) {
  Json list = Json::array();
  for (DebugHandle h : handles) list.push_back(h.value);
  return list;
}

// Walks {"<method>": {"<instr>": value}} calling `read(value, path)`.
template <typename Map, typename Read>
StatusOr<aot::PerMethod<Map>> per_method(std::string_view text, Read read) {
  GLASSBOX_ASSIGN_OR_RETURN(Json root, parse(text));
  aot::PerMethod<Map> out;
  for (const auto& [method, by_instruction] : root.items()) {
    if (method.empty()) return corrupt("(document)", "empty method name");
    if (!by_instruction.is_object()) {
      return corrupt(method, "expected an object keyed by instruction id");
    }
    Map& map = out[method];
    for (const auto& [key, value] : by_instruction.items()) {
      const std::string path = child(method, key);
      GLASSBOX_ASSIGN_OR_RETURN(std::uint64_t instr, key_as_int(key, path, kMaxInt32));
      GLASSBOX_ASSIGN_OR_RETURN(typename Map::mapped_type parsed, read(value, path));
      map[InstructionId(static_cast<std::int32_t>(instr))] = std::move(parsed);
    }
  }
  return out;
}

StatusOr<aot::DebugHandleMap> delegate_debug_map_from(const Json& j, const Json* key_type,
                                                      const std::string& path) {
  if (key_type == nullptr || !key_type->is_string() ||
      (*key_type != "int" && *key_type != "string")) {
    return corrupt(child(path, "key_type"), "expected \"int\" or \"string\"");
  }
  if (!j.is_object()) return corrupt(child(path, "delegate_map"), "expected an object or null");
  const bool int_keys = *key_type == "int";
  aot::DebugHandleMap map;
  for (const auto& [key, value] : j.items()) {
    const std::string at = child(child(path, "delegate_map"), "\"" + key + "\"");
    aot::DelegateDebugIdentifier id = key;
    if (int_keys) {
      GLASSBOX_ASSIGN_OR_RETURN(std::uint64_t n, key_as_int(key, at, kMaxInt32));
      id = static_cast<std::int64_t>(n);
    }
    GLASSBOX_ASSIGN_OR_RETURN(map[id], handles_from(value, at));
  }
  Status valid = aot::validate_debug_handle_map(map);
  if (!valid.ok()) return corrupt(child(path, "delegate_map"), valid.message());
  return map;
}

StatusOr<aot::DelegateMapEntry> delegate_entry_from(const Json& j, const std::string& path) {
  if (!j.is_object()) return corrupt(path, "expected {\"name\", \"delegate_map\"}");
  auto name = j.find("name");
  if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) {
    return corrupt(child(path, "name"), "expected the backend's name");
  }
  auto map = j.find("delegate_map");
  if (map == j.end()) return corrupt(child(path, "delegate_map"), "missing");
  aot::DelegateMapEntry entry{name->get<std::string>(), std::nullopt};
  if (!map->is_null()) {
    auto key_type = j.find("key_type");
    GLASSBOX_ASSIGN_OR_RETURN(
        entry.delegate_map,
        delegate_debug_map_from(*map, key_type == j.end() ? nullptr : &*key_type, path));
  }
  return entry;
}

template <typename Map>
std::string entry_text(const aot::PerMethod<Map>& maps, Json (*value)(const Map&)) {
  Json root = Json::object();
  for (const auto& [method, map] : maps) root[method] = value(map);
  return dump(root);
}

}  // namespace

std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Json debug_handles_value(const aot::InstructionDebugHandles& map) {
  Json j = Json::object();
  for (const auto& [id, handles] : map) j[std::to_string(id.value)] = handles_value(handles);
  return j;
}

Json delegates_value(const aot::InstructionDelegateMap& map) {
  Json j = Json::object();
  for (const auto& [id, entry] : map) {
    Json e = Json::object();
    e["name"] = entry.backend;
    if (entry.delegate_map) {
      e["key_type"] = std::string(aot::to_string(aot::key_kind(*entry.delegate_map)));
      Json m = Json::object();
      for (const auto& [key, handles] : *entry.delegate_map) {
        const std::string name = std::holds_alternative<std::int64_t>(key)
                                     ? std::to_string(std::get<std::int64_t>(key))
                                     : std::get<std::string>(key);
        m[name] = handles_value(handles);
      }
      e["delegate_map"] = std::move(m);
    } else {
      e["delegate_map"] = nullptr;
    }
    j[std::to_string(id.value)] = std::move(e);
  }
  return j;
}

Json num_outs_value(const aot::InstructionNumOuts& map) {
  Json j = Json::object();
  for (const auto& [id, n] : map) j[std::to_string(id.value)] = n;
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
  return per_method<aot::InstructionDebugHandles>(text, &handles_from);
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
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return corrupt("(document)", "not a JSON object");
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

std::string debug_handle_map_to_json(const aot::InstructionDebugHandles& map) {
  return internal::dump(internal::debug_handles_value(map));
}
std::string delegate_map_to_json(const aot::InstructionDelegateMap& map) {
  return internal::dump(internal::delegates_value(map));
}
std::string num_outs_map_to_json(const aot::InstructionNumOuts& map) {
  return internal::dump(internal::num_outs_value(map));
}

}  // namespace glassbox::etrecord

#include "glassbox/aot/internal/debug_handle_map_json.h"

#include <limits>

namespace glassbox::aot::internal {
namespace {

constexpr std::uint64_t kMaxIntIdentifier = std::numeric_limits<std::int32_t>::max();

Status corrupt(const std::string& path, const std::string& problem) {
  return Status(Error::kCorruptData, path + ": " + problem);
}

std::string child(const std::string& path, std::string_view member) {
  return path.empty() ? std::string(member) : path + "." + std::string(member);
}

Json to_ordered(nlohmann::json& j) {
  if (j.is_object()) {
    Json out = Json::object();
    out.get_ref<Json::object_t&>().reserve(j.size());
    for (auto& [key, value] : j.get_ref<nlohmann::json::object_t&>()) {
      append_new_member(&out, key, to_ordered(value));
    }
    return out;
  }
  if (j.is_array()) {
    Json out = Json::array();
    out.get_ref<Json::array_t&>().reserve(j.size());
    for (nlohmann::json& value : j) out.push_back(to_ordered(value));
    return out;
  }
  return Json(std::move(j));
}

}  // namespace

void append_new_member(Json* object, std::string key, Json value) {
  Json::object_t& members = object->get_ref<Json::object_t&>();
  members.Json::object_t::Container::emplace_back(std::move(key), std::move(value));
}

Status check_json_depth(std::string_view text, const std::string& what) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // The escaped character, a quote or a backslash, ends nothing.
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        return corrupt(what,
                       "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return Status();
}

StatusOr<Json> parse_json_fast(std::string_view text, const std::string& what) {
  GLASSBOX_ASSIGN_OR_RETURN(nlohmann::json parsed, parse_json_bounded<nlohmann::json>(text, what));
  return to_ordered(parsed);
}

Json debug_handles_to_json(const std::vector<DebugHandle>& handles) {
  Json list = Json::array();
  for (DebugHandle h : handles) list.push_back(h.value);
  return list;
}

StatusOr<std::vector<DebugHandle>> debug_handles_from_json(const Json& list,
                                                           const std::string& path) {
  if (!list.is_array() || list.empty()) {
    return corrupt(path, "expected a non-empty list of debug handles");
  }
  std::vector<DebugHandle> handles;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = path + "[" + std::to_string(i) + "]";
    const Json& h = list[i];
    if (!h.is_number_integer()) {
      return corrupt(at, std::string("expected an integer, got ") + h.type_name());
    }
    if (!h.is_number_unsigned() ||
        h.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
      return corrupt(at, "debug handle out of range");
    }
    const auto value = h.get<std::uint32_t>();
    if (value == 0) return corrupt(at, "debug handle 0 means none and cannot be mapped");
    if (!handles.empty() && handles.back().value >= value) {
      return corrupt(path, "debug handles not sorted and unique");
    }
    handles.emplace_back(value);
  }
  return handles;
}

std::optional<std::uint64_t> parse_canonical_key(std::string_view key, std::uint64_t max) {
  // 20 digits overflow uint64; every max we use has fewer.
  if (key.empty() || key.size() > 19 || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > max) return std::nullopt;
  return value;
}

void write_debug_handle_map(const DebugHandleMap& map, std::string_view entries_member,
                            Json* object) {
  Json entries = Json::object();
  for (const auto& [id, handles] : map) {
    const std::string key = std::holds_alternative<std::int64_t>(id)
                                ? std::to_string(std::get<std::int64_t>(id))
                                : std::get<std::string>(id);
    append_new_member(&entries, key, debug_handles_to_json(handles));
  }
  (*object)["key_type"] = std::string(to_string(key_kind(map)));
  (*object)[std::string(entries_member)] = std::move(entries);
}

StatusOr<DebugHandleMap> read_debug_handle_map(const Json& object, std::string_view entries_member,
                                               const std::string& path) {
  if (!object.is_object()) return corrupt(path, "expected an object");
  const std::string key_type_path = child(path, "key_type");
  auto key_type = object.find("key_type");
  if (key_type == object.end()) return corrupt(key_type_path, "missing");
  if (!key_type->is_string() || (*key_type != "int" && *key_type != "string")) {
    const std::string got =
        key_type->is_string() ? "\"" + key_type->get<std::string>() + "\"" : key_type->type_name();
    return corrupt(key_type_path, "expected \"int\" or \"string\", got " + got);
  }
  const bool int_keys = *key_type == "int";
  const std::string entries_path = child(path, entries_member);
  auto entries = object.find(std::string(entries_member));
  if (entries == object.end()) return corrupt(entries_path, "missing");
  if (!entries->is_object()) return corrupt(entries_path, "expected an object");
  DebugHandleMap map;
  for (const auto& [key, list] : entries->items()) {
    const std::string at = entries_path + "[\"" + key + "\"]";
    DelegateDebugIdentifier id = key;
    if (int_keys) {
      const std::optional<std::uint64_t> value = parse_canonical_key(key, kMaxIntIdentifier);
      if (!value.has_value()) {
        return corrupt(at, "key is not a canonical decimal int in [0, " +
                               std::to_string(kMaxIntIdentifier) + "]");
      }
      id = static_cast<std::int64_t>(*value);
    }
    GLASSBOX_ASSIGN_OR_RETURN(map[id], debug_handles_from_json(list, at));
  }
  Status valid = validate_debug_handle_map(map);
  if (!valid.ok()) return corrupt(entries_path, valid.message());
  return map;
}

Json debug_handle_map_to_json_value(const DebugHandleMap& map) {
  Json j = Json::object();
  write_debug_handle_map(map, kStandaloneEntries, &j);
  return j;
}

StatusOr<DebugHandleMap> debug_handle_map_from_json_value(const Json& j, const std::string& path) {
  return read_debug_handle_map(j, kStandaloneEntries, path);
}

}  // namespace glassbox::aot::internal

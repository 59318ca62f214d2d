#include "json_util.h"

#include <limits>

namespace glassbox::aot::internal {

std::string to_hex(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (std::uint8_t byte : bytes) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0xF]);
  }
  return hex;
}

StatusOr<std::vector<std::uint8_t>> from_hex(std::string_view hex, const std::string& path) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return corrupt(path, "hex string of odd length");
  std::vector<std::uint8_t> bytes(hex.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    int high = nibble(hex[2 * i]);
    int low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      return corrupt(path, "not a hex digit at offset " + std::to_string(high < 0 ? 2 * i : 2 * i + 1));
    }
    bytes[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return bytes;
}

StatusOr<Json> parse_json(std::string_view text, const std::string& what) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return Status(Error::kCorruptData, what + ": malformed JSON: " + e.what());
  }
}

StatusOr<const Json*> field(const Json& object, const char* key, const std::string& path) {
  if (!object.is_object()) return corrupt(path, "expected an object");
  auto it = object.find(key);
  if (it == object.end()) {
    return corrupt(path.empty() ? key : path + "." + key, "missing");
  }
  return &*it;
}

StatusOr<std::int64_t> as_int(const Json& j, const std::string& path) {
  if (j.is_number_unsigned()) {
    auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return corrupt(path, "integer out of range");
    }
    return static_cast<std::int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<std::int64_t>();
  return corrupt(path, std::string("expected an integer, got ") + j.type_name());
}

StatusOr<std::string> as_string(const Json& j, const std::string& path) {
  if (!j.is_string()) return corrupt(path, std::string("expected a string, got ") + j.type_name());
  return j.get<std::string>();
}

Json debug_handle_map_to_json_value(const DebugHandleMap& map) {
  Json entries = Json::object();
  for (const auto& [id, handles] : map) {
    Json list = Json::array();
    for (DebugHandle h : handles) list.push_back(h.value);
    std::string key = std::holds_alternative<std::int64_t>(id)
                          ? std::to_string(std::get<std::int64_t>(id))
                          : std::get<std::string>(id);
    entries[key] = std::move(list);
  }
  Json j = Json::object();
  j["key_type"] = std::string(to_string(key_kind(map)));
  j["entries"] = std::move(entries);
  return j;
}

namespace {

// Canonical decimal only ("7", not "07" or "+7"), so each int key has one
// spelling and a string key never passes for an int.
bool parse_canonical_int(const std::string& text, std::int64_t* out) {
  if (text.empty() || text.size() > 18) return false;
  if (text.size() > 1 && text[0] == '0') return false;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

}  // namespace

StatusOr<DebugHandleMap> debug_handle_map_from_json_value(const Json& j, const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(const Json* key_type_json, field(j, "key_type", path));
  GLASSBOX_ASSIGN_OR_RETURN(std::string key_type, as_string(*key_type_json, path + ".key_type"));
  if (key_type != "int" && key_type != "string") {
    return corrupt(path + ".key_type", "expected \"int\" or \"string\", got \"" + key_type + "\"");
  }
  GLASSBOX_ASSIGN_OR_RETURN(const Json* entries, field(j, "entries", path));
  if (!entries->is_object()) return corrupt(path + ".entries", "expected an object");
  DebugHandleMap map;
  for (const auto& [key, list] : entries->items()) {
    const std::string entry_path = path + ".entries[\"" + key + "\"]";
    DelegateDebugIdentifier id = key;
    if (key_type == "int") {
      std::int64_t value = 0;
      if (!parse_canonical_int(key, &value)) return corrupt(entry_path, "key is not a canonical decimal int");
      id = value;
    }
    if (!list.is_array()) return corrupt(entry_path, "expected an array of debug handles");
    std::vector<DebugHandle> handles;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string handle_path = entry_path + "[" + std::to_string(i) + "]";
      GLASSBOX_ASSIGN_OR_RETURN(std::int64_t h, as_int(list[i], handle_path));
      if (h < 0 || h > std::numeric_limits<std::uint32_t>::max()) {
        return corrupt(handle_path, "debug handle out of range");
      }
      handles.push_back(DebugHandle(static_cast<std::uint32_t>(h)));
    }
    map.emplace(std::move(id), std::move(handles));
  }
  Status valid = validate_debug_handle_map(map);
  if (!valid.ok()) return corrupt(path, valid.message());
  return map;
}

}  // namespace glassbox::aot::internal

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
      return corrupt(path,
                     "not a hex digit at offset " + std::to_string(high < 0 ? 2 * i : 2 * i + 1));
    }
    bytes[i] = static_cast<std::uint8_t>(high * 16 + low);
  }
  return bytes;
}

StatusOr<Json> parse_json(std::string_view text, const std::string& what) {
  GLASSBOX_RETURN_IF_ERROR(check_json_depth(text, what));
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

}  // namespace glassbox::aot::internal

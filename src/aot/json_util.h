#pragma once
// Private helpers shared by the JSON readers and writers of the aot layer.
// nlohmann's exceptions never leave these files' callers: readers check
// types before every access and catch parse errors at the top.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/core/status.h"

namespace glassbox::aot::internal {

// ordered_json keeps keys in insertion order, so the writer decides the
// order (version first, then values, ...) and output is stable.
using Json = nlohmann::ordered_json;

inline Status corrupt(const std::string& path, const std::string& problem) {
  return Status(Error::kCorruptData, path + ": " + problem);
}

// Lower-case hex, two digits per byte: byte blobs stay readable and exact.
std::string to_hex(const std::vector<std::uint8_t>& bytes);
StatusOr<std::vector<std::uint8_t>> from_hex(std::string_view hex, const std::string& path);

// Parses `text`, turning nlohmann's parse error into a Status.
StatusOr<Json> parse_json(std::string_view text, const std::string& what);

// Field access with a path for messages ("nodes[2].op: missing").
StatusOr<const Json*> field(const Json& object, const char* key, const std::string& path);
StatusOr<std::int64_t> as_int(const Json& j, const std::string& path);
StatusOr<std::string> as_string(const Json& j, const std::string& path);

// The debug handle map inside a larger document; `map` must be valid.
Json debug_handle_map_to_json_value(const DebugHandleMap& map);
StatusOr<DebugHandleMap> debug_handle_map_from_json_value(const Json& j, const std::string& path);

}  // namespace glassbox::aot::internal

#pragma once
// Private helpers shared by the JSON readers and writers of the aot layer.
// nlohmann's exceptions never leave these files' callers: readers check
// types before every access and catch parse errors at the top.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/internal/debug_handle_map_json.h"
#include "glassbox/core/status.h"

namespace glassbox::aot::internal {

// Json (nlohmann::ordered_json) and the debug handle map's codec come from
// debug_handle_map_json.h.

inline Status corrupt(const std::string& path, const std::string& problem) {
  return Status(Error::kCorruptData, path + ": " + problem);
}

// Lower-case hex, two digits per byte: byte blobs stay readable and exact.
std::string to_hex(const std::vector<std::uint8_t>& bytes);
StatusOr<std::vector<std::uint8_t>> from_hex(std::string_view hex, const std::string& path);

// Parses `text` (no deeper than kMaxJsonDepth), turning nlohmann's parse error
// into a Status.
StatusOr<Json> parse_json(std::string_view text, const std::string& what);

// Field access with a path for messages ("nodes[2].op: missing").
StatusOr<const Json*> field(const Json& object, const char* key, const std::string& path);
StatusOr<std::int64_t> as_int(const Json& j, const std::string& path);
StatusOr<std::string> as_string(const Json& j, const std::string& path);

}  // namespace glassbox::aot::internal

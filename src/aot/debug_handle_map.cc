#include "glassbox/aot/debug_handle_map.h"

#include <algorithm>
#include <limits>

#include "json_util.h"

namespace glassbox::aot {

std::string_view to_string(IdentifierKind kind) {
  switch (kind) {
    case IdentifierKind::kInt: return "int";
    case IdentifierKind::kString: return "string";
  }
  return "";
}

std::string describe(const DelegateDebugIdentifier& id) {
  if (const auto* i = std::get_if<std::int64_t>(&id)) return std::to_string(*i);
  return "\"" + std::get<std::string>(id) + "\"";
}

IdentifierKind key_kind(const DebugHandleMap& map) {
  return map.empty() ? IdentifierKind::kInt : kind_of(map.begin()->first);
}

Status validate_debug_handle_map(const DebugHandleMap& map) {
  auto invalid = [](const DelegateDebugIdentifier& id, const std::string& problem) {
    return Status(Error::kInvalidArgument,
                  "debug handle map entry " + describe(id) + ": " + problem);
  };
  const IdentifierKind kind = key_kind(map);
  for (const auto& [id, handles] : map) {
    if (kind_of(id) != kind) {
      return invalid(id, "mixes " + std::string(to_string(kind_of(id))) + " and " +
                             std::string(to_string(kind)) + " identifiers in one map");
    }
    if (const auto* i = std::get_if<std::int64_t>(&id)) {
      if (*i < 0 || *i > std::numeric_limits<std::int32_t>::max()) {
        return invalid(id, "int identifier outside [0, INT32_MAX]");
      }
    } else if (std::get<std::string>(id).empty()) {
      return invalid(id, "empty string identifier");
    }
    if (handles.empty()) return invalid(id, "no debug handles");
    for (std::size_t i = 0; i < handles.size(); ++i) {
      if (!handles[i].is_set()) return invalid(id, "debug handle 0 (unset)");
      if (i > 0 && handles[i - 1] >= handles[i]) {
        return invalid(id, "debug handles not sorted and unique");
      }
    }
  }
  return Status();
}

StatusOr<std::string> debug_handle_map_to_json(const DebugHandleMap& map) {
  GLASSBOX_RETURN_IF_ERROR(validate_debug_handle_map(map));
  return internal::debug_handle_map_to_json_value(map).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<DebugHandleMap> debug_handle_map_from_json(std::string_view json) {
  GLASSBOX_ASSIGN_OR_RETURN(internal::Json j, internal::parse_json(json, "debug handle map"));
  return internal::debug_handle_map_from_json_value(j, "debug_handle_map");
}

}  // namespace glassbox::aot

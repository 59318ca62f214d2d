#pragma once
// The one JSON codec of a DebugHandleMap, shared by the aot layer (a
// standalone map, a delegate call in graph JSON) and the ETRecord
// (delegate_map.json). Not part of the public API; in include/ only because
// two layers use it. Readers never throw: every access is type-checked.
//
// The shape: two members of an enclosing object,
//
//   "key_type": "int" | "string",
//   "<entries>": {"<identifier>": [handle, ...], ...}
//
// where "<entries>" is "entries" for a standalone map and in graph JSON,
// and "delegate_map" in an ETRecord (ExecuTorch's name for the same object,
// beside the backend's "name"). JSON keys are strings, so "key_type" says
// how to read them: "int" keys are canonical decimal (no sign, no leading
// zero) in [0, INT32_MAX]. Handle lists are non-empty, sorted, unique and
// never 0.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"

namespace glassbox::aot::internal {

// ordered_json keeps keys in insertion order, so the writer decides the
// order and output is stable.
using Json = nlohmann::ordered_json;

/// Appends `key`: `value` to `object` (an object) without looking `key` up:
/// the caller guarantees it is new (keys from a std::map). ordered_json's
/// own insertion searches the members linearly, which made writing a map of
/// 100,000 instructions quadratic.
void append_new_member(Json* object, std::string key, Json value);

/// The deepest nesting of arrays and objects a JSON reader accepts. Every
/// JSON document read from a file (ETRecord entries, ours and ExecuTorch's;
/// graph and debug handle map JSON; tag sidecars) passes check_json_depth
/// before it is parsed, most through parse_json_bounded (aot's parse_json
/// and the sidecar reader call it themselves, to keep their own messages for
/// malformed JSON): nlohmann parses deep documents, but copying, dumping
/// and walking them recurses once per level, and 100,000 levels overflow the
/// stack. No document we read nests more than a dozen levels.
inline constexpr int kMaxJsonDepth = 256;

/// Errors (kCorruptData "<what>: JSON nested deeper than 256 levels") when
/// `text` opens more than kMaxJsonDepth arrays or objects inside each other.
/// A linear scan that needs no valid JSON: the parser judges the rest.
Status check_json_depth(std::string_view text, const std::string& what);

/// `text` parsed into `JsonType` (nlohmann::json or ordered_json) without
/// exceptions, once check_json_depth has passed. Errors (kCorruptData):
/// "<what>: JSON nested deeper than 256 levels", "<what>: not valid JSON".
template <typename JsonType>
StatusOr<JsonType> parse_json_bounded(std::string_view text, const std::string& what) {
  GLASSBOX_RETURN_IF_ERROR(check_json_depth(text, what));
  JsonType parsed = JsonType::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status(Error::kCorruptData, what + ": not valid JSON");
  return parsed;
}

/// Parses `text` in time linear in its size. Parsing straight into
/// ordered_json searches each object's members on every insertion
/// (quadratic in a map of 100,000 instructions), so this parses into
/// nlohmann::json (std::map members) and moves the members over with
/// append_new_member: objects come out in key order, not document order.
/// Errors: those of parse_json_bounded.
StatusOr<Json> parse_json_fast(std::string_view text, const std::string& what);

/// Writes `map` (must be valid) into `object` as "key_type" and
/// `entries_member`, in the shape above. `object` must not be null.
void write_debug_handle_map(const DebugHandleMap& map, std::string_view entries_member,
                            Json* object);

/// Reads the map written by write_debug_handle_map from `object` and
/// validates it. Errors are kCorruptData and start with the path of the
/// offending member below `path` ("forward.0.delegate_map[\"x\"][1]: ...").
StatusOr<DebugHandleMap> read_debug_handle_map(const Json& object, std::string_view entries_member,
                                               const std::string& path);

/// The member name of the entries in the standalone form.
inline constexpr std::string_view kStandaloneEntries = "entries";

/// The standalone form, {"key_type": ..., "entries": {...}}, as written by
/// aot::debug_handle_map_to_json and in graph JSON (a delegate call's map).
Json debug_handle_map_to_json_value(const DebugHandleMap& map);
StatusOr<DebugHandleMap> debug_handle_map_from_json_value(const Json& j, const std::string& path);

/// A list of debug handles: [1, 2, ...].
Json debug_handles_to_json(const std::vector<DebugHandle>& handles);

/// Reads a non-empty, sorted, duplicate-free list of set debug handles.
/// Errors are kCorruptData starting with `path`.
StatusOr<std::vector<DebugHandle>> debug_handles_from_json(const Json& list,
                                                           const std::string& path);

/// `key` as a number when it is canonical decimal (digits only, no sign, no
/// leading zero, so each number has one spelling) and at most `max`.
std::optional<std::uint64_t> parse_canonical_key(std::string_view key, std::uint64_t max);

}  // namespace glassbox::aot::internal

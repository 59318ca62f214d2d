#pragma once
/// @file
/// `DebugHandleMap`: what a delegate returns from `preprocess` to say which
/// source operators each of its points of interest came from. Keys are
/// delegate debug identifiers (an int, or a string, never both in one map);
/// values are the sorted, duplicate-free debug handles of the source
/// operators, e.g. `{0: [10, 11], 1: [11, 12]}` or
/// `{"Fancy Fusion": [11, 12, 15]}`.
///
/// JSON form (ExecuTorch's shape, JSON keys are always strings, plus the key
/// type made explicit so a reader never has to guess whether "0" was an int):
///
///   {"key_type": "int",    "entries": {"0": [10, 11], "1": [11, 12]}}
///   {"key_type": "string", "entries": {"Fancy Fusion": [11, 12, 15]}}
///
/// Int keys are written in canonical decimal and ordered numerically; an
/// empty map is written with key_type "int". The one codec of this shape is
/// aot/internal/debug_handle_map_json.h: the ETRecord's delegate_map.json
/// uses it too, with the entries under "delegate_map" (ExecuTorch's name).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// A delegate debug identifier: an int (manual or generated) or a string.
/// Int identifiers are logged at run time as `DelegateDebugIntId` (int32,
/// -1 = unset), so they must lie in [0, INT32_MAX].
using DelegateDebugIdentifier = std::variant<std::int64_t, std::string>;

/// identifier -> sorted unique debug handles. std::map keeps the keys sorted,
/// so iteration and serialisation are deterministic.
using DebugHandleMap = std::map<DelegateDebugIdentifier, std::vector<DebugHandle>>;

enum class IdentifierKind : std::uint8_t { kInt, kString };

/// "int" or "string".
std::string_view to_string(IdentifierKind kind);

/// The kind of one identifier.
inline IdentifierKind kind_of(const DelegateDebugIdentifier& id) {
  return std::holds_alternative<std::int64_t>(id) ? IdentifierKind::kInt : IdentifierKind::kString;
}

/// For messages: `7` for an int, `"tan.sin"` (quoted) for a string.
std::string describe(const DelegateDebugIdentifier& id);

/// Checks the invariants every map must hold: one key type, int keys in
/// [0, INT32_MAX], non-empty string keys, each entry a non-empty, sorted,
/// duplicate-free list of set (non-zero) handles. Errors are kInvalidArgument.
Status validate_debug_handle_map(const DebugHandleMap& map);

/// The key type of a valid map (kInt for an empty one).
IdentifierKind key_kind(const DebugHandleMap& map);

/// Serialises `map` (validated first) in the JSON form described above.
StatusOr<std::string> debug_handle_map_to_json(const DebugHandleMap& map);

/// Parses the JSON form described above and validates the result. Entries
/// with unsorted or repeated handles are rejected, not repaired.
StatusOr<DebugHandleMap> debug_handle_map_from_json(std::string_view json);

}  // namespace glassbox::aot

#pragma once
// The three map entries of the archive: writers and strict readers. Readers
// never throw: nlohmann is used in its non-throwing parse mode and every
// access is type-checked first. Errors are kCorruptData with a path inside
// the document ("forward.3.delegate_map.\"x\": ...").

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/emitter.h"
#include "glassbox/aot/internal/debug_handle_map_json.h"
#include "glassbox/core/status.h"

namespace glassbox::etrecord::internal {

using aot::internal::Json;

// Value of one method (the object under the method name).
Json debug_handles_value(const aot::InstructionDebugHandles& map);
Json delegates_value(const aot::InstructionDelegateMap& map);
Json num_outs_value(const aot::InstructionNumOuts& map);

// Whole entries: {"<method>": <value>}.
std::string debug_handle_map_entry(const aot::PerMethod<aot::InstructionDebugHandles>& maps);
std::string delegate_map_entry(const aot::PerMethod<aot::InstructionDelegateMap>& maps);
std::string num_outs_map_entry(const aot::PerMethod<aot::InstructionNumOuts>& maps);

StatusOr<aot::PerMethod<aot::InstructionDebugHandles>> parse_debug_handle_map_entry(
    std::string_view text);
StatusOr<aot::PerMethod<aot::InstructionDelegateMap>> parse_delegate_map_entry(
    std::string_view text);
StatusOr<aot::PerMethod<aot::InstructionNumOuts>> parse_num_outs_map_entry(std::string_view text);

// A reference tensor's .json companion: {"dtype": "FLOAT", "sizes": [...]}.
std::string tensor_meta_entry(const std::vector<std::int64_t>& sizes);
StatusOr<std::vector<std::int64_t>> parse_tensor_meta_entry(std::string_view text);

// One-line text of `j`; bad UTF-8 in names is replaced, never thrown on.
std::string dump(const Json& j);

// The readers' building blocks, shared with ExecuTorch's maps
// (executorch_maps.cc): errors as "<path>: <problem>", typed accessors and
// the walk over {"<method>": {"<instr>": value}}.
inline constexpr std::uint64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
inline Status corrupt(const std::string& path, const std::string& problem) {
  return Status(Error::kCorruptData, path + ": " + problem);
}

inline std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

inline StatusOr<Json> parse(std::string_view text) {
  GLASSBOX_ASSIGN_OR_RETURN(Json j, aot::internal::parse_json_fast(text, "(document)"));
  if (!j.is_object()) return corrupt("(document)", "expected an object keyed by method name");
  return j;
}

// A non-negative JSON integer no larger than `max`.
inline StatusOr<std::uint64_t> as_count(const Json& j, const std::string& path, std::uint64_t max) {
  if (!j.is_number_unsigned()) {
    return corrupt(path, "expected a non-negative integer, got " + dump(j));
  }
  const auto v = j.get<std::uint64_t>();
  if (v > max) return corrupt(path, std::to_string(v) + " is out of range");
  return v;
}

// An instruction id key: canonical decimal in [0, max].
inline StatusOr<std::uint64_t> key_as_int(const std::string& key, const std::string& path,
                                          std::uint64_t max) {
  const std::optional<std::uint64_t> value = aot::internal::parse_canonical_key(key, max);
  if (!value.has_value()) {
    return corrupt(path,
                   "key \"" + key + "\" is not an integer in [0, " + std::to_string(max) + "]");
  }
  return *value;
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

}  // namespace glassbox::etrecord::internal

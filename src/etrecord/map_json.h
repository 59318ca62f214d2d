#pragma once
// The three map entries of the archive: writers and strict readers. Readers
// never throw: nlohmann is used in its non-throwing parse mode and every
// access is type-checked first. Errors are kCorruptData with a path inside
// the document ("forward.3.delegate_map.\"x\": ...").

#include <nlohmann/json.hpp>
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

}  // namespace glassbox::etrecord::internal

#pragma once
// Two map entries of ExecuTorch's ETRecord (debug_handle_map and
// delegate_map): JSON written by Python's
// json.dumps, so every key is a string and nothing says whether a delegate
// identifier was an int or a string. Readers never throw; errors are
// kCorruptData with a path inside the document ("forward.1.delegate_map").

#include <string_view>

#include "glassbox/aot/emitter.h"
#include "glassbox/core/status.h"

namespace glassbox::etrecord::internal {

// {"<method>": {"<instr>": handle or [handles, ...]}}. Lists may nest (they
// are flattened); handles are sorted and de-duplicated, 0 (ExecuTorch's
// "no handle") is dropped, and an instruction left with none is omitted.
StatusOr<aot::PerMethod<aot::InstructionDebugHandles>> parse_executorch_debug_handle_map(
    std::string_view text);

// {"<method>": {"<instr>": {"name": "<backend>", "delegate_map":
// {"<identifier>": [handles]} or null}}}. A map whose keys are all canonical
// decimal ints in [0, INT32_MAX] is read as int identifiers, any other as
// string identifiers (ExecuTorch's DelegateMappingBuilder never mixes them).
// An empty or null map means the backend returned none.
StatusOr<aot::PerMethod<aot::InstructionDelegateMap>> parse_executorch_delegate_map(
    std::string_view text);

// instruction_id_to_num_outs_map has our shape exactly:
// parse_num_outs_map_entry (map_json.h) reads it.

}  // namespace glassbox::etrecord::internal

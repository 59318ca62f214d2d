#pragma once
/// @file
/// JSON text of one method's ETRecord maps, in the shapes the archive
/// stores under the method name (etrecord.h), for tools that print them:
///
///   debug_handle_map:               {"0": [1, 2], "1": [3]}
///   delegate_map:                   {"0": {"name": "DemoBackend", "key_type": "int",
///                                          "delegate_map": {"0": [1, 2]}}}
///   instruction_id_to_num_outs_map: {"0": 1, "1": 1}
///
/// Keys appear in numeric order; output is one line, deterministic.
/// etrecord_to_json writes a whole record with them, indented.

#include <string>

#include "glassbox/aot/emitter.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::etrecord {

/// Instruction id -> the debug handles of the operators it runs (the
/// archive's debug_handle_map). Not aot::debug_handle_map_to_json, which
/// writes one delegate's identifier -> handles map.
std::string instruction_debug_handles_to_json(const aot::InstructionDebugHandles& map);
/// Delegate instruction id -> backend name and its debug handle map, in the
/// shape of aot/internal/debug_handle_map_json.h under "delegate_map".
std::string delegate_map_to_json(const aot::InstructionDelegateMap& map);
/// Instruction id -> number of outputs.
std::string num_outs_map_to_json(const aot::InstructionNumOuts& map);

/// The whole record as `glassbox etrecord show --format json` prints it,
/// indented by 2: {"version", "source", "fingerprint" (null for
/// ExecuTorch's), "methods": {"<method>": {"graph": {"nodes": [...]},
/// "debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map"}},
/// "reference_inputs", "reference_outputs" (counts), "notes"}. Time linear
/// in the record's size (200,000 delegate identifiers: a fraction of a
/// second); bad UTF-8 in names is replaced, never thrown on.
std::string etrecord_to_json(const ETRecord& record);

}  // namespace glassbox::etrecord

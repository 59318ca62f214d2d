#pragma once
// ExecuTorch's edge program, as torch.export's serializer writes it (an
// ExportedProgram as JSON: graph_module.graph.{inputs,outputs,nodes,
// tensor_values}), read into an aot::Graph for the Inspector: each node's
// name, op (from its target), debug handle, module hierarchy and source
// line. Only what the join and `etrecord show` need is read; unknown fields
// are ignored. Readers never throw; errors are kCorruptData with a path
// ("graph_module.graph.nodes[3].target: ...").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::etrecord::internal {

// The graph of `text`. Node metadata that is present but cannot be
// understood (a module stack or stack trace in an unknown form) leaves that
// field empty and adds one sentence to `notes` (not null) for the whole
// graph; a malformed document or a field of the wrong type is an error.
StatusOr<aot::Graph> graph_from_exported_program(std::string_view text,
                                                 std::vector<std::string>* notes);

// The op name of a serialized target, without the dialect's module path and
// the overload: "executorch.exir.dialects.edge.ops.aten.convolution.default"
// -> "convolution"; other namespaces stay: "...ops.quantized_decomposed.
// dequantize_per_tensor.default" -> "quantized_decomposed.dequantize_per_tensor";
// "torch.ops.higher_order.executorch_call_delegate" -> "executorch_call_delegate".
std::string op_from_target(std::string_view target);

// metadata "nn_module_stack": "key,path,type" items joined by ';', outermost
// first. Paths are normalised to dotted form ("L['self'].layers[0]" ->
// "layers.0"), the root module (empty path) is left out, and types keep
// their class name only ("torch.nn.modules.conv.Conv2d" -> "Conv2d").
// nullopt when an item does not have its three fields.
std::optional<std::vector<aot::ModuleFrame>> modules_from_nn_module_stack(std::string_view text);

// metadata "source_fn_stack": "name,target" items joined by ';', used when
// a node has no nn_module_stack: each item becomes a frame (path = name,
// type = the target's last component). nullopt when an item is malformed.
std::optional<std::vector<aot::ModuleFrame>> modules_from_source_fn_stack(std::string_view text);

// metadata "stack_trace" (Python's traceback text): the innermost frame
// outside installed packages and the Python library (the user's own code),
// else the innermost frame. nullopt when no `File "...", line N` is found.
std::optional<aot::SourceLocation> location_from_stack_trace(std::string_view trace);

}  // namespace glassbox::etrecord::internal

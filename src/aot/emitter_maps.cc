#include <set>
#include <unordered_map>
#include <unordered_set>

#include "src/aot/emitter_internal.h"

namespace glassbox::aot::internal {
namespace {

Status mismatch(const Node& call, const std::string& problem) {
  return Status(Error::kMismatch,
                "emit: delegate call '" + call.name + "': the edge graph " + problem);
}

// The handles of the edge-graph operators between `call`'s inputs and its
// outputs: exactly the partition it replaced, since a partition's inputs are
// all the non-constant values its nodes read but do not produce.
StatusOr<std::vector<DebugHandle>> replaced_handles(const Node& call, const Graph& edge) {
  std::unordered_map<std::int32_t, const Node*> producer;
  for (const Node& node : edge.nodes) {
    for (ValueId out : node.outputs) producer[out.value] = &node;
  }
  std::unordered_set<std::int32_t> boundary;
  for (ValueId in : call.inputs) boundary.insert(in.value);

  std::set<DebugHandle> handles;
  std::unordered_set<const Node*> seen;
  std::vector<ValueId> pending(call.outputs.begin(), call.outputs.end());
  while (!pending.empty()) {
    const ValueId v = pending.back();
    pending.pop_back();
    if (boundary.contains(v.value)) continue;
    const Value* value = edge.find_value(v);
    if (value != nullptr && value->kind == ValueKind::kConstant) continue;
    auto it = producer.find(v.value);
    if (it == producer.end()) {
      return mismatch(call, "has no operator producing value " + std::to_string(v.value) +
                                " inside it; pass the graph this one was lowered from");
    }
    if (!seen.insert(it->second).second) continue;
    if (it->second->debug_handle.is_set()) handles.insert(it->second->debug_handle);
    pending.insert(pending.end(), it->second->inputs.begin(), it->second->inputs.end());
  }
  return std::vector<DebugHandle>(handles.begin(), handles.end());
}

std::vector<DebugHandle> handles_in_map(const std::optional<DebugHandleMap>& map) {
  std::set<DebugHandle> handles;
  if (map) {
    for (const auto& [id, hs] : *map) handles.insert(hs.begin(), hs.end());
  }
  return std::vector<DebugHandle>(handles.begin(), handles.end());
}

}  // namespace

StatusOr<MethodMaps> build_method_maps(const Graph& lowered, const Graph* edge_graph) {
  MethodMaps maps;
  for (std::size_t i = 0; i < lowered.nodes.size(); ++i) {
    const Node& node = lowered.nodes[i];
    const InstructionId id(static_cast<std::int32_t>(i));
    maps.num_outs[id] = static_cast<std::int32_t>(node.outputs.size());
    if (!node.is_delegate_call()) {
      if (node.debug_handle.is_set()) maps.debug_handles[id] = {node.debug_handle};
      continue;
    }
    std::vector<DebugHandle> handles;
    if (edge_graph != nullptr) {
      GLASSBOX_ASSIGN_OR_RETURN(handles, replaced_handles(node, *edge_graph));
    } else {
      handles = handles_in_map(node.delegate->debug_handle_map);
    }
    if (!handles.empty()) maps.debug_handles[id] = std::move(handles);
    maps.delegates[id] = DelegateMapEntry{node.delegate->backend, node.delegate->debug_handle_map};
  }
  return maps;
}

}  // namespace glassbox::aot::internal

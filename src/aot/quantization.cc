#include "glassbox/aot/quantization.h"

#include <unordered_map>
#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

void take_provenance(Node* node, const Node& owner) {
  node->debug_handle = owner.debug_handle;
  node->module_hierarchy = owner.module_hierarchy;
  node->source_location = owner.source_location;
}

}  // namespace

bool is_quantization_op(std::string_view op) {
  return op == op::kQuantizeLinear || op == op::kDequantizeLinear;
}

void group_quantization_nodes(Graph* graph) {
  // Producer and readers of each value, by node index.
  std::unordered_map<std::int32_t, std::size_t> producer;
  std::unordered_map<std::int32_t, std::vector<std::size_t>> readers;
  for (std::size_t i = 0; i < graph->nodes.size(); ++i) {
    const Node& node = graph->nodes[i];
    for (ValueId out : node.outputs) producer[out.value] = i;
    for (ValueId in : node.inputs) {
      std::vector<std::size_t>& r = readers[in.value];
      if (r.empty() || r.back() != i) r.push_back(i);
    }
  }
  auto produced_by = [&](ValueId v) -> const Node* {
    auto it = producer.find(v.value);
    return it == producer.end() ? nullptr : &graph->nodes[it->second];
  };

  // Inputs-side constants first: a weight's dequantize follows its reader's
  // provenance, which the loop below never changes for float ops.
  for (std::size_t i = 0; i < graph->nodes.size(); ++i) {
    Node& node = graph->nodes[i];
    if (node.op != op::kDequantizeLinear || node.inputs.empty() || node.outputs.size() != 1) {
      continue;
    }
    const Value* data = graph->find_value(node.inputs[0]);
    if (data == nullptr || data->kind != ValueKind::kConstant) continue;
    const std::vector<std::size_t>& r = readers[node.outputs[0].value];
    if (r.size() != 1 || is_quantization_op(graph->nodes[r[0]].op)) continue;
    take_provenance(&node, graph->nodes[r[0]]);
  }
  // Then outputs: in node order, so quantize -> dequantize chains follow.
  for (Node& node : graph->nodes) {
    if (node.inputs.empty()) continue;
    const Node* source = produced_by(node.inputs[0]);
    if (source == nullptr) continue;
    const bool quantizes_op_output =
        node.op == op::kQuantizeLinear && !is_quantization_op(source->op);
    const bool dequantizes_quantized =
        node.op == op::kDequantizeLinear && source->op == op::kQuantizeLinear;
    if (quantizes_op_output || dequantizes_quantized) take_provenance(&node, *source);
  }
}

}  // namespace glassbox::aot

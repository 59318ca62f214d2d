#include "glassbox/etrecord/quant_reference.h"

#include <map>
#include <set>

#include "glassbox/aot/debug_handles.h"
#include "glassbox/aot/ops.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/etrecord/reference_runner.h"

namespace glassbox::etrecord {
namespace {

using OpOutputs = std::map<DebugHandle, std::vector<ReferenceTensor>>;

// Adds to `analysis` (the float reference graph) a fake-quantization of
// each activation quantize of `quantized`: the float value its quantize read
// (still in `analysis`), quantized with the same scale and zero point and
// dequantized, under a fresh handle. Returns fresh handle -> op handle.
std::map<DebugHandle, DebugHandle> add_isolated_branches(const aot::Graph& quantized,
                                                         aot::Graph* analysis) {
  std::map<DebugHandle, DebugHandle> fresh_to_op;
  std::uint32_t next = quantized.max_debug_handle().value + 1;
  aot::ValueId next_value = analysis->next_value_id();
  std::set<DebugHandle> seen;
  for (const aot::Node& q : quantized.nodes) {
    if (q.op != aot::op::kQuantizeLinear || !seen.insert(q.debug_handle).second) continue;
    const aot::Value* x = analysis->find_value(q.inputs[0]);
    const aot::Value* out = quantized.find_value(q.outputs[0]);
    if (x == nullptr || out == nullptr) continue;
    // An op's output only: the model input's quantize has no op before it.
    bool from_op = false;
    for (const aot::Node& n : analysis->nodes) {
      for (aot::ValueId o : n.outputs) from_op |= o == q.inputs[0];
    }
    if (!from_op) continue;
    const DebugHandle handle(next++);
    aot::Value quantized_value = *out;
    quantized_value.id = next_value;
    quantized_value.name = q.name + "/isolated_q";
    next_value = aot::ValueId(next_value.value + 1);
    aot::Value dequantized = *x;
    dequantized.id = next_value;
    dequantized.name = q.name + "/isolated";
    dequantized.kind = aot::ValueKind::kNodeOutput;
    next_value = aot::ValueId(next_value.value + 1);
    aot::Node quantize = aot::make_derived_node(q, q.name + "/isolated_q", q.op);
    quantize.debug_handle = handle;
    quantize.inputs = q.inputs;
    quantize.outputs = {quantized_value.id};
    quantize.attributes = q.attributes;
    aot::Node dequantize =
        aot::make_derived_node(q, q.name + "/isolated", std::string(aot::op::kDequantizeLinear));
    dequantize.debug_handle = handle;
    dequantize.inputs = {quantized_value.id, q.inputs[1], q.inputs[2]};
    dequantize.outputs = {dequantized.id};
    dequantize.attributes = q.attributes;
    analysis->values.push_back(std::move(quantized_value));
    analysis->values.push_back(std::move(dequantized));
    analysis->outputs.push_back(dequantize.outputs[0]);  // Kept alive by being read.
    analysis->nodes.push_back(std::move(quantize));
    analysis->nodes.push_back(std::move(dequantize));
    fresh_to_op[handle] = q.debug_handle;
  }
  return fresh_to_op;
}

// The scale and zero point values of every quantize the float graph lost,
// put back so the isolated branches can read them.
void keep_quantization_constants(const aot::Graph& quantized, aot::Graph* analysis) {
  for (const aot::Node& q : quantized.nodes) {
    if (q.op != aot::op::kQuantizeLinear) continue;
    for (std::size_t i = 1; i < q.inputs.size(); ++i) {
      if (analysis->find_value(q.inputs[i]) != nullptr) continue;
      if (const aot::Value* v = quantized.find_value(q.inputs[i])) analysis->values.push_back(*v);
    }
  }
}

}  // namespace

bool is_quantized_graph(const aot::Graph& graph) {
  for (const aot::Node& node : graph.nodes) {
    if (node.op == aot::op::kQuantizeLinear) return true;
  }
  return false;
}

Status attach_quantization_reference(const aot::Graph& edge_graph, const aot::Graph* float_model,
                                     ETRecord* record) {
  if (record->reference_inputs.empty()) {
    return Status(Error::kInvalidArgument,
                  "quantization references need reference inputs (--reference-inputs or "
                  "--reference-seed)");
  }
  if (!is_quantized_graph(edge_graph)) {
    return Status(Error::kInvalidArgument,
                  "the model has no QuantizeLinear: there is nothing to compare with a float "
                  "reference");
  }
  aot::Graph analysis =
      aot::without_activation_quantization(edge_graph, [](const aot::Node&) { return true; });
  keep_quantization_constants(edge_graph, &analysis);
  const std::map<DebugHandle, DebugHandle> isolated_of =
      add_isolated_branches(edge_graph, &analysis);
  GLASSBOX_ASSIGN_OR_RETURN(ReferenceRun run, run_reference(analysis, record->reference_inputs));

  ETRecord updated = *record;
  updated.float_op_outputs.clear();
  updated.isolated_op_outputs.clear();
  std::set<DebugHandle> known;
  for (const aot::Node& node : edge_graph.nodes) known.insert(node.debug_handle);
  for (auto& [handle, tensors] : run.op_outputs) {
    if (auto it = isolated_of.find(handle); it != isolated_of.end()) {
      updated.isolated_op_outputs[it->second] = std::move(tensors);
    } else if (known.contains(handle)) {
      updated.float_op_outputs[handle] = std::move(tensors);
    }
  }
  if (float_model != nullptr) {
    GLASSBOX_ASSIGN_OR_RETURN(auto twin_of, aot::align_float_twin(edge_graph, *float_model));
    GLASSBOX_ASSIGN_OR_RETURN(ReferenceRun twin,
                              run_reference(*float_model, record->reference_inputs));
    updated.float_op_outputs.clear();
    for (const auto& [handle, twin_handle] : twin_of) {
      auto it = twin.op_outputs.find(twin_handle);
      if (it != twin.op_outputs.end()) updated.float_op_outputs[handle] = it->second;
    }
  }
  GLASSBOX_RETURN_IF_ERROR(updated.validate());
  *record = std::move(updated);
  return Status();
}

}  // namespace glassbox::etrecord

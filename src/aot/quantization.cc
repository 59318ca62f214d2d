#include "glassbox/aot/quantization.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
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
  // An activation between an op and its output's quantize (PyTorch exports a
  // fused ConvReLU2d as Conv -> Relu -> QuantizeLinear) is part of the op:
  // one int8 operator computes both.
  for (Node& node : graph->nodes) {
    if ((node.op != op::kRelu && node.op != op::kClamp) || node.inputs.empty() ||
        node.outputs.size() != 1) {
      continue;
    }
    const Node* source = produced_by(node.inputs[0]);
    if (source == nullptr || is_quantization_op(source->op)) continue;
    if (readers[node.inputs[0].value].size() != 1) continue;
    const std::vector<std::size_t>& r = readers[node.outputs[0].value];
    const bool only_quantized = !r.empty() && std::all_of(r.begin(), r.end(), [&](std::size_t i) {
      return graph->nodes[i].op == op::kQuantizeLinear;
    });
    if (only_quantized) take_provenance(&node, *source);
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

namespace glassbox::aot {
namespace {

// value id -> index of the node producing it.
std::unordered_map<std::int32_t, std::size_t> producers(const Graph& graph) {
  std::unordered_map<std::int32_t, std::size_t> out;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (ValueId v : graph.nodes[i].outputs) out[v.value] = i;
  }
  return out;
}

}  // namespace

Graph without_activation_quantization(const Graph& graph,
                                      const std::function<bool(const Node& q)>& remove) {
  const auto producer = producers(graph);
  // Each bypassed dequantize's output -> the float value it stood for.
  std::unordered_map<std::int32_t, ValueId> replaced;
  std::vector<bool> dropped(graph.nodes.size(), false);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != op::kDequantizeLinear || node.inputs.empty()) continue;
    auto it = producer.find(node.inputs[0].value);
    if (it == producer.end()) continue;
    const Node& q = graph.nodes[it->second];
    if (q.op != op::kQuantizeLinear || !remove(q)) continue;
    replaced[node.outputs[0].value] = q.inputs[0];
    dropped[i] = true;
  }
  auto resolve = [&](ValueId v) {
    auto it = replaced.find(v.value);
    return it == replaced.end() ? v : it->second;
  };
  Graph out;
  out.inputs = graph.inputs;
  for (ValueId v : graph.outputs) out.outputs.push_back(resolve(v));
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (dropped[i]) continue;
    Node node = graph.nodes[i];
    for (ValueId& v : node.inputs) v = resolve(v);
    out.nodes.push_back(std::move(node));
  }
  // Drop quantizes nothing reads any more (backwards, so chains go too),
  // then the values no node or output uses.
  for (bool changed = true; changed;) {
    changed = false;
    std::unordered_set<std::int32_t> read;
    for (const Node& node : out.nodes) {
      for (ValueId v : node.inputs) read.insert(v.value);
    }
    for (ValueId v : out.outputs) read.insert(v.value);
    for (std::size_t i = out.nodes.size(); i-- > 0;) {
      const Node& node = out.nodes[i];
      if (node.op == op::kQuantizeLinear && !read.contains(node.outputs[0].value)) {
        out.nodes.erase(out.nodes.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
  std::unordered_set<std::int32_t> used(graph.inputs.size());
  for (ValueId v : out.inputs) used.insert(v.value);
  for (ValueId v : out.outputs) used.insert(v.value);
  for (const Node& node : out.nodes) {
    for (ValueId v : node.inputs) used.insert(v.value);
    for (ValueId v : node.outputs) used.insert(v.value);
  }
  for (const Value& value : graph.values) {
    if (used.contains(value.id.value)) out.values.push_back(value);
  }
  return out;
}

StatusOr<std::vector<std::pair<DebugHandle, DebugHandle>>> align_float_twin_pairs(
    const Graph& quantized, const Graph& float_model) {
  // Both sides as their compute nodes in order; a quantized node's input is
  // traced through quantization nodes to the compute node that made it.
  struct Side {
    const Graph* graph;
    std::vector<const Node*> nodes;
    std::unordered_map<std::int32_t, std::size_t> position;  // output value -> index in nodes
    std::unordered_map<std::int32_t, std::size_t> producer;
  };
  auto make_side = [](const Graph& g) {
    Side side{&g, {}, {}, producers(g)};
    for (const Node& node : g.nodes) {
      if (is_quantization_op(node.op)) continue;
      for (ValueId v : node.outputs) side.position[v.value] = side.nodes.size();
      side.nodes.push_back(&node);
    }
    return side;
  };
  const Side q = make_side(quantized);
  const Side f = make_side(float_model);
  // The compute node (index into side.nodes) a value comes from, -1 for a
  // graph input or constant.
  auto source = [](const Side& side, ValueId v) -> std::int64_t {
    for (int guard = 0; guard < 64; ++guard) {
      auto at = side.position.find(v.value);
      if (at != side.position.end()) return static_cast<std::int64_t>(at->second);
      auto it = side.producer.find(v.value);
      if (it == side.producer.end()) return -1;
      const Node& node = side.graph->nodes[it->second];
      if (node.inputs.empty()) return -1;
      v = node.inputs[0];  // Through quantize / dequantize to the data.
    }
    return -1;
  };
  auto label = [](const Node& n) { return "'" + n.name + "' (" + n.op + ")"; };
  const std::size_t n = std::min(q.nodes.size(), f.nodes.size());
  std::vector<std::pair<DebugHandle, DebugHandle>> pairs;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& a = *q.nodes[i];
    const Node& b = *f.nodes[i];
    bool same = a.op == b.op && a.inputs.size() == b.inputs.size();
    for (std::size_t k = 0; same && k < a.inputs.size(); ++k) {
      same = source(q, a.inputs[k]) == source(f, b.inputs[k]);
    }
    if (!same) {
      return Status(Error::kInvalidArgument,
                    "the float model does not align with the quantized one at operator " +
                        std::to_string(i) + ": quantized " + label(a) + " vs float " + label(b) +
                        " (a different operator or different inputs)");
    }
    pairs.emplace_back(a.debug_handle, b.debug_handle);
  }
  if (q.nodes.size() != f.nodes.size()) {
    const bool q_longer = q.nodes.size() > f.nodes.size();
    const Node& extra = q_longer ? *q.nodes[n] : *f.nodes[n];
    return Status(Error::kInvalidArgument,
                  "the float model does not align with the quantized one: the " +
                      std::string(q_longer ? "quantized" : "float") + " model has operator " +
                      label(extra) + " past the other's last (" + std::to_string(q.nodes.size()) +
                      " vs " + std::to_string(f.nodes.size()) + " operators)");
  }
  return pairs;
}

StatusOr<std::map<DebugHandle, DebugHandle>> align_float_twin(const Graph& quantized,
                                                              const Graph& float_model) {
  GLASSBOX_ASSIGN_OR_RETURN(auto pairs, align_float_twin_pairs(quantized, float_model));
  // A quantized handle may cover several float ops (a fused ConvReLU): the
  // last one's output is the group's.
  std::map<DebugHandle, DebugHandle> handles;
  for (const auto& [q, f] : pairs) handles[q] = f;
  return handles;
}

}  // namespace glassbox::aot

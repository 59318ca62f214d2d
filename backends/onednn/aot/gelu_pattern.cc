#include "backends/onednn/aot/gelu_pattern.h"

#include <cmath>

#include "backends/common/graph_uses.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::onednn {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

// The value of a one-element float constant, or nullopt.
std::optional<double> scalar_constant(const Graph& graph, ValueId id) {
  const aot::Value* v = graph.find_value(id);
  if (v == nullptr || !is_float_constant(graph, id) || v->data.size() != 1) return std::nullopt;
  return v->data[0];
}

bool near(std::optional<double> value, double expected) {
  return value.has_value() && std::abs(*value - expected) <= 1e-4 * std::abs(expected);
}

// The node that is `id`'s only use (a graph output is a use too), or null.
const Node* sole_user(const Graph& graph, ValueId id) {
  if (count_users(graph, id) != 1) return nullptr;
  for (const Node& n : graph.nodes) {
    for (ValueId in : n.inputs) {
      if (in == id) return &n;
    }
  }
  return nullptr;
}

// For `node` = op(a, b) with one operand `known`: the other one.
std::optional<ValueId> other_operand(const Node& node, ValueId known) {
  if (node.inputs.size() != 2) return std::nullopt;
  if (node.inputs[0] == known) return node.inputs[1];
  if (node.inputs[1] == known) return node.inputs[0];
  return std::nullopt;
}

}  // namespace

std::optional<GeluChain> gelu_chain_of_erf(const Graph& graph, const Node& erf) {
  if (erf.op != aot::op::kErf || erf.inputs.size() != 1) return std::nullopt;
  GeluChain c;
  c.erf = &erf;
  c.scale = producer_of(graph, erf.inputs[0]);
  if (c.scale == nullptr || count_users(graph, erf.inputs[0]) != 1 || c.scale->inputs.size() != 2) {
    return std::nullopt;
  }
  c.x = c.scale->inputs[0];
  const std::optional<double> by = scalar_constant(graph, c.scale->inputs[1]);
  const bool scaled = (c.scale->op == aot::op::kDiv && near(by, std::sqrt(2.0))) ||
                      (c.scale->op == aot::op::kMul && near(by, std::sqrt(0.5)));
  if (!scaled || !is_computed(graph, c.x)) return std::nullopt;

  c.add = sole_user(graph, erf.outputs[0]);
  if (c.add == nullptr || c.add->op != aot::op::kAdd) return std::nullopt;
  const std::optional<ValueId> one = other_operand(*c.add, erf.outputs[0]);
  if (!one || !near(scalar_constant(graph, *one), 1.0)) return std::nullopt;

  c.mul = sole_user(graph, c.add->outputs[0]);
  if (c.mul == nullptr || c.mul->op != aot::op::kMul ||
      other_operand(*c.mul, c.add->outputs[0]) != std::optional<ValueId>(c.x)) {
    return std::nullopt;
  }
  c.half = sole_user(graph, c.mul->outputs[0]);
  if (c.half == nullptr || c.half->op != aot::op::kMul) return std::nullopt;
  const std::optional<ValueId> half = other_operand(*c.half, c.mul->outputs[0]);
  if (!half || !near(scalar_constant(graph, *half), 0.5)) return std::nullopt;
  c.out = c.half->outputs[0];
  return c;
}

}  // namespace glassbox::backends::onednn

#include "backends/onednn/aot/fused_patterns.h"

#include <cmath>
#include <string_view>
#include <vector>

#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
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

// The node reading `id` that has op `op`, if exactly one node reads it.
const Node* sole_user_of(const Graph& graph, ValueId id, std::string_view op) {
  const Node* user = sole_user(graph, id);
  return user != nullptr && user->op == op ? user : nullptr;
}

// A reduce_mean over the last axis only, keeping it.
bool mean_of_last_axis(const Graph& graph, const Node& node) {
  if (node.op != aot::op::kReduceMean || node.inputs.size() != 1) return false;
  const aot::Value* x = graph.find_value(node.inputs[0]);
  if (x == nullptr) return false;
  const std::vector<std::int64_t> axes = ints_attr(node, "axes");
  const auto rank = static_cast<std::int64_t>(x->shape.size());
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1) &&
         int_attr(node, "keepdims", 1) == 1;
}

// A float constant of `n` values (a [n] or broadcastable-to-[.., n] one).
bool vector_constant(const Graph& graph, ValueId id, std::int64_t n) {
  const aot::Value* v = graph.find_value(id);
  return v != nullptr && is_float_constant(graph, id) &&
         static_cast<std::int64_t>(v->data.size()) == n && !v->shape.empty() &&
         v->shape.back() == n;
}

// The chain whose first reduce_mean is `mean`.
std::optional<LayerNormChain> layer_norm_from_mean(const Graph& graph, const Node& mean) {
  if (!mean_of_last_axis(graph, mean)) return std::nullopt;
  LayerNormChain c;
  c.x = mean.inputs[0];
  const aot::Value* x = graph.find_value(c.x);
  if (x == nullptr || x->shape.empty() || !is_computed(graph, c.x)) return std::nullopt;
  const std::int64_t channels = x->shape.back();
  const Node* sub = sole_user_of(graph, mean.outputs[0], aot::op::kSub);
  if (sub == nullptr || sub->inputs[0] != c.x || sub->inputs[1] != mean.outputs[0]) {
    return std::nullopt;
  }
  const ValueId d = sub->outputs[0];
  // d has two uses: the square and the final division.
  const Node *pow = nullptr, *div = nullptr;
  if (count_users(graph, d) != 2) return std::nullopt;
  for (const Node& n : graph.nodes) {
    if (n.inputs.empty() || n.inputs[0] != d) continue;
    if (n.op == aot::op::kPow) pow = &n;
    if (n.op == aot::op::kDiv) div = &n;
  }
  if (pow == nullptr || div == nullptr || pow->inputs.size() != 2 ||
      !near(scalar_constant(graph, pow->inputs[1]), 2.0)) {
    return std::nullopt;
  }
  const Node* variance = sole_user_of(graph, pow->outputs[0], aot::op::kReduceMean);
  if (variance == nullptr || !mean_of_last_axis(graph, *variance)) return std::nullopt;
  const Node* add_eps = sole_user_of(graph, variance->outputs[0], aot::op::kAdd);
  if (add_eps == nullptr) return std::nullopt;
  const std::optional<ValueId> eps = other_operand(*add_eps, variance->outputs[0]);
  const std::optional<double> eps_value = eps ? scalar_constant(graph, *eps) : std::nullopt;
  if (!eps_value || !(*eps_value > 0)) return std::nullopt;
  const Node* sqrt = sole_user_of(graph, add_eps->outputs[0], aot::op::kSqrt);
  if (sqrt == nullptr || div->inputs.size() != 2 || div->inputs[1] != sqrt->outputs[0] ||
      count_users(graph, sqrt->outputs[0]) != 1) {
    return std::nullopt;
  }
  const Node* mul = sole_user_of(graph, div->outputs[0], aot::op::kMul);
  if (mul == nullptr) return std::nullopt;
  const std::optional<ValueId> gamma = other_operand(*mul, div->outputs[0]);
  if (!gamma || !vector_constant(graph, *gamma, channels)) return std::nullopt;
  const Node* add = sole_user_of(graph, mul->outputs[0], aot::op::kAdd);
  if (add == nullptr) return std::nullopt;
  const std::optional<ValueId> beta = other_operand(*add, mul->outputs[0]);
  if (!beta || !vector_constant(graph, *beta, channels)) return std::nullopt;
  const aot::Value* y = graph.find_value(add->outputs[0]);
  if (y == nullptr || y->shape != x->shape) return std::nullopt;
  c.nodes[0] = &mean;
  c.nodes[1] = sub;
  c.nodes[2] = pow;
  c.nodes[3] = variance;
  c.nodes[4] = add_eps;
  c.nodes[5] = sqrt;
  c.nodes[6] = div;
  c.nodes[7] = mul;
  c.nodes[8] = add;
  c.out = add->outputs[0];
  c.gamma = *gamma;
  c.beta = *beta;
  c.eps = *eps_value;
  return c;
}

}  // namespace

std::optional<LayerNormChain> layer_norm_chain_of(const Graph& graph, const Node& node) {
  // From the variance's reduce_mean or the pow back to the first mean:
  // pow(sub(x, mean), 2).
  const Node* pow = &node;
  if (node.op == aot::op::kReduceMean && !node.inputs.empty()) {
    const Node* producer = producer_of(graph, node.inputs[0]);
    if (producer != nullptr && producer->op == aot::op::kPow) pow = producer;
  }
  if (pow->op == aot::op::kPow && !pow->inputs.empty()) {
    const Node* sub = producer_of(graph, pow->inputs[0]);
    const Node* mean = sub != nullptr && sub->op == aot::op::kSub && sub->inputs.size() == 2
                           ? producer_of(graph, sub->inputs[1])
                           : nullptr;
    if (mean == nullptr) return std::nullopt;
    std::optional<LayerNormChain> chain = layer_norm_from_mean(graph, *mean);
    if (chain && (chain->nodes[2] == &node || chain->nodes[3] == &node)) return chain;
    return std::nullopt;
  }
  return layer_norm_from_mean(graph, node);
}

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

std::optional<ScalarAffine> scalar_affine_of(const Graph& graph, const Node& node, ValueId x) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return std::nullopt;
  const bool x_first = node.inputs[0] == x;
  if (!x_first && node.inputs[1] != x) return std::nullopt;
  const std::optional<double> c = scalar_constant(graph, node.inputs[x_first ? 1 : 0]);
  if (!c) return std::nullopt;
  const auto value = static_cast<float>(*c);
  const std::string_view op = node.op;
  if (op == aot::op::kMul) return ScalarAffine{value, 0};
  if (op == aot::op::kAdd) return ScalarAffine{1, value};
  if (op == aot::op::kSub && x_first) return ScalarAffine{1, -value};
  if (op == aot::op::kDiv && x_first && value != 0 && std::isfinite(1 / value)) {
    return ScalarAffine{1 / value, 0};
  }
  return std::nullopt;
}

std::optional<PaddedAvgPool> padded_avg_pool_of(const Graph& graph, const aot::Node& node) {
  const aot::Node* pad = &node;
  if (node.op == aot::op::kAvgPool2d) pad = producer_of(graph, node.inputs[0]);
  if (pad == nullptr || pad->op != aot::op::kPad || pad->inputs.size() != 1) return std::nullopt;
  if (string_attr(*pad, "mode", "constant") != "constant" ||
      float_attr(*pad, "value").value_or(0) != 0) {
    return std::nullopt;
  }
  const aot::Value* x = graph.find_value(pad->inputs[0]);
  const std::vector<std::int64_t> pads = ints_attr(*pad, "pads");
  if (x == nullptr || x->shape.size() != 4 || pads.size() != 8) return std::nullopt;
  for (std::size_t k = 0; k < pads.size(); ++k) {
    const bool spatial = k % 4 >= 2;  // [N, C, H, W] begins, then ends
    if (pads[k] < 0 || (!spatial && pads[k] != 0)) return std::nullopt;
  }
  if (count_users(graph, pad->outputs[0]) != 1) return std::nullopt;
  const aot::Node* pool = nullptr;
  for (const aot::Node& n : graph.nodes) {
    if (n.op == aot::op::kAvgPool2d && n.inputs[0] == pad->outputs[0]) pool = &n;
  }
  if (pool == nullptr || (node.op == aot::op::kAvgPool2d && pool != &node)) return std::nullopt;
  for (std::int64_t p : ints_attr(*pool, "padding")) {
    if (p != 0) return std::nullopt;
  }
  if (int_attr(*pool, "ceil_mode", 0) != 0) return std::nullopt;
  PaddedAvgPool pair{.pad = pad, .pool = pool};
  pair.pad_begin[0] = pads[2];
  pair.pad_begin[1] = pads[3];
  pair.pad_end[0] = pads[6];
  pair.pad_end[1] = pads[7];
  return pair;
}

}  // namespace glassbox::backends::onednn

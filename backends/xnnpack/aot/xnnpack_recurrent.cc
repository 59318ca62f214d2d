#include "backends/xnnpack/aot/xnnpack_recurrent.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/common/graph_uses.h"
#include "glassbox/aot/recurrent_attributes.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::RecurrentActivationKind;
using aot::RecurrentAttributes;

// The graph was verified before the partitioner ran, so its recurrent
// nodes' attributes read.
RecurrentAttributes attributes_of(const aot::Node& node) {
  return aot::read_recurrent_attributes(node).value();
}

// The runtime has Sigmoid, Tanh and Relu (none with parameters).
bool runnable_activation(RecurrentActivationKind kind) {
  return kind == RecurrentActivationKind::kSigmoid || kind == RecurrentActivationKind::kTanh ||
         kind == RecurrentActivationKind::kRelu;
}

const std::vector<float>& data_of(const aot::Graph& graph, aot::ValueId id) {
  return graph.find_value(id)->data;
}

}  // namespace

std::string recurrent_rejection(const aot::Graph& graph, const aot::Node& node) {
  const StatusOr<RecurrentAttributes> read = aot::read_recurrent_attributes(node);
  if (!read.ok()) return "recurrent layer: " + read.message();
  const RecurrentAttributes& a = *read;
  if (!is_computed(graph, node.inputs[a.inputs.x])) return "constant operand";
  for (std::size_t i : {a.inputs.w, a.inputs.r, a.inputs.b}) {
    if (!is_float_constant(graph, node.inputs[i])) {
      return "recurrent layer: non-constant weights (w, r, b)";
    }
  }
  const aot::Value* lengths = graph.find_value(node.inputs[a.inputs.sequence_lens]);
  if (lengths->kind != aot::ValueKind::kConstant || lengths->int_data.empty()) {
    return "recurrent layer: sequence_lens computed at run time (the delegate runs every "
           "sequence to its end, T steps)";
  }
  const aot::Value* x = graph.find_value(node.inputs[a.inputs.x]);
  if (x->shape.size() != 3) return "recurrent layer: input not 3-D";
  const std::int64_t steps = a.batch_major ? x->shape[1] : x->shape[0];
  if (std::any_of(lengths->int_data.begin(), lengths->int_data.end(),
                  [&](std::int64_t n) { return n != steps; })) {
    return "recurrent layer: sequence_lens not all " + std::to_string(steps) +
           " (the delegate runs every sequence to its end, T steps)";
  }
  if (a.inputs.peepholes) {
    if (!is_float_constant(graph, node.inputs[*a.inputs.peepholes])) {
      return "recurrent layer: non-constant peepholes";
    }
    const std::vector<float>& p = data_of(graph, node.inputs[*a.inputs.peepholes]);
    if (std::any_of(p.begin(), p.end(), [](float v) { return v != 0.0f; })) {
      return "recurrent layer: peepholes (the delegate's LSTM cell has none)";
    }
  }
  if (a.input_forget) {
    return "recurrent layer: input_forget (the delegate's LSTM cell keeps the forget gate)";
  }
  for (const aot::RecurrentActivation& f : a.activations) {
    if (!runnable_activation(f.kind)) {
      return "recurrent layer: activation " + std::string(aot::to_string(f.kind)) +
             " (the delegate runs Sigmoid, Tanh, Relu)";
    }
  }
  return "";
}

XnnOp recurrent_op(const aot::Graph& graph, const aot::Node& node) {
  const RecurrentAttributes a = attributes_of(node);
  const std::vector<std::int64_t>& w_shape = graph.find_value(node.inputs[a.inputs.w])->shape;
  XnnOp op;
  op.kind = XnnOpKind::kRecurrent;
  // The reader's codes are the kernels' (core/recurrent_codes.h).
  op.ints = {static_cast<std::uint32_t>(a.kind),
             static_cast<std::uint32_t>(a.direction),
             a.batch_major ? 1u : 0u,
             static_cast<std::uint32_t>(a.hidden_size),
             static_cast<std::uint32_t>(w_shape[2]),
             a.linear_before_reset ? 1u : 0u};
  op.ints.resize(kXnnRecurrentInts, 0);
  std::size_t i = 6;
  for (const aot::RecurrentActivation& f : a.activations) {
    if (i < kXnnRecurrentInts) op.ints[i++] = static_cast<std::uint32_t>(f.kind);
  }
  op.floats = {static_cast<float>(a.clip.value_or(0.0))};
  for (std::size_t k : {a.inputs.w, a.inputs.r, a.inputs.b}) {
    const std::vector<float>& data = data_of(graph, node.inputs[k]);
    op.floats.insert(op.floats.end(), data.begin(), data.end());
  }
  return op;
}

}  // namespace glassbox::backends::xnnpack

#include "backends/xnnpack/aot/xnnpack_recurrent.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
#include "glassbox/aot/ops.h"
#include "glassbox/runtime/kernels/recurrent.h"

namespace glassbox::backends::xnnpack {
namespace {

namespace kernels = runtime::kernels;
using kernels::RnnActivationKind;
using kernels::RnnCell;

constexpr std::size_t kLengthsInput = 4;
constexpr std::size_t kPeepholeInput = 7;

RnnCell cell_of(const aot::Node& node) {
  if (node.op == aot::op::kLstm) return RnnCell::kLstm;
  return node.op == aot::op::kGru ? RnnCell::kGru : RnnCell::kRnn;
}

std::uint32_t direction_of(const aot::Node& node) {
  const std::string direction = string_attr(node, "direction", "forward");
  return direction == "reverse" ? 1 : direction == "bidirectional" ? 2 : 0;
}

// The comma-separated activation names.
std::vector<std::string> activation_names(const aot::Node& node) {
  std::vector<std::string> names;
  const std::string list = string_attr(node, "activations", "");
  std::size_t start = 0;
  while (start <= list.size() && !list.empty()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

// The kind the runtime runs for `name`, or false (it has Sigmoid, Tanh and
// Relu: none with parameters).
bool runnable_activation(const std::string& name, RnnActivationKind* kind) {
  kernels::RnnActivation a;
  if (!kernels::rnn_activation_from_name(name.data(), name.size(), &a)) return false;
  *kind = a.kind;
  return a.kind == RnnActivationKind::kSigmoid || a.kind == RnnActivationKind::kTanh ||
         a.kind == RnnActivationKind::kRelu;
}

const std::vector<float>& data_of(const aot::Graph& graph, aot::ValueId id) {
  return graph.find_value(id)->data;
}

}  // namespace

std::string recurrent_rejection(const aot::Graph& graph, const aot::Node& node) {
  if (!is_computed(graph, node.inputs[0])) return "constant operand";
  for (std::size_t i = 1; i <= 3; ++i) {
    if (!is_float_constant(graph, node.inputs[i])) {
      return "recurrent layer: non-constant weights (w, r, b)";
    }
  }
  const aot::Value* lengths = graph.find_value(node.inputs[kLengthsInput]);
  if (lengths->kind != aot::ValueKind::kConstant || lengths->int_data.empty()) {
    return "recurrent layer: sequence_lens computed at run time (the delegate runs every "
           "sequence to its end, T steps)";
  }
  const aot::Value* x = graph.find_value(node.inputs[0]);
  if (x->shape.size() != 3) return "recurrent layer: input not 3-D";
  const std::int64_t steps = int_attr(node, "layout", 0) == 1 ? x->shape[1] : x->shape[0];
  if (std::any_of(lengths->int_data.begin(), lengths->int_data.end(),
                  [&](std::int64_t n) { return n != steps; })) {
    return "recurrent layer: sequence_lens not all " + std::to_string(steps) +
           " (the delegate runs every sequence to its end, T steps)";
  }
  if (node.op == aot::op::kLstm) {
    if (!is_float_constant(graph, node.inputs[kPeepholeInput])) {
      return "recurrent layer: non-constant peepholes";
    }
    const std::vector<float>& p = data_of(graph, node.inputs[kPeepholeInput]);
    if (std::any_of(p.begin(), p.end(), [](float v) { return v != 0.0f; })) {
      return "recurrent layer: peepholes (the delegate's LSTM cell has none)";
    }
    if (int_attr(node, "input_forget", 0) != 0) {
      return "recurrent layer: input_forget (the delegate's LSTM cell keeps the forget gate)";
    }
  }
  for (const std::string& name : activation_names(node)) {
    RnnActivationKind kind;
    if (!runnable_activation(name, &kind)) {
      return "recurrent layer: activation " + name + " (the delegate runs Sigmoid, Tanh, Relu)";
    }
  }
  return "";
}

XnnOp recurrent_op(const aot::Graph& graph, const aot::Node& node) {
  const RnnCell cell = cell_of(node);
  const std::vector<std::int64_t>& w_shape = graph.find_value(node.inputs[1])->shape;
  XnnOp op;
  op.kind = XnnOpKind::kRecurrent;
  op.ints = {static_cast<std::uint32_t>(cell),
             direction_of(node),
             static_cast<std::uint32_t>(int_attr(node, "layout", 0)),
             static_cast<std::uint32_t>(int_attr(node, "hidden_size", 0)),
             static_cast<std::uint32_t>(w_shape[2]),
             static_cast<std::uint32_t>(int_attr(node, "linear_before_reset", 0))};
  op.ints.resize(kXnnRecurrentInts, 0);
  std::size_t i = 6;
  for (const std::string& name : activation_names(node)) {
    RnnActivationKind kind = RnnActivationKind::kSigmoid;
    (void)runnable_activation(name, &kind);  // recurrent_rejection took them
    if (i < kXnnRecurrentInts) op.ints[i++] = static_cast<std::uint32_t>(kind);
  }
  op.floats = {static_cast<float>(float_attr(node, "clip").value_or(0.0))};
  for (std::size_t k = 1; k <= 3; ++k) {  // w, r, b
    const std::vector<float>& data = data_of(graph, node.inputs[k]);
    op.floats.insert(op.floats.end(), data.begin(), data.end());
  }
  return op;
}

}  // namespace glassbox::backends::xnnpack

#include "backends/onednn/aot/recurrent_lowering.h"

#include <algorithm>
#include <array>

#include "backends/common/graph_uses.h"
#include "glassbox/aot/recurrent_attributes.h"

namespace glassbox::backends::onednn {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

using aot::RecurrentActivationKind;
using aot::RecurrentAttributes;
using aot::RecurrentKind;

struct Cell {
  DnnRnnCell cell;
  // oneDNN gate g reads ONNX gate onnx_gate[g]: LSTM i, f, c, o from
  // ONNX's i, o, f, c; GRU u, r, o are ONNX's z, r, h.
  std::array<std::int64_t, 4> onnx_gate;
};

Cell cell_of(const RecurrentAttributes& a) {
  if (a.kind == RecurrentKind::kLstm) return {DnnRnnCell::kLstm, {0, 2, 3, 1}};
  if (a.kind == RecurrentKind::kGru) {
    return {a.linear_before_reset ? DnnRnnCell::kLbrGru : DnnRnnCell::kGru, {0, 1, 2, 0}};
  }
  return {DnnRnnCell::kVanilla, {0, 0, 0, 0}};
}

// The graph was verified before the partitioner ran, so its recurrent
// nodes' attributes read.
RecurrentAttributes attributes_of(const Node& node) {
  return aot::read_recurrent_attributes(node).value();
}

const aot::Value& value(const Graph& graph, ValueId id) { return *graph.find_value(id); }

bool all_zero(const Graph& graph, ValueId id) {
  const std::vector<float>& data = value(graph, id).data;
  return std::all_of(data.begin(), data.end(), [](float v) { return v == 0.f; });
}

// The DnnEltwise code of an rnn cell's activation; 0 when oneDNN's vanilla
// RNN has none for it.
std::int64_t vanilla_activation(RecurrentActivationKind kind) {
  switch (kind) {
    case RecurrentActivationKind::kTanh: return static_cast<std::int64_t>(DnnEltwise::kTanh);
    case RecurrentActivationKind::kRelu: return static_cast<std::int64_t>(DnnEltwise::kRelu);
    case RecurrentActivationKind::kSigmoid: return static_cast<std::int64_t>(DnnEltwise::kLogistic);
    default: return 0;
  }
}

DnnRnnDirection direction_of(aot::RecurrentDirection direction) {
  if (direction == aot::RecurrentDirection::kReverse) return DnnRnnDirection::kReverse;
  if (direction == aot::RecurrentDirection::kBidirectional) return DnnRnnDirection::kBidirectional;
  return DnnRnnDirection::kForward;
}

std::string activation_rejection(const Node& node, const RecurrentAttributes& a) {
  const std::vector<aot::RecurrentActivation>& fs = a.activations;
  if (a.kind == RecurrentKind::kRnn) {
    if (vanilla_activation(fs[0].kind) == 0 ||
        std::any_of(fs.begin(), fs.end(),
                    [&](const aot::RecurrentActivation& f) { return f.kind != fs[0].kind; })) {
      return "rnn activation other than one of Tanh, Relu, Sigmoid for every direction (oneDNN's "
             "vanilla RNN has only those)";
    }
    return {};
  }
  const std::vector<RecurrentActivationKind> defaults =
      a.kind == RecurrentKind::kLstm
          ? std::vector<RecurrentActivationKind>{RecurrentActivationKind::kSigmoid,
                                                 RecurrentActivationKind::kTanh,
                                                 RecurrentActivationKind::kTanh}
          : std::vector<RecurrentActivationKind>{RecurrentActivationKind::kSigmoid,
                                                 RecurrentActivationKind::kTanh};
  for (std::size_t i = 0; i < fs.size(); ++i) {
    if (fs[i].kind != defaults[i % defaults.size()]) {
      return node.op + " activations other than the defaults (oneDNN's cell has fixed ones)";
    }
  }
  return {};
}

}  // namespace

std::string recurrent_rejection(const Graph& graph, const Node& node) {
  const StatusOr<RecurrentAttributes> read = aot::read_recurrent_attributes(node);
  if (!read.ok()) return read.message();
  const RecurrentAttributes& a = *read;
  if (node.inputs.size() < a.inputs.count) return "recurrent layer without every input";
  for (std::size_t in : {a.inputs.w, a.inputs.r, a.inputs.b}) {
    if (!is_float_constant(graph, node.inputs[in])) return "non-constant weights or bias";
  }
  if (a.inputs.peepholes && !is_float_constant(graph, node.inputs[*a.inputs.peepholes])) {
    return "non-constant peepholes";
  }
  const aot::Value& x = value(graph, node.inputs[a.inputs.x]);
  const aot::Value& lens = value(graph, node.inputs[a.inputs.sequence_lens]);
  if (x.shape.size() != 3) return "recurrent input x not 3-D";
  const std::int64_t steps = a.batch_major ? x.shape[1] : x.shape[0];
  if (lens.kind != aot::ValueKind::kConstant ||
      lens.int_data.size() != static_cast<std::size_t>(lens.numel())) {
    return "sequence_lens computed (oneDNN's RNN runs every step of every sequence)";
  }
  if (std::any_of(lens.int_data.begin(), lens.int_data.end(),
                  [&](std::int64_t n) { return n != steps; })) {
    return "sequence_lens other than T for every sequence (oneDNN's RNN runs every step of "
           "every sequence)";
  }
  if (std::string why = activation_rejection(node, a); !why.empty()) return why;
  if (a.clip) return "clip (oneDNN's RNN cells do not clip)";
  if (a.input_forget) return "input_forget=1 (oneDNN's LSTM has no coupled input and forget gate)";
  for (std::optional<std::size_t> in : {std::optional(a.inputs.initial_h), a.inputs.initial_c}) {
    if (!in) continue;
    const ValueId id = node.inputs[*in];
    if (!is_computed(graph, id) && !is_float_constant(graph, id)) {
      return "initial state without data";
    }
  }
  return {};
}

RecurrentPlan plan_recurrent(const Graph& graph, const Node& node) {
  const RecurrentAttributes a = attributes_of(node);
  const Cell cell = cell_of(a);
  const std::vector<std::int64_t>& w = value(graph, node.inputs[a.inputs.w]).shape;  // [D, G*H, I]
  const std::int64_t dirs = a.num_directions, input = w[2];
  const std::int64_t gates = a.gate_count;
  const std::int64_t hidden = a.hidden_size;
  RecurrentPlan plan;
  const std::int64_t activation =
      a.kind == RecurrentKind::kRnn ? vanilla_activation(a.activations[0].kind) : 0;
  // w_layer[d][i][g][h] = W[d][onnx_gate(g) * H + h][i], and likewise for R.
  const auto gate_major = [&](ValueId id, std::int64_t in) {
    const std::vector<float>& src = value(graph, id).data;
    RecurrentPlan::Constant c{
        {dirs, in, gates, hidden},
        std::vector<float>(static_cast<std::size_t>(dirs * in * gates * hidden))};
    std::size_t k = 0;
    for (std::int64_t d = 0; d < dirs; ++d) {
      for (std::int64_t i = 0; i < in; ++i) {
        for (std::int64_t g = 0; g < gates; ++g) {
          for (std::int64_t h = 0; h < hidden; ++h) {
            const std::int64_t row = cell.onnx_gate[static_cast<std::size_t>(g)] * hidden + h;
            c.data[k++] = src[static_cast<std::size_t>((d * gates * hidden + row) * in + i)];
          }
        }
      }
    }
    return c;
  };
  plan.w_layer = gate_major(node.inputs[a.inputs.w], input);
  plan.w_iter = gate_major(node.inputs[a.inputs.r], hidden);
  // ONNX's b is W's biases then R's. oneDNN adds one bias per gate (their
  // sum), except the linear-before-reset GRU's new gate: W's bias outside
  // the reset product, R's inside it (a fourth bias).
  const std::vector<float>& b = value(graph, node.inputs[a.inputs.b]).data;
  const bool lbr = cell.cell == DnnRnnCell::kLbrGru;
  const std::int64_t bias_gates = lbr ? 4 : gates;
  plan.bias = {{dirs, bias_gates, hidden},
               std::vector<float>(static_cast<std::size_t>(dirs * bias_gates * hidden))};
  for (std::int64_t d = 0; d < dirs; ++d) {
    const std::size_t wb = static_cast<std::size_t>(d * 2 * gates * hidden);
    const std::size_t rb = wb + static_cast<std::size_t>(gates * hidden);
    for (std::int64_t g = 0; g < bias_gates; ++g) {
      for (std::int64_t h = 0; h < hidden; ++h) {
        float v = 0.f;
        if (lbr && g == 3) {  // the fourth: R's bias of the new gate
          v = b[rb + static_cast<std::size_t>(2 * hidden + h)];
        } else {
          const auto at =
              static_cast<std::size_t>(cell.onnx_gate[static_cast<std::size_t>(g)] * hidden + h);
          v = b[wb + at] + (lbr && g == 2 ? 0.f : b[rb + at]);
        }
        plan.bias.data[static_cast<std::size_t>((d * bias_gates + g) * hidden + h)] = v;
      }
    }
  }
  bool peephole = false;
  if (a.inputs.peepholes && !all_zero(graph, node.inputs[*a.inputs.peepholes])) {
    peephole = true;
    // ONNX's P is i, o, f; oneDNN's i, f, o.
    constexpr std::array<std::int64_t, 3> kOnnx = {0, 2, 1};
    const std::vector<float>& p = value(graph, node.inputs[*a.inputs.peepholes]).data;
    plan.peephole = {{dirs, 3, hidden},
                     std::vector<float>(static_cast<std::size_t>(dirs * 3 * hidden))};
    for (std::int64_t d = 0; d < dirs; ++d) {
      for (std::int64_t g = 0; g < 3; ++g) {
        for (std::int64_t h = 0; h < hidden; ++h) {
          plan.peephole.data[static_cast<std::size_t>((d * 3 + g) * hidden + h)] =
              p[static_cast<std::size_t>((d * 3 + kOnnx[static_cast<std::size_t>(g)]) * hidden +
                                         h)];
        }
      }
    }
  }
  const auto state = [&](std::size_t in) {
    const ValueId id = node.inputs[in];
    if (is_float_constant(graph, id) && all_zero(graph, id)) return ValueId();
    return id;
  };
  plan.initial_h = state(a.inputs.initial_h);
  if (a.inputs.initial_c) plan.initial_c = state(*a.inputs.initial_c);
  plan.ints = {static_cast<std::int64_t>(cell.cell),
               static_cast<std::int64_t>(direction_of(a.direction)),
               a.batch_major ? 1 : 0,
               activation,
               peephole ? 1 : 0,
               plan.initial_h.is_set() ? 1 : 0,
               plan.initial_c.is_set() ? 1 : 0};
  return plan;
}

}  // namespace glassbox::backends::onednn

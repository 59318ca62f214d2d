#include "backends/onednn/aot/recurrent_lowering.h"

#include <algorithm>
#include <array>

#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::onednn {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

// ONNX's inputs of a recurrent node (glassbox/aot/ops.h).
enum Input { kX = 0, kW = 1, kR = 2, kB = 3, kSeqLens = 4, kH0 = 5, kC0 = 6, kP = 7 };

struct Cell {
  DnnRnnCell cell;
  std::int64_t gates;
  // oneDNN gate g reads ONNX gate onnx_gate[g]: LSTM i, f, c, o from
  // ONNX's i, o, f, c; GRU u, r, o are ONNX's z, r, h.
  std::array<std::int64_t, 4> onnx_gate;
};

Cell cell_of(const Node& node) {
  if (node.op == aot::op::kLstm) return {DnnRnnCell::kLstm, 4, {0, 2, 3, 1}};
  if (node.op == aot::op::kGru) {
    const bool lbr = int_attr(node, "linear_before_reset", 0) != 0;
    return {lbr ? DnnRnnCell::kLbrGru : DnnRnnCell::kGru, 3, {0, 1, 2, 0}};
  }
  return {DnnRnnCell::kVanilla, 1, {0, 0, 0, 0}};
}

const aot::Value& value(const Graph& graph, ValueId id) { return *graph.find_value(id); }

bool all_zero(const Graph& graph, ValueId id) {
  const std::vector<float>& data = value(graph, id).data;
  return std::all_of(data.begin(), data.end(), [](float v) { return v == 0.f; });
}

// The activations of one direction (the list repeats per direction).
std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out(1);
  for (char ch : list) {
    if (ch == ',') {
      out.emplace_back();
    } else if (ch != ' ') {
      out.back() += ch;
    }
  }
  return out;
}

// The DnnEltwise code of an rnn cell's activation; 0 when oneDNN's vanilla
// RNN has none for it.
std::int64_t vanilla_activation(const std::string& name) {
  if (name == "Tanh") return static_cast<std::int64_t>(DnnEltwise::kTanh);
  if (name == "Relu") return static_cast<std::int64_t>(DnnEltwise::kRelu);
  if (name == "Sigmoid") return static_cast<std::int64_t>(DnnEltwise::kLogistic);
  return 0;
}

DnnRnnDirection direction_of(const Node& node) {
  const std::string direction = string_attr(node, "direction", "forward");
  if (direction == "reverse") return DnnRnnDirection::kReverse;
  if (direction == "bidirectional") return DnnRnnDirection::kBidirectional;
  return DnnRnnDirection::kForward;
}

std::string activation_rejection(const Node& node, const Cell& cell) {
  const std::vector<std::string> names = split(string_attr(node, "activations", ""));
  if (cell.cell == DnnRnnCell::kVanilla) {
    if (vanilla_activation(names[0]) == 0 ||
        std::any_of(names.begin(), names.end(),
                    [&](const std::string& n) { return n != names[0]; })) {
      return "rnn activation other than one of Tanh, Relu, Sigmoid for every direction (oneDNN's "
             "vanilla RNN has only those)";
    }
    return {};
  }
  const std::vector<std::string> defaults =
      cell.cell == DnnRnnCell::kLstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                     : std::vector<std::string>{"Sigmoid", "Tanh"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != defaults[i % defaults.size()]) {
      return node.op + " activations other than the defaults (oneDNN's cell has fixed ones)";
    }
  }
  return {};
}

}  // namespace

std::string recurrent_rejection(const Graph& graph, const Node& node) {
  const Cell cell = cell_of(node);
  if (node.inputs.size() < 6 || (cell.cell == DnnRnnCell::kLstm && node.inputs.size() < 8)) {
    return "recurrent layer without every input";
  }
  for (Input in : {kW, kR, kB}) {
    if (!is_float_constant(graph, node.inputs[in])) return "non-constant weights or bias";
  }
  if (cell.cell == DnnRnnCell::kLstm && !is_float_constant(graph, node.inputs[kP])) {
    return "non-constant peepholes";
  }
  const aot::Value& x = value(graph, node.inputs[kX]);
  const aot::Value& lens = value(graph, node.inputs[kSeqLens]);
  if (x.shape.size() != 3) return "recurrent input x not 3-D";
  const std::int64_t steps = int_attr(node, "layout", 0) != 0 ? x.shape[1] : x.shape[0];
  if (lens.kind != aot::ValueKind::kConstant ||
      lens.int_data.size() != static_cast<std::size_t>(lens.numel())) {
    return "sequence_lens computed (oneDNN's RNN runs every step of every sequence)";
  }
  if (std::any_of(lens.int_data.begin(), lens.int_data.end(),
                  [&](std::int64_t n) { return n != steps; })) {
    return "sequence_lens other than T for every sequence (oneDNN's RNN runs every step of "
           "every sequence)";
  }
  if (std::string why = activation_rejection(node, cell); !why.empty()) return why;
  if (node.attributes.contains("clip")) return "clip (oneDNN's RNN cells do not clip)";
  if (int_attr(node, "input_forget", 0) != 0) {
    return "input_forget=1 (oneDNN's LSTM has no coupled input and forget gate)";
  }
  for (Input in : {kH0, kC0}) {
    if (static_cast<std::size_t>(in) >= node.inputs.size()) break;
    const ValueId id = node.inputs[in];
    if (!is_computed(graph, id) && !is_float_constant(graph, id)) {
      return "initial state without data";
    }
  }
  return {};
}

RecurrentPlan plan_recurrent(const Graph& graph, const Node& node) {
  const Cell cell = cell_of(node);
  const DnnRnnDirection direction = direction_of(node);
  const std::vector<std::int64_t>& w = value(graph, node.inputs[kW]).shape;  // [D, G*H, I]
  const std::int64_t dirs = w[0], input = w[2];
  const std::int64_t gates = cell.gates;
  const std::int64_t hidden = w[1] / gates;
  RecurrentPlan plan;
  const std::int64_t activation =
      cell.cell == DnnRnnCell::kVanilla
          ? vanilla_activation(split(string_attr(node, "activations", "Tanh"))[0])
          : 0;
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
  plan.w_layer = gate_major(node.inputs[kW], input);
  plan.w_iter = gate_major(node.inputs[kR], hidden);
  // ONNX's b is W's biases then R's. oneDNN adds one bias per gate (their
  // sum), except the linear-before-reset GRU's new gate: W's bias outside
  // the reset product, R's inside it (a fourth bias).
  const std::vector<float>& b = value(graph, node.inputs[kB]).data;
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
  if (cell.cell == DnnRnnCell::kLstm && !all_zero(graph, node.inputs[kP])) {
    peephole = true;
    // ONNX's P is i, o, f; oneDNN's i, f, o.
    constexpr std::array<std::int64_t, 3> kOnnx = {0, 2, 1};
    const std::vector<float>& p = value(graph, node.inputs[kP]).data;
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
  const auto state = [&](Input in) {
    if (static_cast<std::size_t>(in) >= node.inputs.size()) return ValueId();
    const ValueId id = node.inputs[in];
    if (is_float_constant(graph, id) && all_zero(graph, id)) return ValueId();
    return id;
  };
  plan.initial_h = state(kH0);
  if (cell.cell == DnnRnnCell::kLstm) plan.initial_c = state(kC0);
  plan.ints = {static_cast<std::int64_t>(cell.cell),
               static_cast<std::int64_t>(direction),
               int_attr(node, "layout", 0) != 0 ? 1 : 0,
               activation,
               peephole ? 1 : 0,
               plan.initial_h.is_set() ? 1 : 0,
               plan.initial_c.is_set() ? 1 : 0};
  return plan;
}

}  // namespace glassbox::backends::onednn

// The recurrent layers on XNNPACK (format 1.7's kRecurrent): each cell,
// direction, initial-state source and layout exported through the
// partitioner is one delegate of one operator, logs one event under the
// layer's debug handle (Y_h and Y_c, written by the layer, log none), and agrees with the portable
// kernel (the tested reference, src/runtime/kernels/recurrent_test.cc) on the same inputs; what the
// delegate does not run stays portable with its reason.
//
// kTolerance as xnnpack_ops_test.cc's: XNNPACK's blocked GEMM sums in
// another order than ours, a few ulp per product; the state carries them
// over T steps, still far below what a wrong gate or index gives (O(0.1)).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "backends/xnnpack/testing/xnnpack_test_runner.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::Graph;
using aot::ValueId;
using aot::ValueKind;
using Shape = std::vector<std::int64_t>;

constexpr double kTolerance = 1e-4;
constexpr std::int64_t kSteps = 5, kBatch = 2, kInput = 3, kHidden = 4;

struct RnnCase {
  std::string name;
  std::string op;  // lstm, gru, rnn
  std::string direction;
  bool states_are_inputs = false;  // else the zeros an ONNX model leaving them out gets
  std::int64_t layout = 0;
  std::string activation = "";  // rnn's f; "" the cell's defaults
  std::int64_t linear_before_reset = 0;
  double clip = 0;
  std::size_t output = 0;  // the graph's output: Y, Y_h, Y_c (the others are the delegate's too)
};

void PrintTo(const RnnCase& c, std::ostream* os) { *os << c.name; }

ValueId add_value(Graph& g, const std::string& name, ValueKind kind, ScalarType dtype,
                  Shape shape) {
  aot::Value v;
  v.id = ValueId(static_cast<std::int32_t>(g.values.size()));
  v.name = name;
  v.kind = kind;
  v.dtype = dtype;
  v.shape = std::move(shape);
  if (kind == ValueKind::kInput) g.inputs.push_back(v.id);
  g.values.push_back(std::move(v));
  return g.values.back().id;
}

// Weights of a few tenths, varied enough that every gate matters.
ValueId weights(Graph& g, const std::string& name, Shape shape, float scale = 0.6f) {
  const ValueId id = add_value(g, name, ValueKind::kConstant, ScalarType::kFloat, shape);
  aot::Value& v = *g.find_value(id);
  v.data.resize(static_cast<std::size_t>(v.numel()));
  for (std::size_t i = 0; i < v.data.size(); ++i) {
    v.data[i] = scale * std::sin(0.37f * static_cast<float>(i + name.size()));
  }
  return id;
}

std::string activations(const RnnCase& c, std::int64_t dirs) {
  std::string one = c.op == aot::op::kLstm  ? "Sigmoid,Tanh,Tanh"
                    : c.op == aot::op::kGru ? "Sigmoid,Tanh"
                    : c.activation.empty()  ? "Tanh"
                                            : c.activation;
  return dirs == 2 ? one + "," + one : one;
}

// One layer over x [T=5, N=2, I=3] (layout 1: [N, T, I]), hidden 4, its Y
// the graph's output; node 0.
Graph recurrent_graph(const RnnCase& c) {
  Graph g;
  const std::int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  const std::int64_t gates = c.op == aot::op::kLstm ? 4 : c.op == aot::op::kGru ? 3 : 1;
  const bool lstm = c.op == aot::op::kLstm;
  const Shape state = c.layout == 1 ? Shape{kBatch, dirs, kHidden} : Shape{dirs, kBatch, kHidden};
  aot::Node node;
  node.name = c.op + "_1";
  node.op = c.op;
  node.debug_handle = DebugHandle(1);
  const ValueId x =
      add_value(g, "x", ValueKind::kInput, ScalarType::kFloat,
                c.layout == 1 ? Shape{kBatch, kSteps, kInput} : Shape{kSteps, kBatch, kInput});
  node.inputs = {x, weights(g, "w", {dirs, gates * kHidden, kInput}),
                 weights(g, "r", {dirs, gates * kHidden, kHidden}),
                 weights(g, "b", {dirs, 2 * gates * kHidden}, 0.3f)};
  const ValueId lens = add_value(g, "lens", ValueKind::kConstant, ScalarType::kLong, {kBatch});
  g.find_value(lens)->int_data.assign(kBatch, kSteps);
  node.inputs.push_back(lens);
  for (const char* name : {"initial_h", "initial_c"}) {
    if (!lstm && std::string(name) == "initial_c") break;
    if (c.states_are_inputs) {
      node.inputs.push_back(add_value(g, name, ValueKind::kInput, ScalarType::kFloat, state));
    } else {
      const ValueId zeros = add_value(g, name, ValueKind::kConstant, ScalarType::kFloat, state);
      g.find_value(zeros)->data.assign(static_cast<std::size_t>(dirs * kBatch * kHidden), 0.0f);
      node.inputs.push_back(zeros);
    }
  }
  if (lstm) {
    const ValueId p =
        add_value(g, "p", ValueKind::kConstant, ScalarType::kFloat, {dirs, 3 * kHidden});
    g.find_value(p)->data.assign(static_cast<std::size_t>(dirs * 3 * kHidden), 0.0f);
    node.inputs.push_back(p);
  }
  node.outputs.push_back(add_value(
      g, "y", ValueKind::kNodeOutput, ScalarType::kFloat,
      c.layout == 1 ? Shape{kBatch, kSteps, dirs, kHidden} : Shape{kSteps, dirs, kBatch, kHidden}));
  node.outputs.push_back(add_value(g, "y_h", ValueKind::kNodeOutput, ScalarType::kFloat, state));
  if (lstm) {
    node.outputs.push_back(add_value(g, "y_c", ValueKind::kNodeOutput, ScalarType::kFloat, state));
  }
  node.attributes = {{"hidden_size", kHidden},
                     {"direction", c.direction},
                     {"layout", c.layout},
                     {"activations", activations(c, dirs)}};
  if (c.op == aot::op::kGru) node.attributes["linear_before_reset"] = c.linear_before_reset;
  if (c.clip > 0) node.attributes["clip"] = c.clip;
  g.outputs = {node.outputs[c.output]};
  g.nodes.push_back(std::move(node));
  return g;
}

std::vector<RnnCase> cases() {
  std::vector<RnnCase> all;
  struct Cell {
    const char* name;
    std::string op;
    std::string activation;
    std::int64_t linear_before_reset;
  };
  const Cell cells[] = {{"lstm", "lstm", "", 0},        {"gru", "gru", "", 0},
                        {"gru_lbr", "gru", "", 1},      {"rnn", "rnn", "", 0},
                        {"rnn_relu", "rnn", "Relu", 0}, {"rnn_sigmoid", "rnn", "Sigmoid", 0}};
  for (const Cell& cell : cells) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      for (const bool states : {false, true}) {
        for (const std::int64_t layout : {0, 1}) {
          RnnCase c;
          c.name = std::string(cell.name) + "_" + direction + (states ? "_states" : "_zeros") +
                   "_layout" + std::to_string(layout);
          c.op = cell.op;
          c.direction = direction;
          c.states_are_inputs = states;
          c.layout = layout;
          c.activation = cell.activation;
          c.linear_before_reset = cell.linear_before_reset;
          all.push_back(c);
        }
      }
    }
  }
  // Y_h and Y_c, which the layer writes into its kRecurrentState slots.
  for (const RnnCase& with_states : std::vector<RnnCase>(all)) {
    if (!with_states.states_are_inputs) continue;
    for (std::size_t output = 1; output <= (with_states.op == "lstm" ? 2u : 1u); ++output) {
      RnnCase c = with_states;
      c.name += output == 1 ? "_y_h" : "_y_c";
      c.output = output;
      all.push_back(c);
    }
  }
  for (const char* op : {"lstm", "gru", "rnn"}) {
    RnnCase c{std::string(op) + "_clip_bidirectional", op, "bidirectional", true, 0};
    c.clip = 0.4;
    all.push_back(c);
  }
  return all;
}

class XnnpackRecurrentTest : public ::testing::TestWithParam<RnnCase> {};

INSTANTIATE_TEST_SUITE_P(Cells, XnnpackRecurrentTest, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST_P(XnnpackRecurrentTest, OneOperatorMatchingThePortableKernel) {
  const Graph graph = recurrent_graph(GetParam());
  ASSERT_EQ(xnnpack_partition_report(graph), std::vector<std::string>{""});
  StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = testing::export_graph(graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();
  EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  EXPECT_EQ(delegated->instruction_id_to_num_outs_map().at("forward").size(), 1u);

  ASSERT_EQ(register_xnnpack_backend_runtime(), Error::kOk);
  const backends::testing::DelegatedAndPortable ran = backends::testing::run_delegated_and_portable(
      delegated->buffer(), portable->buffer(),
      *delegated->delegate_map().at("forward").begin()->second.delegate_map);
  ASSERT_TRUE(ran.error.empty()) << ran.error;
  ASSERT_EQ(ran.delegated.size(), ran.portable.size());
  EXPECT_LT(testing::max_relative_error(ran.delegated, ran.portable), kTolerance);
  // One delegate event for the layer, mapped to the layer's handle.
  const backends::testing::LoggedDelegateEvents& logged = ran.logged;
  EXPECT_EQ(logged.events, 1u);
  EXPECT_EQ(logged.unmapped, 0u);
  EXPECT_EQ(logged.handles, std::set<DebugHandle>{DebugHandle(1)});
}

RnnCase forward_lstm() { return {"lstm", "lstm", "forward", true, 0}; }

TEST(XnnpackRecurrentRefusalTest, WhatTheDelegateDoesNotRunStaysPortableWithItsReason) {
  {
    Graph g = recurrent_graph(forward_lstm());
    g.find_value(g.nodes[0].inputs[4])->int_data = {kSteps, kSteps - 1};
    EXPECT_EQ(xnnpack_partition_report(g)[0],
              "recurrent layer: sequence_lens not all 5 (the delegate runs every sequence to its "
              "end, T steps)");
  }
  {
    Graph g = recurrent_graph(forward_lstm());
    aot::Value& lens = *g.find_value(g.nodes[0].inputs[4]);
    lens.kind = ValueKind::kInput;
    lens.int_data.clear();
    g.inputs.push_back(lens.id);
    EXPECT_EQ(xnnpack_partition_report(g)[0],
              "recurrent layer: sequence_lens computed at run time (the delegate runs every "
              "sequence to its end, T steps)");
  }
  {
    Graph g = recurrent_graph(forward_lstm());
    g.nodes[0].attributes["activations"] = std::string("HardSigmoid,Tanh,Tanh");
    EXPECT_EQ(xnnpack_partition_report(g)[0],
              "recurrent layer: activation HardSigmoid (the delegate runs Sigmoid, Tanh, Relu)");
  }
  {
    Graph g = recurrent_graph(forward_lstm());
    g.nodes[0].attributes["input_forget"] = std::int64_t{1};
    EXPECT_EQ(xnnpack_partition_report(g)[0],
              "recurrent layer: input_forget (the delegate's LSTM cell keeps the forget gate)");
  }
  {
    Graph g = recurrent_graph(forward_lstm());
    g.find_value(g.nodes[0].inputs[7])->data[3] = 0.5f;
    EXPECT_EQ(xnnpack_partition_report(g)[0],
              "recurrent layer: peepholes (the delegate's LSTM cell has none)");
  }
  {
    Graph g = recurrent_graph(forward_lstm());
    g.find_value(g.nodes[0].inputs[1])->kind = ValueKind::kInput;
    g.inputs.push_back(g.nodes[0].inputs[1]);
    EXPECT_EQ(xnnpack_partition_report(g)[0], "recurrent layer: non-constant weights (w, r, b)");
  }
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

// The oneDNN delegate's recurrent layers (aot/recurrent_lowering.h,
// runtime/rnn_layer.h): each cell x direction x layout, with and without
// initial states, delegated whole and matching the portable kernel (the
// reference, tested against a naive one in kernels/recurrent_test.cc)
// within kTolerance; its one event maps to the layer's node. Then the
// layers the delegate leaves on the portable kernel, with their reasons.
//
// kTolerance = 1e-4 in max |x - p| / (1 + |p|), as onednn_ops_test.cc: the
// GEMMs sum in another order and oneDNN's tanh and logistic are
// polynomial; a gate or bias taken from the wrong place is off by O(0.1).

#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "backends/common/testing/delegate_test_helpers.h"
#include "backends/onednn/aot/onednn_backend.h"
#include "backends/onednn/aot/onednn_partitioner.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"
#include "glassbox/export/program_manager.h"

namespace glassbox::backends::onednn {
namespace {

using aot::ValueId;

constexpr double kTolerance = 1e-4;
constexpr std::int64_t kSteps = 5, kBatch = 2, kInput = 3, kHidden = 4;

enum class States { kAbsent, kComputed, kConstant };

struct RecurrentCase {
  std::string op = "lstm";
  std::string direction = "forward";
  std::int64_t layout = 0;
  States states = States::kAbsent;
  std::int64_t linear_before_reset = 0;  // gru
  std::string activations;               // empty: the defaults
  bool peepholes = false;                // lstm
  std::size_t compared = 0;              // the output compared: y, y_h or y_c
  // For the refused cases:
  std::vector<std::int64_t> sequence_lens;  // empty: T each
  bool clip = false;
  bool input_forget = false;
};

std::string name_of(const RecurrentCase& c) {
  std::string name = c.op + "_" + c.direction + "_layout" + std::to_string(c.layout);
  if (c.linear_before_reset != 0) name += "_lbr";
  if (!c.activations.empty()) name += "_" + c.activations.substr(0, c.activations.find(','));
  if (c.peepholes) name += "_peepholes";
  if (c.states == States::kComputed) name += "_initial_states";
  if (c.states == States::kConstant) name += "_constant_initial_states";
  if (c.compared != 0) name += c.compared == 1 ? "_y_h" : "_y_c";
  return name;
}

void PrintTo(const RecurrentCase& c, std::ostream* os) { *os << name_of(c); }

std::int64_t gates(const std::string& op) { return op == "lstm" ? 4 : op == "gru" ? 3 : 1; }

std::string default_activations(const std::string& op, std::int64_t dirs) {
  const std::string one = op == "lstm"  ? "Sigmoid,Tanh,Tanh"
                          : op == "gru" ? "Sigmoid,Tanh"
                                        : "Tanh";
  return dirs == 2 ? one + "," + one : one;
}

// Appends a value to `graph`: an input, a constant (random data seeded by
// its name, or `data`) or a node output.
ValueId add(aot::Graph& graph, std::string name, std::vector<std::int64_t> shape,
            aot::ValueKind kind, std::vector<float> data = {}) {
  aot::Value v;
  v.id = ValueId(static_cast<std::int32_t>(graph.values.size()));
  v.name = std::move(name);
  v.shape = std::move(shape);
  v.kind = kind;
  if (kind == aot::ValueKind::kConstant && data.empty()) {
    data = testing::random_values(static_cast<std::size_t>(v.numel()),
                                  static_cast<std::uint32_t>(v.name.size() * 31 + v.numel()));
  }
  v.data = std::move(data);
  if (kind == aot::ValueKind::kInput) graph.inputs.push_back(v.id);
  graph.values.push_back(std::move(v));
  return graph.values.back().id;
}

// x -> the layer -> y, y_h or y_c (output 0); x and any computed initial state are
// graph inputs. (GraphBuilder makes single-output nodes: the graph is
// written out here.)
aot::Graph recurrent_graph(const RecurrentCase& c) {
  using aot::ValueKind;
  const std::int64_t dirs = c.direction == "bidirectional" ? 2 : 1;
  const std::int64_t g = gates(c.op);
  const std::vector<std::int64_t> state = c.layout == 0
                                              ? std::vector<std::int64_t>{dirs, kBatch, kHidden}
                                              : std::vector<std::int64_t>{kBatch, dirs, kHidden};
  aot::Graph graph;
  aot::Node node;
  node.name = c.op;
  node.op = c.op;
  node.debug_handle = DebugHandle(1);
  node.inputs = {add(graph, "x",
                     c.layout == 0 ? std::vector<std::int64_t>{kSteps, kBatch, kInput}
                                   : std::vector<std::int64_t>{kBatch, kSteps, kInput},
                     ValueKind::kInput),
                 add(graph, "w", {dirs, g * kHidden, kInput}, ValueKind::kConstant),
                 add(graph, "r", {dirs, g * kHidden, kHidden}, ValueKind::kConstant),
                 add(graph, "b", {dirs, 2 * g * kHidden}, ValueKind::kConstant),
                 add(graph, "seq", {kBatch}, ValueKind::kConstant, {0.f})};
  aot::Value& lens = graph.values.back();
  lens.dtype = ScalarType::kLong;
  lens.data.clear();
  lens.int_data =
      c.sequence_lens.empty() ? std::vector<std::int64_t>(kBatch, kSteps) : c.sequence_lens;
  const auto initial = [&](const std::string& name) {
    if (c.states == States::kComputed) return add(graph, name, state, ValueKind::kInput);
    if (c.states == States::kConstant) return add(graph, name, state, ValueKind::kConstant);
    return add(graph, name, state, ValueKind::kConstant,
               std::vector<float>(static_cast<std::size_t>(dirs * kBatch * kHidden), 0.f));
  };
  node.inputs.push_back(initial("h0"));
  if (c.op == "lstm") {
    node.inputs.push_back(initial("c0"));
    node.inputs.push_back(
        c.peepholes ? add(graph, "p", {dirs, 3 * kHidden}, ValueKind::kConstant)
                    : add(graph, "p", {dirs, 3 * kHidden}, ValueKind::kConstant,
                          std::vector<float>(static_cast<std::size_t>(dirs * 3 * kHidden), 0.f)));
  }
  node.attributes = {
      {"hidden_size", kHidden},
      {"direction", c.direction},
      {"layout", c.layout},
      {"activations", c.activations.empty() ? default_activations(c.op, dirs) : c.activations}};
  if (c.op == "gru") node.attributes["linear_before_reset"] = c.linear_before_reset;
  if (c.clip) node.attributes["clip"] = 3.0;
  if (c.input_forget) node.attributes["input_forget"] = std::int64_t{1};
  node.outputs.push_back(add(graph, "y",
                             c.layout == 0
                                 ? std::vector<std::int64_t>{kSteps, dirs, kBatch, kHidden}
                                 : std::vector<std::int64_t>{kBatch, kSteps, dirs, kHidden},
                             ValueKind::kNodeOutput));
  node.outputs.push_back(add(graph, "y_h", state, ValueKind::kNodeOutput));
  if (c.op == "lstm") node.outputs.push_back(add(graph, "y_c", state, ValueKind::kNodeOutput));
  graph.outputs.push_back(node.outputs[c.compared]);
  graph.nodes.push_back(std::move(node));
  const Status ok = aot::verify(graph);
  EXPECT_TRUE(ok.ok()) << ok.message();
  return graph;
}

StatusOr<exporter::ExecutorchProgramManager> export_graph(aot::Graph graph, bool delegated) {
  static OnednnBackend backend;
  exporter::Recipe recipe;
  if (delegated) recipe.partitioners.push_back(make_onednn_partitioner(backend));
  return exporter::export_model(std::move(graph), recipe);
}

RecurrentCase layer(std::string op, std::string direction = "forward", std::int64_t layout = 0,
                    States states = States::kAbsent) {
  RecurrentCase c;
  c.op = std::move(op);
  c.direction = std::move(direction);
  c.layout = layout;
  c.states = states;
  return c;
}

std::vector<RecurrentCase> taken_cases() {
  std::vector<RecurrentCase> cases;
  for (const char* op : {"lstm", "gru", "rnn"}) {
    for (const char* direction : {"forward", "reverse", "bidirectional"}) {
      for (std::int64_t layout : {0, 1}) {
        for (States states : {States::kAbsent, States::kComputed}) {
          RecurrentCase c = layer(op, direction, layout, states);
          cases.push_back(c);
          if (c.op == "gru") {
            c.linear_before_reset = 1;
            cases.push_back(c);
          }
        }
      }
    }
  }
  // The other activations oneDNN's vanilla RNN has, peepholes, and
  // constant initial states (read from the blob).
  cases.push_back(layer("rnn", "bidirectional"));
  cases.back().activations = "Relu,Relu";
  cases.push_back(layer("rnn", "forward", 0, States::kComputed));
  cases.back().activations = "Sigmoid";
  cases.push_back(layer("lstm", "bidirectional", 1, States::kComputed));
  cases.back().peepholes = true;
  cases.push_back(layer("lstm", "forward", 0, States::kAbsent));
  cases.back().peepholes = true;
  cases.push_back(layer("gru", "reverse", 0, States::kConstant));
  cases.back().linear_before_reset = 1;
  cases.push_back(layer("lstm", "bidirectional", 0, States::kConstant));
  // The final states (kRnnState), each direction's in the layer's layout.
  for (std::int64_t layout : {0, 1}) {
    for (std::size_t compared : {1, 2}) {
      cases.push_back(layer("lstm", "bidirectional", layout, States::kComputed));
      cases.back().compared = compared;
    }
    cases.push_back(layer("gru", "reverse", layout, States::kComputed));
    cases.back().compared = 1;
    cases.push_back(layer("rnn", "bidirectional", layout, States::kAbsent));
    cases.back().compared = 1;
  }
  return cases;
}

class OnednnRecurrentTest : public ::testing::TestWithParam<RecurrentCase> {};

INSTANTIATE_TEST_SUITE_P(Layers, OnednnRecurrentTest, ::testing::ValuesIn(taken_cases()),
                         [](const auto& param_info) { return name_of(param_info.param); });

TEST_P(OnednnRecurrentTest, MatchesThePortableKernel) {
  const aot::Graph graph = recurrent_graph(GetParam());
  EXPECT_EQ(onednn_partition_report(graph), std::vector<std::string>{""});
  StatusOr<exporter::ExecutorchProgramManager> delegated = export_graph(graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = export_graph(graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();
  ASSERT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  ASSERT_EQ(register_onednn_backend_runtime(), Error::kOk);

  const testing::DelegatedAndPortable run = testing::run_delegated_and_portable(
      delegated->buffer(), portable->buffer(),
      *delegated->delegate_map().at("forward").begin()->second.delegate_map);
  ASSERT_TRUE(run.error.empty()) << run.error;
  ASSERT_EQ(run.delegated.size(), run.portable.size());
  EXPECT_LT(testing::max_relative_error(run.delegated, run.portable), kTolerance);
  // The layer's event carries an identifier the map gives the layer's node.
  EXPECT_EQ(run.logged.unmapped, 0u);
  EXPECT_EQ(run.logged.handles, std::set<DebugHandle>{graph.nodes.back().debug_handle});
}

TEST(OnednnRecurrentPartitionTest, LeavesWhatOneDnnCannotRunWithAReason) {
  struct Refused {
    RecurrentCase c;
    std::string why;
  };
  std::vector<Refused> refused;
  const auto refuse = [&](RecurrentCase c, std::string why) {
    refused.push_back({std::move(c), std::move(why)});
    return &refused.back().c;
  };
  const std::string fixed = " activations other than the defaults (oneDNN's cell has fixed ones)";
  const std::string vanilla =
      "rnn activation other than one of Tanh, Relu, Sigmoid for every direction (oneDNN's "
      "vanilla RNN has only those)";
  refuse(layer("lstm"),
         "sequence_lens other than T for every sequence (oneDNN's RNN runs every step of every "
         "sequence)")
      ->sequence_lens = {kSteps, 3};
  refuse(layer("lstm"), "lstm" + fixed)->activations = "Sigmoid,Relu,Tanh";
  refuse(layer("gru"), "gru" + fixed)->activations = "HardSigmoid,Tanh";
  refuse(layer("rnn", "bidirectional"), vanilla)->activations = "Tanh,Relu";
  refuse(layer("rnn"), vanilla)->activations = "Softsign";
  refuse(layer("gru"), "clip (oneDNN's RNN cells do not clip)")->clip = true;
  refuse(layer("lstm"), "input_forget=1 (oneDNN's LSTM has no coupled input and forget gate)")
      ->input_forget = true;
  for (const Refused& r : refused) {
    const aot::Graph graph = recurrent_graph(r.c);
    EXPECT_EQ(onednn_partition_report(graph), std::vector<std::string>{r.why}) << name_of(r.c);
  }
}

}  // namespace
}  // namespace glassbox::backends::onednn

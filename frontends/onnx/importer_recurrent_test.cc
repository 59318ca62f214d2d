// LSTM, GRU and RNN import as one IR node each, with every output; their
// numerics are the kernel's (src/runtime/kernels/recurrent_test.cc) and
// ONNX's node suite (conformance_test.cc).

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <variant>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "frontends/onnx/test_run.h"
#include "glassbox/aot/ops.h"

namespace glassbox::frontends::onnx {
namespace {

using testing::ModelWriter;

void set_strings(::onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRINGS);
  for (const std::string& s : v) a->add_strings(s);
}

void set_floats(::onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOATS);
  for (float f : v) a->add_floats(f);
}

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.05f * std::sin(static_cast<float>(i));
  return v;
}

// A bidirectional LSTM over x[T=4, N=2, I=3], hidden 5, weights as
// initializers and no B, sequence_lens, initial states or P.
ModelWriter lstm_model(::onnx::NodeProto** node) {
  ModelWriter m;
  m.input("x", {4, 2, 3}).output("Y").output("Y_h").output("Y_c");
  m.floats("W", {2, 20, 3}, ramp(120)).floats("R", {2, 20, 5}, ramp(200));
  *node = m.node("LSTM", "/encoder/lstm/LSTM", {"x", "W", "R"}, {"Y", "Y_h", "Y_c"});
  ModelWriter::set_string(*node, "direction", "bidirectional");
  ModelWriter::set_int(*node, "hidden_size", 5);
  return m;
}

TEST(ImporterRecurrentTest, LstmIsOneNodeWithEveryOutput) {
  ::onnx::NodeProto* node = nullptr;
  ModelWriter m = lstm_model(&node);
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "lstm.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  ASSERT_EQ(graph->nodes.size(), 1u) << "one source operator, one IR node";
  const aot::Node& lstm = graph->nodes[0];
  EXPECT_EQ(lstm.op, aot::op::kLstm);
  EXPECT_EQ(lstm.name, "/encoder/lstm/LSTM");
  EXPECT_TRUE(lstm.debug_handle.is_set());
  ASSERT_EQ(lstm.inputs.size(), 8u) << "absent inputs become constants";
  ASSERT_EQ(lstm.outputs.size(), 3u);
  const std::vector<std::vector<std::int64_t>> shapes = {{4, 2, 2, 5}, {2, 2, 5}, {2, 2, 5}};
  for (std::size_t o = 0; o < 3; ++o) {
    EXPECT_EQ(graph->find_value(lstm.outputs[o])->shape, shapes[o]) << o;
    EXPECT_EQ(graph->outputs[o], lstm.outputs[o]) << o;
  }
  EXPECT_EQ(graph->find_value(lstm.outputs[1])->name, "Y_h");
  const aot::Value* lens = graph->find_value(lstm.inputs[4]);
  EXPECT_EQ(lens->dtype, ScalarType::kLong);
  EXPECT_EQ(lens->int_data, (std::vector<std::int64_t>{4, 4})) << "full length";
  const aot::Value* h0 = graph->find_value(lstm.inputs[5]);
  EXPECT_EQ(h0->shape, (std::vector<std::int64_t>{2, 2, 5}));
  EXPECT_EQ(h0->data, std::vector<float>(20, 0.0f));
  EXPECT_EQ(std::get<std::string>(lstm.attributes.at("activations")),
            "Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh");
  EXPECT_EQ(std::get<std::string>(lstm.attributes.at("direction")), "bidirectional");
}

TEST(ImporterRecurrentTest, RunsOnThePortableKernelAndTheRuntimeChecksActivations) {
  ::onnx::NodeProto* node = nullptr;
  ModelWriter m = lstm_model(&node);
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "lstm.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::vector<float> x(24);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  StatusOr<testing::Output> y = testing::run(*graph, {testing::bytes_of(x)});
  ASSERT_TRUE(y.ok()) << y.message();
  ASSERT_EQ(y->shape, (std::vector<std::int64_t>{4, 2, 2, 5}));
  double sum = 0;
  for (double v : y->values) sum += std::abs(v);
  EXPECT_GT(sum, 0.01) << "the layer computes something";
  // A graph naming an activation the kernel lacks is refused at load.
  graph->nodes[0].attributes["activations"] = std::string("Sigmoid,Tanh,Tanh,Sigmoid,Swish,Tanh");
  StatusOr<testing::Output> refused = testing::run(*graph, {testing::bytes_of(x)});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("lstm: activations"), std::string::npos) << refused.message();
}

TEST(ImporterRecurrentTest, AlphaAndBetaGoInOrderToTheFunctionsThatTakeThem) {
  ::onnx::NodeProto* node = nullptr;
  ModelWriter m = lstm_model(&node);
  set_strings(node, "activations",
              {"HardSigmoid", "LeakyRelu", "Tanh", "Sigmoid", "Affine", "Elu"});
  set_floats(node, "activation_alpha", {0.3f, 0.05f, 2.0f});
  set_floats(node, "activation_beta", {0.4f});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "lstm.onnx");
  ASSERT_TRUE(graph.ok()) << graph.message();
  const aot::AttributeMap& a = graph->nodes[0].attributes;
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("activation_alpha_0")), 0.3f);
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("activation_beta_0")), 0.4f);
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("activation_alpha_1")), 0.05f);
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("activation_alpha_4")), 2.0f);
  // The lists ran out: Affine's beta and Elu's alpha are ONNX's defaults.
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("activation_beta_4")), 0.0);
  EXPECT_DOUBLE_EQ(std::get<double>(a.at("activation_alpha_5")), 1.0);
  EXPECT_FALSE(a.contains("activation_alpha_2")) << "Tanh takes no alpha";
}

TEST(ImporterRecurrentTest, RefusesAnActivationItDoesNotHaveNamingTheNode) {
  ::onnx::NodeProto* node = nullptr;
  ModelWriter m = lstm_model(&node);
  set_strings(node, "activations", {"Sigmoid", "Gelu", "Tanh"});
  StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "lstm.onnx");
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.error(), Error::kNotSupported);
  EXPECT_NE(graph.message().find("/encoder/lstm/LSTM"), std::string::npos) << graph.message();
  EXPECT_NE(graph.message().find("activation 'Gelu' is not supported"), std::string::npos)
      << graph.message();
}

TEST(ImporterRecurrentTest, GruAndRnnWithOnlyTheirLastState) {
  for (const char* op : {"GRU", "RNN"}) {
    const std::int64_t gates = std::string(op) == "GRU" ? 3 : 1;
    ModelWriter m;
    m.input("x", {2, 6, 3}).output("Y_h");
    m.floats("W", {1, gates * 4, 3}, ramp(static_cast<std::size_t>(gates * 12)))
        .floats("R", {1, gates * 4, 4}, ramp(static_cast<std::size_t>(gates * 16)));
    ::onnx::NodeProto* n = m.node(op, "rnn_0", {"x", "W", "R"}, {"", "Y_h"});
    ModelWriter::set_int(n, "hidden_size", 4);
    ModelWriter::set_int(n, "layout", 1);
    ModelWriter::set_string(n, "direction", "reverse");
    StatusOr<aot::Graph> graph = import_onnx_from_memory(m.bytes(), {}, "rnn.onnx");
    ASSERT_TRUE(graph.ok()) << op << ": " << graph.message();
    ASSERT_EQ(graph->nodes.size(), 1u) << op;
    ASSERT_EQ(graph->nodes[0].outputs.size(), 2u) << op;
    ASSERT_EQ(graph->outputs.size(), 1u);
    EXPECT_EQ(graph->outputs[0], graph->nodes[0].outputs[1]) << op;
    EXPECT_EQ(graph->find_value(graph->outputs[0])->shape, (std::vector<std::int64_t>{2, 1, 4}))
        << op << ": layout 1 puts the batch first";
  }
}

}  // namespace
}  // namespace glassbox::frontends::onnx

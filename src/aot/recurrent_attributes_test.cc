// The one reader of a recurrent node's attributes (recurrent_attributes.cc):
// what each cell gets by default, the activation list per direction and
// the message for each bad attribute.

#include "glassbox/aot/recurrent_attributes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

using K = RecurrentActivationKind;

AttributeMap attrs(std::string direction, std::string activations) {
  return {{"hidden_size", std::int64_t{4}},
          {"direction", std::move(direction)},
          {"activations", std::move(activations)}};
}

std::vector<K> kinds(const RecurrentAttributes& a) {
  std::vector<K> out;
  for (const RecurrentActivation& f : a.activations) out.push_back(f.kind);
  return out;
}

TEST(RecurrentAttributesTest, EachCellGetsItsGatesInputsAndDefaults) {
  StatusOr<RecurrentAttributes> lstm =
      read_recurrent_attributes(op::kLstm, attrs("forward", "Sigmoid,Tanh,Tanh"));
  ASSERT_TRUE(lstm.ok()) << lstm.message();
  EXPECT_EQ(lstm->kind, RecurrentKind::kLstm);
  EXPECT_EQ(lstm->direction, RecurrentDirection::kForward);
  EXPECT_EQ(lstm->num_directions, 1);
  EXPECT_EQ(lstm->hidden_size, 4);
  EXPECT_EQ(lstm->gate_count, 4);
  EXPECT_EQ(lstm->activations_per_direction(), 3u);
  EXPECT_FALSE(lstm->batch_major) << "layout defaults to 0";
  EXPECT_FALSE(lstm->clip.has_value());
  EXPECT_FALSE(lstm->input_forget);
  EXPECT_FALSE(lstm->linear_before_reset);
  EXPECT_EQ(lstm->inputs.sequence_lens, 4u);
  EXPECT_EQ(lstm->inputs.initial_h, 5u);
  EXPECT_EQ(lstm->inputs.initial_c, 6u);
  EXPECT_EQ(lstm->inputs.peepholes, 7u);
  EXPECT_EQ(lstm->inputs.count, 8u);

  StatusOr<RecurrentAttributes> gru =
      read_recurrent_attributes(op::kGru, attrs("reverse", "Sigmoid,Tanh"));
  ASSERT_TRUE(gru.ok()) << gru.message();
  EXPECT_EQ(gru->kind, RecurrentKind::kGru);
  EXPECT_EQ(gru->direction, RecurrentDirection::kReverse);
  EXPECT_EQ(gru->gate_count, 3);
  EXPECT_EQ(gru->activations_per_direction(), 2u);
  EXPECT_FALSE(gru->inputs.initial_c.has_value());
  EXPECT_FALSE(gru->inputs.peepholes.has_value());
  EXPECT_EQ(gru->inputs.count, 6u);

  StatusOr<RecurrentAttributes> rnn = read_recurrent_attributes(op::kRnn, attrs("forward", "Relu"));
  ASSERT_TRUE(rnn.ok()) << rnn.message();
  EXPECT_EQ(rnn->kind, RecurrentKind::kRnn);
  EXPECT_EQ(rnn->gate_count, 1);
  EXPECT_EQ(kinds(*rnn), std::vector<K>{K::kRelu});

  EXPECT_FALSE(recurrent_kind(op::kLinear).has_value());
  EXPECT_FALSE(read_recurrent_attributes(op::kLinear, attrs("forward", "Tanh")).ok());
}

TEST(RecurrentAttributesTest, ReadsTheOptionalAttributesOfTheCellTheyBelongTo) {
  AttributeMap a = attrs("forward", "Sigmoid,Tanh");
  a["layout"] = std::int64_t{1};
  a["clip"] = 2.5;
  a["linear_before_reset"] = std::int64_t{1};
  a["input_forget"] = std::int64_t{1};
  StatusOr<RecurrentAttributes> gru = read_recurrent_attributes(op::kGru, a);
  ASSERT_TRUE(gru.ok()) << gru.message();
  EXPECT_TRUE(gru->batch_major);
  EXPECT_EQ(gru->clip, 2.5);
  EXPECT_TRUE(gru->linear_before_reset);
  EXPECT_FALSE(gru->input_forget) << "input_forget is the lstm's";

  AttributeMap l = attrs("forward", "Sigmoid,Tanh,Tanh");
  l["input_forget"] = std::int64_t{1};
  l["linear_before_reset"] = std::int64_t{1};
  StatusOr<RecurrentAttributes> lstm = read_recurrent_attributes(op::kLstm, l);
  ASSERT_TRUE(lstm.ok()) << lstm.message();
  EXPECT_TRUE(lstm->input_forget);
  EXPECT_FALSE(lstm->linear_before_reset) << "linear_before_reset is the gru's";
}

TEST(RecurrentAttributesTest, ListsTheCellsFunctionsOncePerDirection) {
  StatusOr<RecurrentAttributes> lstm = read_recurrent_attributes(
      op::kLstm, attrs("bidirectional", "Sigmoid,Tanh,Tanh,HardSigmoid,tanh,Relu"));
  ASSERT_TRUE(lstm.ok()) << lstm.message();
  EXPECT_EQ(lstm->num_directions, 2);
  EXPECT_EQ(kinds(*lstm),
            (std::vector<K>{K::kSigmoid, K::kTanh, K::kTanh, K::kHardSigmoid, K::kTanh, K::kRelu}))
      << "names compare ignoring case, as the runtime's";
  StatusOr<RecurrentAttributes> gru =
      read_recurrent_attributes(op::kGru, attrs("bidirectional", "Sigmoid,Tanh,Sigmoid,Tanh"));
  ASSERT_TRUE(gru.ok()) << gru.message();
  EXPECT_EQ(gru->activations.size(), 4u);
  StatusOr<RecurrentAttributes> rnn =
      read_recurrent_attributes(op::kRnn, attrs("bidirectional", "Tanh,Sigmoid"));
  ASSERT_TRUE(rnn.ok()) << rnn.message();
  EXPECT_EQ(kinds(*rnn), (std::vector<K>{K::kTanh, K::kSigmoid}));
  EXPECT_EQ(to_string(K::kLeakyRelu), "LeakyRelu");
}

TEST(RecurrentAttributesTest, ParametersComeFromTheAttributesOrOnnxDefaults) {
  AttributeMap a = attrs("forward", "HardSigmoid,LeakyRelu,Affine");
  a["activation_alpha_0"] = 0.25;
  a["activation_beta_2"] = 3.0;
  StatusOr<RecurrentAttributes> lstm = read_recurrent_attributes(op::kLstm, a);
  ASSERT_TRUE(lstm.ok()) << lstm.message();
  EXPECT_EQ(lstm->activations[0], (RecurrentActivation{K::kHardSigmoid, 0.25f, 0.5f}));
  EXPECT_EQ(lstm->activations[1], (RecurrentActivation{K::kLeakyRelu, 0.01f, 0.0f}));
  EXPECT_EQ(lstm->activations[2], (RecurrentActivation{K::kAffine, 1.0f, 3.0f}));
}

TEST(RecurrentAttributesTest, RefusesABadAttributeWithOneMessage) {
  struct Case {
    const char* what;
    std::string op;
    AttributeMap attrs;
    const char* message;
  };
  const auto with = [](AttributeMap a, const std::string& key, AttributeValue v) {
    a[key] = std::move(v);
    return a;
  };
  const AttributeMap lstm = attrs("forward", "Sigmoid,Tanh,Tanh");
  const std::vector<Case> cases = {
      {"three functions for two directions", "lstm", attrs("bidirectional", "Sigmoid,Tanh,Tanh"),
       "lstm: activations 'Sigmoid,Tanh,Tanh' must list 6 functions"},
      {"two functions for one rnn direction", "rnn", attrs("forward", "Tanh,Tanh"),
       "rnn: activations 'Tanh,Tanh' must list 1 functions"},
      {"a function ONNX does not list", "gru", attrs("forward", "Sigmoid,Swish"),
       "gru: activations 'Sigmoid,Swish': 'Swish' is not one of Sigmoid, Tanh, Relu, Affine, "
       "LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus"},
      {"an unknown direction", "lstm", with(lstm, "direction", std::string("both")),
       "lstm: direction 'both' is not one of \"forward\", \"reverse\", \"bidirectional\""},
      {"no hidden_size", "lstm",
       AttributeMap{{"direction", std::string("forward")},
                    {"activations", std::string("Sigmoid,Tanh,Tanh")}},
       "lstm: missing int attribute 'hidden_size'"},
      {"a zero hidden_size", "lstm", with(lstm, "hidden_size", std::int64_t{0}),
       "lstm: hidden_size must be >= 1"},
      {"a negative clip", "lstm", with(lstm, "clip", -1.0),
       "lstm: clip must be positive and finite"},
      {"layout 2", "lstm", with(lstm, "layout", std::int64_t{2}),
       "lstm: attribute 'layout' must be 0 or 1"},
      {"a string alpha", "lstm", with(lstm, "activation_alpha_1", std::string("x")),
       "lstm: attribute 'activation_alpha_1' is not a float"},
  };
  for (const Case& c : cases) {
    StatusOr<RecurrentAttributes> a = read_recurrent_attributes(c.op, c.attrs);
    ASSERT_FALSE(a.ok()) << c.what;
    EXPECT_EQ(a.error(), Error::kInvalidArgument) << c.what;
    EXPECT_EQ(a.message(), c.message) << c.what;
  }
}

TEST(RecurrentAttributesTest, ShapeInferenceRefusesWhatTheReaderRefuses) {
  // A bad activation name stops the graph at verify, before any delegate
  // or the runtime sees it.
  const std::vector<TensorType> in = {
      {ScalarType::kFloat, {3, 1, 2}}, {ScalarType::kFloat, {1, 4, 2}},
      {ScalarType::kFloat, {1, 4, 4}}, {ScalarType::kFloat, {1, 8}},
      {ScalarType::kLong, {1}},        {ScalarType::kFloat, {1, 1, 4}}};
  EXPECT_TRUE(infer_output_types(op::kRnn, in, attrs("forward", "Tanh")).ok());
  StatusOr<std::vector<TensorType>> t = infer_output_types(op::kRnn, in, attrs("forward", "Gelu"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("rnn: activations 'Gelu': 'Gelu' is not one of"), std::string::npos)
      << t.message();
}

}  // namespace
}  // namespace glassbox::aot

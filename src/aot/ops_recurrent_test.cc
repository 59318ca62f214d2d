// Shape rules of lstm, gru and rnn (ops_recurrent.cc) and the several-output
// check of verify().

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

using Shape = std::vector<std::int64_t>;

TensorType f(Shape s) { return {ScalarType::kFloat, std::move(s)}; }

// A bidirectional lstm over x[T=5, N=2, I=3], hidden 4.
std::vector<TensorType> lstm_inputs(bool batch_major) {
  const Shape state = batch_major ? Shape{2, 2, 4} : Shape{2, 2, 4};
  return {f(batch_major ? Shape{2, 5, 3} : Shape{5, 2, 3}),
          f({2, 16, 3}),
          f({2, 16, 4}),
          f({2, 32}),
          {ScalarType::kLong, {2}},
          f(state),
          f(state),
          f({2, 12})};
}

AttributeMap lstm_attrs(std::int64_t layout) {
  return {{"hidden_size", std::int64_t{4}},
          {"direction", std::string("bidirectional")},
          {"layout", layout},
          {"activations", std::string("Sigmoid,Tanh,Tanh,Sigmoid,Tanh,Tanh")}};
}

TEST(OpsRecurrentTest, LstmGivesYAndBothStatesInEitherLayout) {
  StatusOr<std::vector<TensorType>> t0 =
      infer_output_types(op::kLstm, lstm_inputs(false), lstm_attrs(0));
  ASSERT_TRUE(t0.ok()) << t0.message();
  ASSERT_EQ(t0->size(), 3u);
  EXPECT_EQ((*t0)[0].shape, (Shape{5, 2, 2, 4}));
  EXPECT_EQ((*t0)[1].shape, (Shape{2, 2, 4}));
  EXPECT_EQ((*t0)[2].shape, (Shape{2, 2, 4}));
  StatusOr<std::vector<TensorType>> t1 =
      infer_output_types(op::kLstm, lstm_inputs(true), lstm_attrs(1));
  ASSERT_TRUE(t1.ok()) << t1.message();
  EXPECT_EQ((*t1)[0].shape, (Shape{2, 5, 2, 4})) << "layout 1: [N, T, D, H]";
  // infer_output_type gives y.
  StatusOr<TensorType> y = infer_output_type(op::kLstm, lstm_inputs(false), lstm_attrs(0));
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape, (Shape{5, 2, 2, 4}));
  EXPECT_TRUE(is_recurrent_op(op::kGru));
  EXPECT_FALSE(is_recurrent_op(op::kLinear));
}

TEST(OpsRecurrentTest, RefusesWrongShapesDtypesAndAttributes) {
  struct Case {
    const char* what;
    std::vector<TensorType> in;
    AttributeMap attrs;
    const char* fragment;
  };
  std::vector<Case> cases;
  {
    Case c{"w for one direction", lstm_inputs(false), lstm_attrs(0), "weight w"};
    c.in[1] = f({1, 16, 3});
    cases.push_back(c);
  }
  {
    Case c{"int32 sequence_lens", lstm_inputs(false), lstm_attrs(0), "input 4 has dtype INT"};
    c.in[4].dtype = ScalarType::kInt;
    cases.push_back(c);
  }
  {
    Case c{"three activations for two directions", lstm_inputs(false), lstm_attrs(0),
           "must list 6 functions"};
    c.attrs["activations"] = std::string("Sigmoid,Tanh,Tanh");
    cases.push_back(c);
  }
  {
    Case c{"a negative clip", lstm_inputs(false), lstm_attrs(0), "clip must be positive"};
    c.attrs["clip"] = -1.0;
    cases.push_back(c);
  }
  {
    Case c{"an unknown direction", lstm_inputs(false), lstm_attrs(0), "direction 'both'"};
    c.attrs["direction"] = std::string("both");
    cases.push_back(c);
  }
  {
    Case c{"no peepholes input", lstm_inputs(false), lstm_attrs(0), "takes 8 inputs"};
    c.in.pop_back();
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    StatusOr<std::vector<TensorType>> t = infer_output_types(op::kLstm, c.in, c.attrs);
    ASSERT_FALSE(t.ok()) << c.what;
    EXPECT_NE(t.message().find(c.fragment), std::string::npos) << c.what << ": " << t.message();
  }
}

TEST(OpsRecurrentTest, VerifyWantsEveryOutput) {
  // An rnn node declared with only y: verify names the count.
  Graph g;
  const std::vector<std::pair<Shape, ScalarType>> inputs = {
      {{3, 1, 2}, ScalarType::kFloat}, {{1, 4, 2}, ScalarType::kFloat},
      {{1, 4, 4}, ScalarType::kFloat}, {{1, 8}, ScalarType::kFloat},
      {{1}, ScalarType::kLong},        {{1, 1, 4}, ScalarType::kFloat}};
  Node node;
  node.name = "rnn_0";
  node.op = std::string(op::kRnn);
  node.attributes = {{"hidden_size", std::int64_t{4}},
                     {"direction", std::string("forward")},
                     {"activations", std::string("Tanh")}};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Value v;
    v.id = ValueId(static_cast<std::int32_t>(i));
    v.name = "in" + std::to_string(i);
    v.shape = inputs[i].first;
    v.dtype = inputs[i].second;
    v.kind = ValueKind::kInput;
    g.values.push_back(v);
    g.inputs.push_back(v.id);
    node.inputs.push_back(v.id);
  }
  Value y;
  y.id = ValueId(6);
  y.name = "y";
  y.shape = {3, 1, 1, 4};
  g.values.push_back(y);
  node.outputs.push_back(y.id);
  g.nodes.push_back(node);
  g.outputs.push_back(y.id);
  Status s = verify(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("must have exactly 2 outputs"), std::string::npos) << s.message();
  Value y_h;
  y_h.id = ValueId(7);
  y_h.name = "y_h";
  y_h.shape = {1, 1, 4};
  g.values.push_back(y_h);
  g.nodes[0].outputs.push_back(y_h.id);
  EXPECT_TRUE(verify(g).ok()) << verify(g).message();
}

}  // namespace
}  // namespace glassbox::aot

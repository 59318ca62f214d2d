// verify() and the shape rules of ops.h, on graphs built and then broken.
#include "glassbox/aot/graph.h"

#include <gtest/gtest.h>

#include <limits>

#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/ops.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

constexpr int64_t kWidth = 4;

// x -> relu -> sin -> (output), plus a 2-element constant.
Graph chain() {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kWidth});
  b.constant("k", {2}, {1.0f, 2.0f});
  b.output(b.sin(b.relu(x)));
  StatusOr<Graph> graph = b.build();
  EXPECT_THAT(graph, IsOk());
  return std::move(graph).value();
}

TEST(VerifyTest, AcceptsBuiltGraph) { EXPECT_THAT(verify(chain()), IsOk()); }

TEST(VerifyTest, RejectsUseBeforeDefinition) {
  Graph graph = chain();
  std::swap(graph.nodes[0], graph.nodes[1]);
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument,
                                     {"node 0 'sin' (sin)", "used before it is defined"}));
}

TEST(VerifyTest, RejectsSecondAssignment) {
  Graph graph = chain();
  graph.nodes[1].outputs = graph.nodes[0].outputs;
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"'sin'", "assigned twice"}));
}

TEST(VerifyTest, RejectsUnknownValueIds) {
  constexpr ValueId kDangling(99);
  Graph graph = chain();
  graph.nodes[0].inputs[0] = kDangling;
  EXPECT_THAT(verify(graph),
              ErrorIs(Error::kInvalidArgument, {"'relu'", "value 99 does not exist"}));
  graph = chain();
  graph.outputs.push_back(kDangling);
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"graph output value 99"}));
  graph = chain();
  graph.inputs.push_back(kDangling);
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"graph input value 99"}));
}

TEST(VerifyTest, RejectsOutputNobodyProduces) {
  Graph graph = chain();
  graph.nodes.pop_back();
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"'sin'", "no node produces"}));
}

TEST(VerifyTest, RejectsDeclaredTypeThatDisagreesWithTheOp) {
  Graph graph = chain();
  graph.find_value(graph.nodes[0].outputs[0])->shape = {kWidth + 1};
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument,
                                     {"'relu'", "declared FLOAT[5]", "produces FLOAT[4]"}));
  graph = chain();
  graph.find_value(graph.nodes[0].outputs[0])->dtype = ScalarType::kDouble;
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"declared DOUBLE[4]"}));
}

TEST(VerifyTest, RejectsUnknownOpAndBadArity) {
  Graph graph = chain();
  graph.nodes[0].op = "frobnicate";
  EXPECT_THAT(verify(graph),
              ErrorIs(Error::kInvalidArgument, {"'relu' (frobnicate)", "unknown op"}));
  graph = chain();
  graph.nodes[0].inputs.push_back(graph.inputs[0]);
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"relu takes 1 inputs, got 2"}));
}

TEST(VerifyTest, RejectsDuplicateNamesAndIds) {
  Graph graph = chain();
  graph.nodes[1].name = graph.nodes[0].name;
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"duplicate node name"}));
  graph = chain();
  graph.values[1].id = graph.values[0].id;
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"duplicate value id"}));
  graph = chain();
  graph.values[1].name = graph.values[0].name;
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"duplicate value name"}));
}

TEST(VerifyTest, RejectsInconsistentValueKinds) {
  Graph graph = chain();
  graph.inputs.clear();
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"'x' is an input but not in"}));
  graph = chain();
  graph.inputs.push_back(graph.values[1].id);  // The constant.
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"is a constant value"}));
  graph = chain();
  graph.nodes[0].outputs = {graph.inputs[0]};
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"is a input value"}));
}

TEST(VerifyTest, ChecksConstantData) {
  Graph graph = chain();
  Value& constant = graph.values[1];
  constant.data.push_back(3.0f);
  EXPECT_THAT(verify(graph),
              ErrorIs(Error::kInvalidArgument, {"'k'", "3 elements of data", "needs 2"}));
  constant.data.clear();  // Data not recorded is fine (JSON without data).
  EXPECT_THAT(verify(graph), IsOk());
}

TEST(VerifyTest, DelegateCallNeedsItsPayload) {
  Graph graph = chain();
  graph.nodes[0].op = std::string(op::kDelegateCall);
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"without a delegate payload"}));
  graph.nodes[0].delegate = DelegateCall{"fake", {}, {}, DebugHandleMap{{int64_t{0}, {}}}};
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"no debug handles"}));
  graph.nodes[0].delegate->debug_handle_map = std::nullopt;
  EXPECT_THAT(verify(graph), IsOk());
  graph.nodes[1].delegate = DelegateCall{"fake", {}, {}, std::nullopt};
  EXPECT_THAT(verify(graph), ErrorIs(Error::kInvalidArgument, {"payload on a non-delegate op"}));
}

TEST(GraphTest, FindsValuesAndNodes) {
  Graph graph = chain();
  EXPECT_EQ(graph.find_value(graph.inputs[0])->name, "x");
  EXPECT_EQ(graph.find_value(ValueId(1000)), nullptr);
  EXPECT_EQ(graph.find_node("sin")->op, op::kSin);
  EXPECT_EQ(graph.find_node("nope"), nullptr);
  EXPECT_EQ(graph.next_value_id(), ValueId(static_cast<int32_t>(graph.values.size())));
  // Lookup still works when ids are no longer dense indices.
  graph.values.erase(graph.values.begin());
  EXPECT_EQ(graph.find_value(graph.nodes[1].outputs[0])->name, "sin");
}

// Shape rules not reachable through a mistake in GraphBuilder's typed API.
TEST(InferOutputTypeTest, RejectsBadAttributes) {
  const std::vector<TensorType> image{{ScalarType::kFloat, {1, 1, kWidth, kWidth}}};
  EXPECT_THAT(infer_output_type(op::kMaxPool2d, image, {}),
              ErrorIs(Error::kInvalidArgument, {"missing int list attribute 'kernel'"}));
  const AttributeMap big_padding = {{"kernel", std::vector<int64_t>{2, 2}},
                                    {"stride", std::vector<int64_t>{1, 1}},
                                    {"padding", std::vector<int64_t>{2, 2}}};
  EXPECT_THAT(infer_output_type(op::kMaxPool2d, image, big_padding),
              ErrorIs(Error::kInvalidArgument, {"half the kernel"}));
  EXPECT_THAT(infer_output_type(op::kSoftmax, image, {{"axis", int64_t{4}}}),
              ErrorIs(Error::kInvalidArgument, {"softmax axis 4 out of range"}));
  EXPECT_THAT(infer_output_type(op::kClamp, image, {{"min", 1.0}, {"max", 0.0}}),
              ErrorIs(Error::kInvalidArgument, {"min must be <= max"}));
  EXPECT_THAT(infer_output_type(op::kClamp, image, {{"min", int64_t{0}}, {"max", 1.0}}),
              ErrorIs(Error::kInvalidArgument, {"'min' is not a float"}));
  EXPECT_THAT(infer_output_type(op::kReshape, image, {{"shape", std::vector<int64_t>{-1, -1}}}),
              ErrorIs(Error::kInvalidArgument, {"bad dimension"}));
  EXPECT_THAT(infer_output_type(op::kReshape, image, {{"shape", std::vector<int64_t>{3}}}),
              ErrorIs(Error::kInvalidArgument, {"cannot reshape"}));
  EXPECT_THAT(infer_output_type(op::kConcat, {}, {{"axis", int64_t{0}}}),
              ErrorIs(Error::kInvalidArgument, {"concat takes 1 or more inputs, got 0"}));
  EXPECT_THAT(infer_output_type(op::kDelegateCall, image, {}),
              ErrorIs(Error::kInvalidArgument, {"unknown op 'delegate_call'"}));
}

TEST(InferOutputTypeTest, RejectsWindowLargerThanInput) {
  const std::vector<TensorType> in{{ScalarType::kFloat, {1, 1, 2, 2}},
                                   {ScalarType::kFloat, {1, 1, 3, 3}}};
  const AttributeMap attrs = {{"stride", std::vector<int64_t>{1, 1}},
                              {"padding", std::vector<int64_t>{0, 0}},
                              {"dilation", std::vector<int64_t>{1, 1}},
                              {"groups", int64_t{1}}};
  EXPECT_THAT(infer_output_type(op::kConv2d, in, attrs),
              ErrorIs(Error::kInvalidArgument, {"window 3 larger than padded input 2"}));
}

TEST(InferOutputTypeTest, MatmulBroadcastsBatchDims) {
  constexpr int64_t kBatch = 3;
  const std::vector<TensorType> in{{ScalarType::kFloat, {kBatch, 1, 2, kWidth}},
                                   {ScalarType::kFloat, {kWidth, 5}}};
  StatusOr<TensorType> out = infer_output_type(op::kMatmul, in, {});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{kBatch, 1, 2, 5}));
}

TEST(InferOutputTypeTest, FlattenRangeAndGroupedConv) {
  const std::vector<TensorType> x{{ScalarType::kFloat, {2, 3, 4, 5}}};
  StatusOr<TensorType> flat =
      infer_output_type(op::kFlatten, x, {{"start_dim", int64_t{1}}, {"end_dim", int64_t{2}}});
  ASSERT_THAT(flat, IsOk());
  EXPECT_EQ(flat->shape, (std::vector<int64_t>{2, 12, 5}));

  constexpr int64_t kGroups = 2;
  const std::vector<TensorType> conv_in{{ScalarType::kFloat, {1, 4, 3, 3}},
                                        {ScalarType::kFloat, {6, 4 / kGroups, 1, 1}}};
  const AttributeMap attrs = {{"stride", std::vector<int64_t>{1, 1}},
                              {"padding", std::vector<int64_t>{0, 0}},
                              {"dilation", std::vector<int64_t>{1, 1}},
                              {"groups", kGroups}};
  StatusOr<TensorType> conv = infer_output_type(op::kConv2d, conv_in, attrs);
  ASSERT_THAT(conv, IsOk());
  EXPECT_EQ(conv->shape, (std::vector<int64_t>{1, 6, 3, 3}));
}

}  // namespace
}  // namespace glassbox::aot

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

// ONNX-driven op extensions: transpose, hardsigmoid, optional clamp bounds,
// per-side pool/conv padding, ceil_mode and count_include_pad.
TEST(InferOutputTypeTest, TransposePermutesDims) {
  const std::vector<TensorType> x{{ScalarType::kFloat, {2, 3, 4}}};
  StatusOr<TensorType> out =
      infer_output_type(op::kTranspose, x, {{"perm", std::vector<int64_t>{2, 0, 1}}});
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{4, 2, 3}));
  EXPECT_THAT(infer_output_type(op::kTranspose, x, {{"perm", std::vector<int64_t>{0, 0, 1}}}),
              ErrorIs(Error::kInvalidArgument, {"not a permutation"}));
  EXPECT_THAT(infer_output_type(op::kTranspose, x, {{"perm", std::vector<int64_t>{1, 0}}}),
              ErrorIs(Error::kInvalidArgument, {"does not match rank 3"}));
}

TEST(InferOutputTypeTest, HardsigmoidNeedsFiniteAlphaAndBeta) {
  const std::vector<TensorType> x{{ScalarType::kFloat, {2, 3}}};
  EXPECT_THAT(infer_output_type(op::kHardsigmoid, x, {{"alpha", 0.2}, {"beta", 0.5}}), IsOk());
  EXPECT_THAT(infer_output_type(op::kHardsigmoid, x, {{"alpha", 0.2}}),
              ErrorIs(Error::kInvalidArgument, {"'beta'"}));
  EXPECT_THAT(
      infer_output_type(op::kHardsigmoid, x,
                        {{"alpha", std::numeric_limits<double>::infinity()}, {"beta", 0.5}}),
      ErrorIs(Error::kInvalidArgument, {"finite"}));
}

TEST(InferOutputTypeTest, ClampBoundsAreOptional) {
  const std::vector<TensorType> x{{ScalarType::kFloat, {2}}};
  EXPECT_THAT(infer_output_type(op::kClamp, x, {}), IsOk());
  EXPECT_THAT(infer_output_type(op::kClamp, x, {{"min", 0.0}}), IsOk());
  EXPECT_THAT(infer_output_type(op::kClamp, x, {{"max", 0.0}}), IsOk());
}

TEST(InferOutputTypeTest, PoolTakesPerSidePaddingAndCeilMode) {
  const std::vector<TensorType> image{{ScalarType::kFloat, {1, 1, 5, 5}}};
  AttributeMap attrs = {{"kernel", std::vector<int64_t>{2, 2}},
                        {"stride", std::vector<int64_t>{2, 2}},
                        {"padding", std::vector<int64_t>{0, 0, 1, 1}}};
  // (5 + 0 + 1 - 2) / 2 + 1 = 3 both ways.
  ASSERT_THAT(infer_output_type(op::kMaxPool2d, image, attrs), IsOk());
  EXPECT_EQ(infer_output_type(op::kMaxPool2d, image, attrs)->shape,
            (std::vector<int64_t>{1, 1, 3, 3}));
  attrs["padding"] = std::vector<int64_t>{0, 0, 0, 0};
  attrs["ceil_mode"] = int64_t{1};
  // ceil((5 - 2) / 2) + 1 = 3; the last window starts at 4 < 5, so it stays.
  EXPECT_EQ(infer_output_type(op::kMaxPool2d, image, attrs)->shape,
            (std::vector<int64_t>{1, 1, 3, 3}));
  attrs["count_include_pad"] = int64_t{0};
  EXPECT_THAT(infer_output_type(op::kAvgPool2d, image, attrs), IsOk());
  EXPECT_THAT(infer_output_type(op::kMaxPool2d, image, attrs),
              ErrorIs(Error::kInvalidArgument, {"no attribute 'count_include_pad'"}));
  attrs.erase("count_include_pad");
  attrs["dilation"] = std::vector<int64_t>{2, 2};
  EXPECT_THAT(infer_output_type(op::kMaxPool2d, image, attrs), IsOk());
  EXPECT_THAT(infer_output_type(op::kAvgPool2d, image, attrs),
              ErrorIs(Error::kInvalidArgument, {"no attribute 'dilation'"}));
  attrs.erase("dilation");
  attrs["padding"] = std::vector<int64_t>{2, 0, 0, 0};
  EXPECT_THAT(infer_output_type(op::kMaxPool2d, image, attrs),
              ErrorIs(Error::kInvalidArgument, {"not smaller than the window"}));
  attrs["padding"] = std::vector<int64_t>{1, 1, 1};
  EXPECT_THAT(infer_output_type(op::kMaxPool2d, image, attrs),
              ErrorIs(Error::kInvalidArgument, {"2 or 4 entries"}));
}

TEST(InferOutputTypeTest, ConvTakesPerSidePadding) {
  const std::vector<TensorType> in{{ScalarType::kFloat, {1, 1, 5, 5}},
                                   {ScalarType::kFloat, {2, 1, 3, 3}}};
  const AttributeMap attrs = {{"stride", std::vector<int64_t>{1, 1}},
                              {"padding", std::vector<int64_t>{1, 0, 0, 1}},
                              {"dilation", std::vector<int64_t>{1, 1}},
                              {"groups", int64_t{1}}};
  StatusOr<TensorType> out = infer_output_type(op::kConv2d, in, attrs);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{1, 2, 4, 4}));
}

TEST(InferOutputTypeTest, ConvAndPoolsOfOneAndThreeSpatialDims) {
  const std::vector<TensorType> line{
      {ScalarType::kFloat, {2, 4, 20}}, {ScalarType::kFloat, {6, 2, 5}}, {ScalarType::kFloat, {6}}};
  AttributeMap conv = {{"stride", std::vector<int64_t>{3}},
                       {"padding", std::vector<int64_t>{2, 1}},
                       {"dilation", std::vector<int64_t>{2}},
                       {"groups", int64_t{2}}};
  // (20 + 2 + 1 - 2*4 - 1) / 3 + 1 = 5.
  StatusOr<TensorType> out = infer_output_type(op::kConv1d, line, conv);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{2, 6, 5}));
  conv["stride"] = std::vector<int64_t>{3, 3};
  EXPECT_THAT(infer_output_type(op::kConv1d, line, conv),
              ErrorIs(Error::kInvalidArgument, {"'stride' must have 1 entry"}));
  EXPECT_THAT(infer_output_type(op::kConv2d, line, conv),
              ErrorIs(Error::kInvalidArgument, {"conv2d input must have rank 4"}));

  const std::vector<TensorType> volume{{ScalarType::kFloat, {1, 2, 4, 6, 6}},
                                       {ScalarType::kFloat, {3, 2, 3, 3, 3}}};
  conv = {{"stride", std::vector<int64_t>{1, 2, 2}},
          {"padding", std::vector<int64_t>{1, 1, 1}},
          {"dilation", std::vector<int64_t>{1, 1, 1}},
          {"groups", int64_t{1}}};
  out = infer_output_type(op::kConv3d, volume, conv);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{1, 3, 4, 3, 3}));
  conv["padding"] = std::vector<int64_t>{1, 1, 1, 1};
  EXPECT_THAT(infer_output_type(op::kConv3d, volume, conv),
              ErrorIs(Error::kInvalidArgument, {"3 or 6 entries"}));

  const std::vector<TensorType> x{volume[0]};
  AttributeMap pool = {{"kernel", std::vector<int64_t>{2, 2, 2}},
                       {"stride", std::vector<int64_t>{2, 1, 1}},
                       {"padding", std::vector<int64_t>{0, 1, 0, 0, 0, 1}},
                       {"count_include_pad", int64_t{0}}};
  // D (4-2)/2+1 = 2; H (6+1-2)+1 = 6; W (6+1-2)+1 = 6.
  out = infer_output_type(op::kAvgPool3d, x, pool);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{1, 2, 2, 6, 6}));
  EXPECT_THAT(
      infer_output_type(op::kMaxPool3d, x, pool),
      ErrorIs(Error::kInvalidArgument, {"max_pool3d has no attribute 'count_include_pad'"}));
  const std::vector<TensorType> signal{{ScalarType::kFloat, {1, 4, 47}}};
  pool = {{"kernel", std::vector<int64_t>{3}},
          {"stride", std::vector<int64_t>{2}},
          {"padding", std::vector<int64_t>{1}},
          {"ceil_mode", int64_t{1}}};
  out = infer_output_type(op::kMaxPool1d, signal, pool);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{1, 4, 24}));
}

TEST(InferOutputTypeTest, ConvTranspose3d) {
  const std::vector<TensorType> in{{ScalarType::kFloat, {1, 2, 3, 3, 4}},
                                   {ScalarType::kFloat, {2, 5, 2, 2, 3}}};
  const AttributeMap attrs = {{"stride", std::vector<int64_t>{2, 2, 1}},
                              {"dilation", std::vector<int64_t>{1, 1, 1}},
                              {"output_padding", std::vector<int64_t>{1, 0, 0}},
                              {"padding", std::vector<int64_t>{0, 1, 0, 0, 0, 0}},
                              {"groups", int64_t{1}}};
  StatusOr<TensorType> out = infer_output_type(op::kConvTranspose3d, in, attrs);
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->shape, (std::vector<int64_t>{1, 5, 7, 5, 6}));
  EXPECT_EQ(spatial_rank(op::kConvTranspose3d), 3u);
  EXPECT_EQ(spatial_rank(op::kMaxPool1d), 1u);
  EXPECT_EQ(spatial_rank(op::kRelu), 0u);
}

}  // namespace
}  // namespace glassbox::aot

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

const TensorType kFloat23{ScalarType::kFloat, {2, 3}};
const TensorType kLong23{ScalarType::kLong, {2, 3}};
const TensorType kBool23{ScalarType::kBool, {2, 3}};

TEST(OpTypesTest, ComparisonsGiveBoolAndTakeOneNumericDtype) {
  StatusOr<TensorType> eq = infer_output_type(op::kEqual, std::vector{kLong23, kLong23}, {});
  ASSERT_THAT(eq, IsOk());
  EXPECT_EQ(eq->dtype, ScalarType::kBool);
  EXPECT_THAT(infer_output_type(op::kLess, std::vector{kFloat23, kLong23}, {}),
              ErrorIs(Error::kInvalidArgument, {"less input 1 has dtype LONG, expected FLOAT"}));
  EXPECT_THAT(infer_output_type(op::kGreater, std::vector{kBool23, kBool23}, {}),
              ErrorIs(Error::kInvalidArgument, {"greater input 0 has dtype BOOL"}));
}

TEST(OpTypesTest, WhereNeedsABoolConditionAndBroadcasts) {
  const TensorType row{ScalarType::kFloat, {1, 3}};
  StatusOr<TensorType> w = infer_output_type(op::kWhere, std::vector{kBool23, row, kFloat23}, {});
  ASSERT_THAT(w, IsOk());
  EXPECT_EQ(w->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(w->dtype, ScalarType::kFloat);
  EXPECT_THAT(infer_output_type(op::kWhere, std::vector{kFloat23, kFloat23, kFloat23}, {}),
              ErrorIs(Error::kInvalidArgument, {"where input 0 has dtype FLOAT, expected BOOL"}));
}

TEST(OpTypesTest, GatherTakesInt64IndicesAndKeepsTheDataDtype) {
  const TensorType table{ScalarType::kFloat, {10, 4}};
  const TensorType ids{ScalarType::kLong, {1, 3}};
  StatusOr<TensorType> g =
      infer_output_type(op::kGather, std::vector{table, ids}, {{"axis", int64_t{0}}});
  ASSERT_THAT(g, IsOk());
  EXPECT_EQ(g->shape, (std::vector<std::int64_t>{1, 3, 4}));
  EXPECT_THAT(infer_output_type(op::kGather, std::vector{table, table}, {{"axis", int64_t{0}}}),
              ErrorIs(Error::kInvalidArgument, {"gather input 1 has dtype FLOAT, expected LONG"}));
}

TEST(OpTypesTest, CastTakesItsDtypeFromTheAttribute) {
  StatusOr<TensorType> c =
      infer_output_type(op::kCast, std::vector{kFloat23}, {{"dtype", int64_t{4}}});
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->dtype, ScalarType::kLong);
  EXPECT_THAT(infer_output_type(op::kCast, std::vector{kFloat23}, {{"dtype", int64_t{5}}}),
              ErrorIs(Error::kInvalidArgument, {"cast to dtype 5 is not supported"}));
}

TEST(OpTypesTest, SliceMustReadInsideItsInput) {
  const TensorType x{ScalarType::kFloat, {4, 6}};
  AttributeMap attrs{{"starts", std::vector<int64_t>{0, 5}},
                     {"steps", std::vector<int64_t>{1, -2}},
                     {"shape", std::vector<int64_t>{4, 3}}};
  StatusOr<TensorType> s = infer_output_type(op::kSlice, std::vector{x}, attrs);
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->shape, (std::vector<std::int64_t>{4, 3}));
  attrs["shape"] = std::vector<int64_t>{4, 4};  // 5, 3, 1, -1: reads before the start
  EXPECT_THAT(infer_output_type(op::kSlice, std::vector{x}, attrs),
              ErrorIs(Error::kInvalidArgument, {"slice along dim 1 reads outside [4, 6]"}));
}

TEST(OpTypesTest, ReductionsAndArgmaxShapes) {
  const TensorType x{ScalarType::kFloat, {2, 3, 4}};
  StatusOr<TensorType> r =
      infer_output_type(op::kReduceMean, std::vector{x},
                        {{"axes", std::vector<int64_t>{-1, 1}}, {"keepdims", int64_t{0}}});
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->shape, (std::vector<std::int64_t>{2}));
  StatusOr<TensorType> a = infer_output_type(op::kArgmax, std::vector{x},
                                             {{"axis", int64_t{1}}, {"keepdims", int64_t{1}}});
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->dtype, ScalarType::kLong);
  EXPECT_EQ(a->shape, (std::vector<std::int64_t>{2, 1, 4}));
  EXPECT_THAT(
      infer_output_type(op::kReduceSum, std::vector{x}, {{"axes", std::vector<int64_t>{0, 0}}}),
      ErrorIs(Error::kInvalidArgument, {"reduce axis 0 listed twice"}));
}

TEST(OpTypesTest, NormalizationParameterShapes) {
  const TensorType x{ScalarType::kFloat, {1, 4, 8}};
  const TensorType scale{ScalarType::kFloat, {8}};
  EXPECT_THAT(infer_output_type(op::kLayerNorm, std::vector{x, scale},
                                {{"axis", int64_t{-1}}, {"eps", 1e-5}}),
              IsOk());
  EXPECT_THAT(infer_output_type(op::kLayerNorm, std::vector{x, scale},
                                {{"axis", int64_t{1}}, {"eps", 1e-5}}),
              ErrorIs(Error::kInvalidArgument, {"layer_norm scale must have shape [4, 8]"}));
  const TensorType groups{ScalarType::kFloat, {2}};
  EXPECT_THAT(infer_output_type(op::kGroupNorm, std::vector{x, groups, groups},
                                {{"num_groups", int64_t{2}}, {"eps", 1e-5}}),
              IsOk());
  EXPECT_THAT(infer_output_type(op::kGroupNorm, std::vector{x, groups, groups},
                                {{"num_groups", int64_t{3}}, {"eps", 1e-5}}),
              ErrorIs(Error::kInvalidArgument, {"not divisible by num_groups 3"}));
}

TEST(OpTypesTest, ConvTransposeAndResizeShapes) {
  const TensorType x{ScalarType::kFloat, {1, 4, 5, 5}};
  const TensorType w{ScalarType::kFloat, {4, 2, 3, 3}};
  StatusOr<TensorType> ct = infer_output_type(op::kConvTranspose2d, std::vector{x, w},
                                              {{"stride", std::vector<int64_t>{2, 2}},
                                               {"dilation", std::vector<int64_t>{1, 1}},
                                               {"output_padding", std::vector<int64_t>{1, 1}},
                                               {"padding", std::vector<int64_t>{1, 1, 1, 1}},
                                               {"groups", int64_t{1}}});
  ASSERT_THAT(ct, IsOk());
  EXPECT_EQ(ct->shape, (std::vector<std::int64_t>{1, 2, 10, 10}));  // 2*4 + 1 + 3 - 2
  StatusOr<TensorType> rs =
      infer_output_type(op::kResize, std::vector{x},
                        {{"sizes", std::vector<int64_t>{1, 4, 10, 15}},
                         {"mode", std::string("linear")},
                         {"coordinate_transformation_mode", std::string("half_pixel")},
                         {"nearest_mode", std::string("floor")}});
  ASSERT_THAT(rs, IsOk());
  EXPECT_EQ(rs->shape, (std::vector<std::int64_t>{1, 4, 10, 15}));
  EXPECT_THAT(infer_output_type(op::kResize, std::vector{x},
                                {{"sizes", std::vector<int64_t>{1, 4, 10, 15}},
                                 {"mode", std::string("cubic")},
                                 {"coordinate_transformation_mode", std::string("half_pixel")},
                                 {"nearest_mode", std::string("floor")}}),
              ErrorIs(Error::kInvalidArgument, {"'mode' has unsupported value \"cubic\""}));
}

}  // namespace
}  // namespace glassbox::aot

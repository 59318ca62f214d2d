// Shape rules of the ops sized by data (ops_dynamic.cc): their bounds and
// dynamic flags, the refusal of a dynamic input by ops that would read its
// bound, and the flag's way through verify() and the graph JSON.

#include <gtest/gtest.h>

#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/graph_json.h"
#include "glassbox/aot/ops.h"
#include "glassbox/aot/to_backend.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using Shape = std::vector<std::int64_t>;
using Types = std::vector<TensorType>;

TEST(OpsDynamicTest, NonZeroIsBoundedByTheElementCount) {
  StatusOr<Types> t = infer_output_types(op::kNonZero, Types{{ScalarType::kBool, Shape{3, 5}}}, {});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(*t, (Types{{ScalarType::kLong, Shape{2, 15}, true}}));
}

TEST(OpsDynamicTest, TopKIsStaticForAConstantKAndDynamicForAComputedOne) {
  const TensorType x{ScalarType::kFloat, Shape{2, 7}};
  StatusOr<Types> fixed = infer_output_types(op::kTopK, Types{x}, {{"k", std::int64_t{3}}});
  ASSERT_TRUE(fixed.ok()) << fixed.message();
  EXPECT_EQ(*fixed, (Types{{ScalarType::kFloat, Shape{2, 3}}, {ScalarType::kLong, Shape{2, 3}}}));

  const TensorType k{ScalarType::kLong, Shape{1}};
  StatusOr<Types> computed = infer_output_types(op::kTopK, Types{x, k}, {});
  ASSERT_TRUE(computed.ok()) << computed.message();
  EXPECT_EQ(*computed, (Types{{ScalarType::kFloat, Shape{2, 7}, true},
                              {ScalarType::kLong, Shape{2, 7}, true}}));

  // A dynamic x (a non_zero's coordinates, say): dynamic, bounded by k.
  const TensorType dynamic_x{ScalarType::kLong, Shape{2, 40}, true};
  StatusOr<Types> of_dynamic =
      infer_output_types(op::kTopK, Types{dynamic_x}, {{"k", std::int64_t{5}}});
  ASSERT_TRUE(of_dynamic.ok()) << of_dynamic.message();
  EXPECT_EQ((*of_dynamic)[0], (TensorType{ScalarType::kLong, Shape{2, 5}, true}));

  EXPECT_FALSE(infer_output_types(op::kTopK, Types{x}, {{"k", std::int64_t{8}}}).ok());
}

TEST(OpsDynamicTest, NonMaxSuppressionBoundsEveryClassAndBatch) {
  const Types in{{ScalarType::kFloat, Shape{2, 10, 4}}, {ScalarType::kFloat, Shape{2, 3, 10}}};
  StatusOr<Types> t =
      infer_output_types(op::kNonMaxSuppression, in,
                         {{"max_output_boxes_per_class", std::int64_t{4}}, {"iou_threshold", 0.5}});
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(*t, (Types{{ScalarType::kLong, Shape{2 * 3 * 4, 3}, true}}));
  const Types mismatched{in[0], {ScalarType::kFloat, Shape{2, 3, 9}}};
  EXPECT_FALSE(
      infer_output_types(op::kNonMaxSuppression, mismatched,
                         {{"max_output_boxes_per_class", std::int64_t{4}}, {"iou_threshold", 0.5}})
          .ok());
}

TEST(OpsDynamicTest, OtherOpsRefuseADynamicInput) {
  const TensorType dynamic{ScalarType::kFloat, Shape{4, 3}, true};
  StatusOr<TensorType> t =
      infer_output_type(op::kSoftmax, Types{dynamic}, {{"axis", std::int64_t{1}}});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("sized by data"), std::string::npos) << t.message();
}

TEST(OpsDynamicTest, OpsSizedInPrepareFollowADynamicInput) {
  const TensorType x{ScalarType::kFloat, Shape{5, 1}, true};
  const TensorType one{ScalarType::kFloat, Shape{1}, false};
  const TensorType ids{ScalarType::kLong, Shape{1, 5}, true};
  struct Case {
    std::string_view op;
    Types in;
    AttributeMap attrs;
    Shape bound;
  };
  const Case cases[] = {
      {op::kRelu, {x}, {}, {5, 1}},
      {op::kExp, {x}, {}, {5, 1}},
      {op::kMul, {x, one}, {}, {5, 1}},
      {op::kGreater, {x, one}, {}, {5, 1}},
      {op::kReduceMax, {x}, {{"axes", Shape{0}}, {"keepdims", std::int64_t{0}}}, {1}},
      {op::kTranspose, {ids}, {{"perm", Shape{1, 0}}}, {5, 1}},
      {op::kConcat, {x, x}, {{"axis", std::int64_t{0}}}, {10, 1}},
      {op::kReshape, {x}, {{"shape", Shape{-1}}}, {5}},
      {op::kGather,
       {x, TensorType{ScalarType::kLong, Shape{2}, false}},
       {{"axis", std::int64_t{0}}},
       {2, 1}},
  };
  for (const Case& c : cases) {
    StatusOr<TensorType> t = infer_output_type(c.op, c.in, c.attrs);
    ASSERT_TRUE(t.ok()) << c.op << ": " << t.message();
    EXPECT_TRUE(t->dynamic) << c.op;
    EXPECT_EQ(t->shape, c.bound) << c.op;
  }
  // The dtype-generic data movement: int64 indices transpose and concat.
  StatusOr<TensorType> joined =
      infer_output_type(op::kConcat, Types{ids, ids}, {{"axis", std::int64_t{1}}});
  ASSERT_TRUE(joined.ok()) << joined.message();
  EXPECT_EQ(joined->dtype, ScalarType::kLong);
}

TEST(OpsDynamicTest, ShapeAndFullLikeFollowADynamicValue) {
  const TensorType x{ScalarType::kFloat, Shape{7, 4}, true};
  StatusOr<TensorType> sizes = infer_output_type(
      op::kShape, Types{x}, {{"start", std::int64_t{0}}, {"end", std::int64_t{1}}});
  ASSERT_TRUE(sizes.ok()) << sizes.message();
  EXPECT_EQ(sizes->dtype, ScalarType::kLong);
  EXPECT_EQ(sizes->shape, (Shape{1}));
  EXPECT_FALSE(sizes->dynamic);  // its size is the rank: only its data follow x
  EXPECT_FALSE(infer_output_type(op::kShape, Types{x}, {{"end", std::int64_t{3}}}).ok());

  StatusOr<TensorType> filled =
      infer_output_type(op::kFullLike, Types{x},
                        {{"value", 7.0}, {"dtype", static_cast<std::int64_t>(ScalarType::kLong)}});
  ASSERT_TRUE(filled.ok()) << filled.message();
  EXPECT_EQ(filled->dtype, ScalarType::kLong);
  EXPECT_EQ(filled->shape, (Shape{7, 4}));
  EXPECT_TRUE(filled->dynamic);

  // reduce_min of int64 (shape arithmetic); reduce_sum stays float only.
  const TensorType pair{ScalarType::kLong, Shape{2}, false};
  StatusOr<TensorType> least = infer_output_type(
      op::kReduceMin, Types{pair}, {{"axes", Shape{0}}, {"keepdims", std::int64_t{0}}});
  ASSERT_TRUE(least.ok()) << least.message();
  EXPECT_EQ(least->dtype, ScalarType::kLong);
  EXPECT_FALSE(infer_output_type(op::kReduceSum, Types{pair},
                                 {{"axes", Shape{0}}, {"keepdims", std::int64_t{0}}})
                   .ok());
}

TEST(OpsDynamicTest, AReshapeOfADynamicValueNeedsAMinusOne) {
  const TensorType x{ScalarType::kFloat, Shape{5, 1}, true};
  StatusOr<TensorType> t = infer_output_type(op::kReshape, Types{x}, {{"shape", Shape{5}}});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("needs a -1"), std::string::npos) << t.message();
}

Graph non_zero_graph() {
  Graph g;
  Value x, nz;
  x.id = ValueId(0);
  x.name = "x";
  x.shape = {6};
  x.kind = ValueKind::kInput;
  nz.id = ValueId(1);
  nz.name = "nz";
  nz.dtype = ScalarType::kLong;
  nz.shape = {1, 6};
  nz.dynamic = true;
  g.values = {x, nz};
  Node n;
  n.name = "non_zero";
  n.op = std::string(op::kNonZero);
  n.inputs = {ValueId(0)};
  n.outputs = {ValueId(1)};
  g.nodes = {n};
  g.inputs = {ValueId(0)};
  g.outputs = {ValueId(1)};
  return g;
}

TEST(OpsDynamicTest, VerifyAndJsonKeepTheFlag) {
  Graph g = non_zero_graph();
  ASSERT_TRUE(verify(g).ok()) << verify(g).message();
  StatusOr<std::string> json = graph_to_json(g, {});
  ASSERT_TRUE(json.ok());
  StatusOr<Graph> back = graph_from_json(*json);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_TRUE(back->values[1].dynamic);

  Graph undeclared = g;
  undeclared.values[1].dynamic = false;  // the op makes it dynamic
  EXPECT_FALSE(verify(undeclared).ok());
  Graph dynamic_input = g;
  dynamic_input.values[0].dynamic = true;
  EXPECT_FALSE(verify(dynamic_input).ok());
}

// A partitioner that proposes the dynamic value's producer (a plug-in's may
// take any op): to_backend refuses it, so no blob is built around a size
// only the portable kernel knows.
TEST(OpsDynamicTest, ToBackendRefusesAPartitionTouchingADynamicValue) {
  GraphBuilder b;
  const ValueId x = b.input("x", ScalarType::kFloat, {6});
  b.output(b.op(op::kNonZero, {b.relu(x)}, {}));
  StatusOr<Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  testing::FakeBackend backend;
  Partitioner partitioner(backend, {"relu", "non_zero"});
  StatusOr<Graph> lowered = to_backend(*graph, partitioner, {});
  ASSERT_FALSE(lowered.ok());
  EXPECT_NE(lowered.message().find("whose size depends on data"), std::string::npos)
      << lowered.message();
  // relu alone is fine: its output is static.
  Partitioner relu_only(backend, {"relu"});
  EXPECT_TRUE(to_backend(*graph, relu_only, {}).ok());
}

}  // namespace
}  // namespace glassbox::aot

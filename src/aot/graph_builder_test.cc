#include "glassbox/aot/graph_builder.h"

#include <gtest/gtest.h>

#include "glassbox/aot/debug_handles.h"
#include "glassbox/aot/ops.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;
using testing::node_named;

// Small NCHW shapes: big enough for a 3x3 kernel, small enough to read.
constexpr int64_t kBatch = 1;
constexpr int64_t kChannels = 3;
constexpr int64_t kSize = 8;

std::vector<float> zeros(int64_t n) { return std::vector<float>(static_cast<size_t>(n), 0.0f); }

const Value& value_of(const Graph& graph, ValueId id) {
  const Value* v = graph.find_value(id);
  EXPECT_NE(v, nullptr);
  static const Value kMissing;
  return v ? *v : kMissing;
}

TEST(GraphBuilderTest, BuildsVerifiedGraphWithHandlesInTopologicalOrder) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kBatch, kChannels, kSize, kSize});
  ValueId y = b.relu(b.sigmoid(x));
  b.output(b.tan(y));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  ASSERT_EQ(graph->nodes.size(), 3u);
  for (size_t i = 0; i < graph->nodes.size(); ++i) {
    EXPECT_EQ(graph->nodes[i].debug_handle, DebugHandle(static_cast<uint32_t>(i + 1)));
  }
  EXPECT_EQ(graph->inputs, std::vector<ValueId>{x});
  ASSERT_EQ(graph->outputs.size(), 1u);
  EXPECT_EQ(value_of(*graph, graph->outputs[0]).name, "tan");
  EXPECT_EQ(graph->max_debug_handle(), DebugHandle(3));
}

TEST(GraphBuilderTest, NamesNodesLikeTorchFx) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kSize});
  b.output(b.relu(b.relu(b.relu(x))));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  EXPECT_EQ(graph->nodes[0].name, "relu");
  EXPECT_EQ(graph->nodes[1].name, "relu_1");
  EXPECT_EQ(graph->nodes[2].name, "relu_2");
}

TEST(GraphBuilderTest, NodeNamesAvoidInputNames) {
  GraphBuilder b;
  ValueId x = b.input("relu", ScalarType::kFloat, {kSize});
  b.output(b.relu(x));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  EXPECT_EQ(graph->nodes[0].name, "relu_1");
}

TEST(GraphBuilderTest, RecordsModuleHierarchyAndSourceLocation) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kSize});
  uint32_t inner_line = 0;
  {
    auto outer = b.module("block", "Block");
    {
      auto inner = b.module("block.act", "ReLU");
      inner_line = __LINE__ + 1;
      x = b.relu(x);
    }
    x = b.sin(x);
  }
  x = b.cos(x);
  b.output(x);
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  const std::vector<ModuleFrame> block{{"block", "Block"}};
  const std::vector<ModuleFrame> act{{"block", "Block"}, {"block.act", "ReLU"}};
  EXPECT_EQ(node_named(*graph, "relu").module_hierarchy, act);
  EXPECT_EQ(node_named(*graph, "sin").module_hierarchy, block);
  EXPECT_TRUE(node_named(*graph, "cos").module_hierarchy.empty());
  const SourceLocation& loc = node_named(*graph, "relu").source_location;
  EXPECT_EQ(loc.line, inner_line);
  EXPECT_NE(loc.file.find("graph_builder_test.cc"), std::string::npos);
  // __builtin_FUNCTION() (see core/call_site.h) gives the bare name of the
  // enclosing function, which GoogleTest calls TestBody.
  EXPECT_EQ(loc.function, "TestBody");
}

TEST(GraphBuilderTest, EveryOpGetsItsInferredShape) {
  constexpr int64_t kOut = 4;
  constexpr int64_t kFeatures = 5;
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kBatch, kChannels, kSize, kSize});
  ValueId w = b.constant("w", {kOut, kChannels, 3, 3}, zeros(kOut * kChannels * 9));
  ValueId bias = b.constant("b", {kOut}, zeros(kOut));
  ValueId per_channel = b.constant("c", {kOut}, zeros(kOut));
  ValueId fc_w = b.constant("fc_w", {kFeatures, kOut}, zeros(kFeatures * kOut));
  ValueId mat = b.constant("mat", {kFeatures, 2}, zeros(kFeatures * 2));

  struct Case {
    ValueId value;
    std::vector<int64_t> shape;
  };
  ValueId conv = b.conv2d(x, w, bias, {.stride = {2, 2}, .padding = {1, 1}});
  ValueId dilated = b.conv2d(x, w, std::nullopt, {.dilation = {2, 2}});
  ValueId bn = b.batch_norm(conv, per_channel, per_channel, per_channel, per_channel);
  ValueId pooled = b.max_pool2d(bn, {.kernel = {2, 2}});
  ValueId avg = b.avg_pool2d(bn, {.kernel = {3, 3}, .stride = {{1, 1}}, .padding = {1, 1}});
  ValueId gap = b.global_avg_pool2d(avg);
  ValueId flat = b.flatten(gap);
  ValueId fc = b.linear(flat, fc_w, std::nullopt);
  ValueId mm = b.matmul(fc, mat);
  ValueId reshaped = b.reshape(pooled, {kBatch, -1});
  ValueId cat = b.concat({pooled, pooled}, 1);
  ValueId sm = b.softmax(cat, -1);
  ValueId sum = b.add(conv, per_channel);  // Broadcasts [4] over [1, 4, 4, 4].
  const std::vector<Case> cases = {
      {conv, {kBatch, kOut, 4, 4}},
      {dilated, {kBatch, kOut, 4, 4}},
      {bn, {kBatch, kOut, 4, 4}},
      {pooled, {kBatch, kOut, 2, 2}},
      {avg, {kBatch, kOut, 4, 4}},
      {gap, {kBatch, kOut, 1, 1}},
      {flat, {kBatch, kOut}},
      {fc, {kBatch, kFeatures}},
      {mm, {kBatch, 2}},
      {reshaped, {kBatch, kOut * 4}},
      {cat, {kBatch, 2 * kOut, 2, 2}},
      {sm, {kBatch, 2 * kOut, 2, 2}},
      {sum, {kBatch, kOut, 4, 4}},
  };
  for (ValueId unary : {b.relu(x), b.relu6(x), b.clamp(x, -1.0, 1.0), b.sigmoid(x), b.hardswish(x),
                        b.tan(x), b.sin(x), b.cos(x), b.sub(x, x), b.mul(x, x), b.div(x, x)}) {
    b.output(unary);
  }
  for (const Case& c : cases) b.output(c.value);
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  for (const Case& c : cases) {
    EXPECT_EQ(value_of(*graph, c.value).shape, c.shape) << value_of(*graph, c.value).name;
  }
  EXPECT_EQ(value_of(*graph, graph->outputs[0]).shape,
            (std::vector<int64_t>{kBatch, kChannels, kSize, kSize}));
}

TEST(GraphBuilderTest, Relu6IsClampZeroToSix) {
  GraphBuilder b;
  b.output(b.relu6(b.input("x", ScalarType::kFloat, {kSize})));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  const Node& node = graph->nodes[0];
  EXPECT_EQ(node.op, op::kClamp);
  EXPECT_EQ(std::get<double>(node.attributes.at("min")), 0.0);
  EXPECT_EQ(std::get<double>(node.attributes.at("max")), 6.0);
}

TEST(GraphBuilderTest, KeepsTheFirstErrorAndNamesTheOp) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kBatch, kChannels, kSize, kSize});
  ValueId wrong_channels = b.constant("w", {1, kChannels + 1, 1, 1}, zeros(kChannels + 1));
  ValueId bad = b.conv2d(x, wrong_channels, std::nullopt);
  EXPECT_EQ(bad, kInvalidValueId);
  // Later calls neither succeed nor replace the first error.
  EXPECT_EQ(b.relu(bad), kInvalidValueId);
  EXPECT_EQ(b.relu(x), kInvalidValueId);
  EXPECT_THAT(b.build(), ErrorIs(Error::kInvalidArgument,
                                 {"conv2d at", "graph_builder_test.cc", "input channels"}));
}

TEST(GraphBuilderTest, RejectsBadInputsAndConstants) {
  {
    GraphBuilder b;
    b.input("x", ScalarType::kFloat, {kSize});
    b.input("x", ScalarType::kFloat, {kSize});
    EXPECT_THAT(b.build(), ErrorIs(Error::kInvalidArgument, {"'x'", "already used"}));
  }
  {
    GraphBuilder b;
    b.constant("w", {2, 2}, zeros(3));
    EXPECT_THAT(b.build(), ErrorIs(Error::kInvalidArgument, {"'w'", "3 elements"}));
  }
  {
    GraphBuilder b;
    b.relu(ValueId(42));
    EXPECT_THAT(b.build(), ErrorIs(Error::kInvalidArgument, {"unknown value 42"}));
  }
  {
    GraphBuilder b;
    b.output(ValueId(7));
    EXPECT_THAT(b.build(), ErrorIs(Error::kInvalidArgument, {"output", "unknown value 7"}));
  }
}

TEST(GraphBuilderTest, ShapeErrorsAreReported) {
  GraphBuilder b;
  ValueId a = b.input("a", ScalarType::kFloat, {2, 3});
  ValueId c = b.input("c", ScalarType::kFloat, {4, 3});
  b.add(a, c);
  EXPECT_THAT(b.build(), ErrorIs(Error::kInvalidArgument, {"add", "do not broadcast"}));

  GraphBuilder d;
  ValueId f = d.input("f", ScalarType::kFloat, {2, 3});
  ValueId i = d.input("i", ScalarType::kInt, {2, 3});
  d.mul(f, i);
  EXPECT_THAT(d.build(), ErrorIs(Error::kInvalidArgument, {"dtype INT", "FLOAT"}));
}

TEST(GraphBuilderTest, BuildCanBeRepeated) {
  GraphBuilder b;
  b.output(b.relu(b.input("x", ScalarType::kFloat, {kSize})));
  StatusOr<Graph> first = b.build();
  StatusOr<Graph> second = b.build();
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(*first, *second);
}

TEST(DebugHandlesTest, DerivedNodesKeepTheSourceProvenance) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kSize});
  {
    auto scope = b.module("m", "M");
    b.output(b.tan(x));
  }
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  const Node& tan = graph->nodes[0];
  Node sin = make_derived_node(tan, "tan_sin", std::string(op::kSin));
  EXPECT_EQ(sin.debug_handle, tan.debug_handle);
  EXPECT_EQ(sin.module_hierarchy, tan.module_hierarchy);
  EXPECT_EQ(sin.source_location, tan.source_location);
  EXPECT_EQ(sin.op, op::kSin);
  EXPECT_TRUE(sin.inputs.empty());
}

TEST(DebugHandlesTest, AssignReplacesExistingHandles) {
  Graph graph;
  graph.nodes.resize(2);
  graph.nodes[0].debug_handle = DebugHandle(9);
  assign_debug_handles(&graph);
  EXPECT_EQ(graph.nodes[0].debug_handle, DebugHandle(1));
  EXPECT_EQ(graph.nodes[1].debug_handle, DebugHandle(2));
}

}  // namespace
}  // namespace glassbox::aot

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

TEST(GraphBuilderTest, WritesHardsigmoidTransposeAndPoolOptions) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 4, 4});
  ValueId h = b.hardsigmoid(x, 1.0 / 6, 0.5);
  ValueId p = b.avg_pool2d(h, {.kernel = {3, 3},
                               .stride = {{2, 2}},
                               .padding = {1, 1},
                               .ceil_mode = true,
                               .count_include_pad = false});
  b.output(b.transpose(p, {0, 2, 3, 1}));
  StatusOr<Graph> graph = b.build();
  ASSERT_THAT(graph, IsOk());
  const Node& pool = graph->nodes[1];
  EXPECT_EQ(std::get<int64_t>(pool.attributes.at("ceil_mode")), 1);
  EXPECT_EQ(std::get<int64_t>(pool.attributes.at("count_include_pad")), 0);
  EXPECT_EQ(graph->nodes[0].op, op::kHardsigmoid);
  EXPECT_EQ(graph->find_value(graph->outputs[0])->shape, (std::vector<int64_t>{1, 3, 3, 2}));
  // Defaults are not written, so older graphs keep their attributes.
  GraphBuilder plain;
  ValueId y = plain.input("y", ScalarType::kFloat, {1, 1, 4, 4});
  plain.output(plain.max_pool2d(y, {}));
  EXPECT_FALSE(plain.build()->nodes[0].attributes.contains("ceil_mode"));
}

}  // namespace
}  // namespace glassbox::aot

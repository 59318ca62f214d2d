#include "glassbox/aot/to_backend.h"

#include <gtest/gtest.h>

#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/ops.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::FakeBackend;
using testing::IsOk;
using testing::node_named;

constexpr int64_t kWidth = 4;

Graph build(GraphBuilder& b) {
  StatusOr<Graph> graph = b.build();
  EXPECT_THAT(graph, IsOk());
  return graph.ok() ? std::move(graph).value() : Graph{};
}

// x -> relu (h1) -> sin (h2) -> sigmoid (h3) -> output; relu and sin lowerable.
Graph chain() {
  GraphBuilder b;
  {
    auto outer = b.module("net", "Net");
    ValueId x = b.input("x", ScalarType::kFloat, {kWidth});
    {
      auto inner = b.module("net.act", "Act");
      x = b.relu(x);
    }
    x = b.sin(x);
    b.output(b.sigmoid(x));
  }
  return build(b);
}

TEST(ToBackendTest, ReplacesThePartitionWithOneDelegateCall) {
  const Graph graph = chain();
  const Graph original = graph;
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu", "sin"});
  const std::vector<CompileSpec> specs{CompileSpec::from_string("mode", "fast")};
  StatusOr<Graph> lowered = to_backend(graph, partitioner, specs);
  ASSERT_THAT(lowered, IsOk());
  EXPECT_EQ(graph, original);  // Value semantics: the input is untouched.

  ASSERT_EQ(lowered->nodes.size(), 2u);
  const Node& call = lowered->nodes[0];
  EXPECT_EQ(call.op, op::kDelegateCall);
  EXPECT_EQ(call.name, "delegate_call");
  // A fresh handle: one past the largest handle of the graph (sigmoid's 3).
  EXPECT_EQ(call.debug_handle, DebugHandle(4));
  EXPECT_EQ(call.inputs, graph.inputs);
  EXPECT_EQ(call.outputs, node_named(graph, "sin").outputs);
  EXPECT_EQ(call.module_hierarchy, (std::vector<ModuleFrame>{{"net", "Net"}}));
  ASSERT_TRUE(call.delegate.has_value());
  EXPECT_EQ(call.delegate->backend, "fake");
  EXPECT_EQ(call.delegate->processed_bytes, (std::vector<uint8_t>{'f', 'a', 'k', 'e'}));
  EXPECT_EQ(call.delegate->compile_specs, specs);
  const DebugHandleMap expected_map = {{int64_t{0}, {DebugHandle(1), DebugHandle(2)}}};
  EXPECT_EQ(call.delegate->debug_handle_map, expected_map);
  EXPECT_EQ(lowered->nodes[1], node_named(graph, "sigmoid"));
  ASSERT_EQ(backend.specs_seen.size(), 1u);
  EXPECT_EQ(backend.specs_seen[0], specs);
  // The relu's output lived only inside the partition.
  EXPECT_EQ(lowered->find_value(node_named(graph, "relu").outputs[0]), nullptr);
}

TEST(ToBackendTest, SubgraphGetsExternalInputsConstantsAndUsedOutputs) {
  constexpr int64_t kChannels = 2;
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, kChannels, kWidth, kWidth});
  ValueId w = b.constant("w", {kChannels, kChannels, 1, 1}, {1, 0, 0, 1});
  ValueId s = b.sigmoid(x);  // Outside: feeds the partition.
  ValueId c = b.conv2d(s, w, std::nullopt);
  ValueId r = b.relu(c);
  b.output(r);
  b.output(b.sigmoid(c));  // Outside: uses the conv output.
  const Graph graph = build(b);

  FakeBackend backend;
  Partitioner partitioner(backend, {"conv2d", "relu"});
  StatusOr<Graph> lowered = to_backend(graph, partitioner);
  ASSERT_THAT(lowered, IsOk());
  ASSERT_EQ(backend.subgraphs.size(), 1u);
  const Graph& sub = backend.subgraphs[0];
  EXPECT_THAT(verify(sub), IsOk());
  EXPECT_EQ(sub.inputs, std::vector<ValueId>{s});
  EXPECT_EQ(sub.find_value(s)->kind, ValueKind::kInput);
  EXPECT_EQ(sub.find_value(w)->data, graph.find_value(w)->data);
  EXPECT_EQ(sub.outputs, (std::vector<ValueId>{c, r}));
  EXPECT_EQ(sub.nodes[0].debug_handle, node_named(graph, "conv2d").debug_handle);
  // The lowered graph no longer needs the weight: it is in the bytes.
  EXPECT_EQ(lowered->find_value(w), nullptr);
  EXPECT_NE(lowered->find_value(x), nullptr);
}

TEST(ToBackendTest, EachPartitionGetsTheNextFreshHandle) {
  GraphBuilder b;
  b.output(b.relu(b.sigmoid(b.relu(b.input("x", ScalarType::kFloat, {kWidth})))));
  const Graph graph = build(b);
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu"});
  StatusOr<Graph> lowered = to_backend(graph, partitioner);
  ASSERT_THAT(lowered, IsOk());
  ASSERT_EQ(lowered->nodes.size(), 3u);
  EXPECT_EQ(lowered->nodes[0].name, "delegate_call");
  EXPECT_EQ(lowered->nodes[0].debug_handle, DebugHandle(4));
  EXPECT_EQ(lowered->nodes[1].op, op::kSigmoid);
  EXPECT_EQ(lowered->nodes[2].name, "delegate_call_1");
  EXPECT_EQ(lowered->nodes[2].debug_handle, DebugHandle(5));
}

// relu (0) and add (2) form one partition, but add also reads sigmoid (1),
// which does not depend on the partition: the delegate call must move after it.
TEST(ToBackendTest, OrdersTheDelegateCallAfterEveryProducerItNeeds) {
  GraphBuilder b;
  ValueId a = b.relu(b.input("x", ScalarType::kFloat, {kWidth}));
  ValueId u = b.sigmoid(b.input("y", ScalarType::kFloat, {kWidth}));
  b.output(b.add(a, u));
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu", "add"});
  StatusOr<Graph> lowered = to_backend(build(b), partitioner);
  ASSERT_THAT(lowered, IsOk());
  ASSERT_EQ(lowered->nodes.size(), 2u);
  EXPECT_EQ(lowered->nodes[0].op, op::kSigmoid);
  EXPECT_EQ(lowered->nodes[1].op, op::kDelegateCall);
}

TEST(ToBackendTest, RejectsAMapNamingAHandleOutsideThePartition) {
  constexpr DebugHandle kForeign(99);
  FakeBackend backend([&](const Graph&) -> StatusOr<PreprocessResult> {
    return PreprocessResult{{}, DebugHandleMap{{std::string("rogue"), {kForeign}}}};
  });
  Partitioner partitioner(backend, {"relu", "sin"});
  EXPECT_THAT(to_backend(chain(), partitioner),
              ErrorIs(Error::kInvalidArgument,
                      {"backend 'fake'", "identifier \"rogue\"", "debug handle 99"}));
}

TEST(ToBackendTest, RejectsAnInvalidMap) {
  FakeBackend backend([&](const Graph&) -> StatusOr<PreprocessResult> {
    return PreprocessResult{
        {}, DebugHandleMap{{int64_t{0}, {DebugHandle(1)}}, {std::string("s"), {DebugHandle(2)}}}};
  });
  Partitioner partitioner(backend, {"relu", "sin"});
  EXPECT_THAT(to_backend(chain(), partitioner),
              ErrorIs(Error::kInvalidArgument,
                      {"backend 'fake' returned an invalid debug handle map", "mixes"}));
}

TEST(ToBackendTest, PropagatesPreprocessErrorsWithTheBackendName) {
  FakeBackend backend([&](const Graph&) -> StatusOr<PreprocessResult> {
    return Status(Error::kNotSupported, "no sin here");
  });
  Partitioner partitioner(backend, {"relu", "sin"});
  EXPECT_THAT(to_backend(chain(), partitioner),
              ErrorIs(Error::kNotSupported, {"backend 'fake' preprocess: no sin here"}));
}

TEST(ToBackendTest, AcceptsNoMap) {
  FakeBackend backend([&](const Graph&) -> StatusOr<PreprocessResult> {
    return PreprocessResult{{}, std::nullopt};
  });
  Partitioner partitioner(backend, {"relu", "sin"});
  StatusOr<Graph> lowered = to_backend(chain(), partitioner);
  ASSERT_THAT(lowered, IsOk());
  EXPECT_FALSE(lowered->nodes[0].delegate->debug_handle_map.has_value());
}

TEST(ToBackendTest, WithoutPartitionsReturnsAnEqualGraph) {
  const Graph graph = chain();
  FakeBackend backend;
  Partitioner partitioner(backend, {"matmul"});
  StatusOr<Graph> lowered = to_backend(graph, partitioner);
  ASSERT_THAT(lowered, IsOk());
  EXPECT_EQ(*lowered, graph);
  EXPECT_TRUE(backend.subgraphs.empty());
}

TEST(ExtractSubgraphTest, RejectsBadPartitions) {
  const Graph graph = chain();
  EXPECT_THAT(extract_subgraph(graph, Partition{}), ErrorIs(Error::kInvalidArgument, {"empty"}));
  EXPECT_THAT(extract_subgraph(graph, Partition{{1, 0}}),
              ErrorIs(Error::kInvalidArgument, {"ascending"}));
  EXPECT_THAT(extract_subgraph(graph, Partition{{graph.nodes.size()}}),
              ErrorIs(Error::kInvalidArgument, {"in range"}));
}

}  // namespace
}  // namespace glassbox::aot

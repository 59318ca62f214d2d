#include "glassbox/aot/partitioner.h"

#include <gtest/gtest.h>

#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/ops.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::FakeBackend;
using testing::IsOk;

constexpr int64_t kWidth = 4;

using Indices = std::vector<std::vector<size_t>>;

Indices partition_indices(const Partitioner& partitioner, const Graph& graph) {
  StatusOr<std::vector<Partition>> partitions = partitioner.partition(graph);
  EXPECT_THAT(partitions, IsOk());
  Indices indices;
  if (partitions.ok()) {
    for (const Partition& p : *partitions) indices.push_back(p.node_indices);
  }
  return indices;
}

Graph build(GraphBuilder& b) {
  StatusOr<Graph> graph = b.build();
  EXPECT_THAT(graph, IsOk());
  return graph.ok() ? std::move(graph).value() : Graph{};
}

TEST(PartitionerTest, SupportedChainIsOnePartition) {
  GraphBuilder b;
  b.output(b.cos(b.sin(b.relu(b.input("x", ScalarType::kFloat, {kWidth})))));
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu", "sin", "cos"});
  EXPECT_EQ(partition_indices(partitioner, build(b)), (Indices{{0, 1, 2}}));
}

TEST(PartitionerTest, UnsupportedNodeSplitsTheChain) {
  GraphBuilder b;
  b.output(b.relu(b.sigmoid(b.relu(b.input("x", ScalarType::kFloat, {kWidth})))));
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu"});
  EXPECT_EQ(partition_indices(partitioner, build(b)), (Indices{{0}, {2}}));
}

// a -> b -> d and a -> c -> d with c unsupported: {a, b, d} would have to
// feed c and wait for it, a cycle once collapsed. {a, b} and {d} it is.
TEST(PartitionerTest, DoesNotMergeAcrossAnUnsupportedPath) {
  GraphBuilder b;
  ValueId a = b.relu(b.input("x", ScalarType::kFloat, {kWidth}));
  ValueId left = b.sin(a);
  ValueId right = b.sigmoid(a);
  b.output(b.add(left, right));
  const Graph graph = build(b);
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu", "sin", "add"});
  EXPECT_EQ(partition_indices(partitioner, graph), (Indices{{0, 1}, {3}}));

  // With both branches supported the whole diamond is one partition.
  Partitioner everything(backend, {"relu", "sin", "sigmoid", "add"});
  EXPECT_EQ(partition_indices(everything, graph), (Indices{{0, 1, 2, 3}}));
}

TEST(PartitionerTest, UnconnectedNodesAreSeparatePartitions) {
  GraphBuilder b;
  b.output(b.relu(b.input("x", ScalarType::kFloat, {kWidth})));
  b.output(b.relu(b.input("y", ScalarType::kFloat, {kWidth})));
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu"});
  EXPECT_EQ(partition_indices(partitioner, build(b)), (Indices{{0}, {1}}));
}

TEST(PartitionerTest, PredicateRefinesTheOpSet) {
  GraphBuilder b;
  b.output(b.relu(b.relu(b.relu(b.input("x", ScalarType::kFloat, {kWidth})))));
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu"},
                          [](const Graph&, const Node& node) { return node.name != "relu_1"; });
  EXPECT_EQ(partition_indices(partitioner, build(b)), (Indices{{0}, {2}}));
}

TEST(PartitionerTest, NeverSelectsDelegateCalls) {
  GraphBuilder b;
  b.output(b.relu(b.input("x", ScalarType::kFloat, {kWidth})));
  Graph graph = build(b);
  graph.nodes[0].op = std::string(op::kDelegateCall);
  graph.nodes[0].delegate = DelegateCall{"other", {}, {}, std::nullopt};
  FakeBackend backend;
  Partitioner partitioner(backend, {std::string(op::kDelegateCall)});
  EXPECT_TRUE(partition_indices(partitioner, graph).empty());
}

TEST(PartitionerTest, RejectsAnInvalidGraph) {
  GraphBuilder b;
  b.output(b.relu(b.input("x", ScalarType::kFloat, {kWidth})));
  Graph graph = build(b);
  graph.nodes[0].op = "mystery";
  FakeBackend backend;
  Partitioner partitioner(backend, {"relu"});
  EXPECT_THAT(partitioner.partition(graph), ErrorIs(Error::kInvalidArgument, {"unknown op"}));
}

}  // namespace
}  // namespace glassbox::aot

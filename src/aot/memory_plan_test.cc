#include "glassbox/aot/memory_plan.h"

#include <gtest/gtest.h>

#include "glassbox/aot/graph_builder.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::ErrorIs;
using testing::IsOk;

// 16 floats = 64 bytes: exactly one alignment unit, so offsets are easy to read.
constexpr std::int64_t kWidth = 16;
constexpr std::int64_t kValueBytes = kWidth * 4;

Graph build(GraphBuilder& b) {
  StatusOr<Graph> graph = b.build();
  EXPECT_THAT(graph, IsOk());
  return graph.ok() ? std::move(graph).value() : Graph{};
}

MemoryPlan plan_and_check(const Graph& graph) {
  StatusOr<MemoryPlan> plan = plan_memory(graph);
  EXPECT_THAT(plan, IsOk());
  if (!plan.ok()) return {};
  EXPECT_THAT(check_memory_plan(graph, *plan), IsOk());
  return std::move(plan).value();
}

// x -> relu -> sin -> cos -> sigmoid -> out.
Graph chain(int length) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kWidth});
  for (int i = 0; i < length; ++i) x = (i % 2 == 0) ? b.relu(x) : b.sin(x);
  b.output(x);
  return build(b);
}

TEST(MemoryPlanTest, ChainReusesFreedRanges) {
  const Graph graph = chain(6);
  const MemoryPlan plan = plan_and_check(graph);
  // The graph input keeps its own slot for the whole method (it may be set
  // once and executed many times); otherwise at most two values are live at
  // any step (a node's input and output), so a chain of any length needs
  // three slots, not seven.
  EXPECT_EQ(plan.arena_bytes, 3 * kValueBytes);
  std::set<std::int64_t> offsets;
  for (const auto& [id, p] : plan.values) offsets.insert(p.offset);
  EXPECT_EQ(offsets, (std::set<std::int64_t>{0, kValueBytes, 2 * kValueBytes}));
}

TEST(MemoryPlanTest, LifetimesFollowTheRules) {
  const Graph graph = chain(3);
  const MemoryPlan plan = plan_and_check(graph);
  const PlannedValue& x = plan.values.at(graph.inputs[0]);
  EXPECT_EQ(x.first_step, 0);
  EXPECT_EQ(x.last_step, 3);  // Graph inputs live to the end too.
  const PlannedValue& out = plan.values.at(graph.outputs[0]);
  EXPECT_EQ(out.first_step, 2);
  EXPECT_EQ(out.last_step, 3);  // Graph outputs live to the end (step N).
  EXPECT_EQ(out.size_bytes, kValueBytes);
}

TEST(MemoryPlanTest, ValuesUsedLaterStayLive) {
  // a = relu(x); b = sin(a); c = cos(b); d = add(a, c): a lives to the add.
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kWidth});
  ValueId a = b.relu(x);
  ValueId c = b.cos(b.sin(a));
  b.output(b.add(a, c));
  const Graph graph = build(b);
  const MemoryPlan plan = plan_and_check(graph);
  EXPECT_EQ(plan.values.at(a).last_step, 3);
  EXPECT_NE(plan.values.at(a).offset, plan.values.at(c).offset);
}

TEST(MemoryPlanTest, MixedSizesAndBranches) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {1, 3, 8, 8});
  ValueId w = b.constant("w", {4, 3, 3, 3}, std::vector<float>(4 * 3 * 3 * 3, 0.5f));
  ValueId y = b.conv2d(x, w, std::nullopt, {.padding = {1, 1}});
  ValueId p = b.max_pool2d(y, {});
  ValueId q = b.relu(p);
  ValueId r = b.sigmoid(p);
  ValueId flat = b.flatten(b.add(q, r));
  b.output(flat);
  b.output(y);  // An early value that is also an output lives to the end.
  const Graph graph = build(b);
  const MemoryPlan plan = plan_and_check(graph);
  EXPECT_FALSE(plan.values.contains(w));  // Constants are not in the arena.
  EXPECT_EQ(plan.values.at(y).last_step, static_cast<std::int64_t>(graph.nodes.size()));
  for (const auto& [id, pv] : plan.values) EXPECT_EQ(pv.offset % kArenaAlignment, 0);
}

TEST(MemoryPlanTest, CheckerCatchesOverlap) {
  const Graph graph = chain(2);
  MemoryPlan plan = plan_and_check(graph);
  // Put the relu's output on top of its own input: both live at step 0.
  plan.values.at(graph.nodes[0].outputs[0]).offset = plan.values.at(graph.inputs[0]).offset;
  EXPECT_THAT(check_memory_plan(graph, plan), ErrorIs(Error::kInternal, {"overlap", "step 0"}));
}

TEST(MemoryPlanTest, CheckerCatchesMissingAndMisaligned) {
  const Graph graph = chain(2);
  MemoryPlan plan = plan_and_check(graph);
  MemoryPlan missing = plan;
  missing.values.erase(graph.inputs[0]);
  EXPECT_THAT(check_memory_plan(graph, missing), ErrorIs(Error::kInternal));
  MemoryPlan misaligned = plan;
  misaligned.values.at(graph.inputs[0]).offset = 4;
  EXPECT_THAT(check_memory_plan(graph, misaligned), ErrorIs(Error::kInternal, {"misaligned"}));
}

TEST(MemoryPlanTest, InvalidGraphIsAnError) {
  Graph graph = chain(2);
  graph.nodes[1].inputs[0] = ValueId(99);
  EXPECT_FALSE(plan_memory(graph).ok());
}

}  // namespace
}  // namespace glassbox::aot

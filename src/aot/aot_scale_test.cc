// Lowering stays near-linear in the graph's size: a 20,000-op chain is
// planned and emitted in well under a second. The target has a ctest
// TIMEOUT, which fails these tests if a quadratic step comes back (the
// memory planner once compared every value with every earlier one).

#include <gtest/gtest.h>

#include "glassbox/aot/emitter.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/memory_plan.h"
#include "src/testing/sanitizer_build.h"
#include "test_util.h"

namespace glassbox::aot {
namespace {

using testing::IsOk;

constexpr int kOps = 20'000;
constexpr std::int64_t kWidth = 16;

Graph long_chain() {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {kWidth});
  for (int i = 0; i < kOps; ++i) x = (i % 2 == 0) ? b.relu(x) : b.sin(x);
  b.output(x);
  StatusOr<Graph> graph = b.build();
  EXPECT_THAT(graph, IsOk());
  return graph.ok() ? std::move(graph).value() : Graph{};
}

TEST(AotScaleTest, LongChainIsPlannedInLinearTime) {
  SKIP_IN_SANITIZER_BUILD();
  const Graph graph = long_chain();
  StatusOr<MemoryPlan> plan = plan_memory(graph);
  ASSERT_THAT(plan, IsOk());
  // The chain's values reuse three slots whatever its length (the input
  // keeps its own): the fast planner places them as the first-fit one did.
  EXPECT_EQ(plan->arena_bytes, 3 * kWidth * 4);
  EXPECT_EQ(plan->values.size(), static_cast<std::size_t>(kOps) + 1);
}

TEST(AotScaleTest, LongChainIsEmitted) {
  SKIP_IN_SANITIZER_BUILD();
  StatusOr<EmitResult> emitted = emit(long_chain());
  ASSERT_THAT(emitted, IsOk());
}

}  // namespace
}  // namespace glassbox::aot

// Lowering cost on a long graph: the memory plan and the whole emit of a
// 20,000-op chain (near-linear; the planner was once quadratic).
//
//   <build>/src/aot/memory_plan_benchmark --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include "glassbox/aot/emitter.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/memory_plan.h"

namespace glassbox::aot {
namespace {

constexpr int kOps = 20'000;

Graph long_chain() {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {16});
  for (int i = 0; i < kOps; ++i) x = (i % 2 == 0) ? b.relu(x) : b.sin(x);
  b.output(x);
  return std::move(b.build()).value();
}

void BM_PlanMemoryChain20k(benchmark::State& state) {
  const Graph graph = long_chain();
  for (auto _ : state) benchmark::DoNotOptimize(plan_memory(graph));
}
BENCHMARK(BM_PlanMemoryChain20k)->Unit(benchmark::kMillisecond);

void BM_EmitChain20k(benchmark::State& state) {
  const Graph graph = long_chain();
  for (auto _ : state) benchmark::DoNotOptimize(emit(graph));
}
BENCHMARK(BM_EmitChain20k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace glassbox::aot

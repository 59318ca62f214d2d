// The ETRecord's instruction maps at the size of a very large program:
// writing and parsing 100,000 instructions (linear; ordered_json's own
// insertion made this take seconds).
//
//   <build>/src/etrecord/map_json_benchmark --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <string>

#include "src/etrecord/map_json.h"

namespace glassbox::etrecord::internal {
namespace {

constexpr std::int32_t kInstructions = 100'000;

aot::PerMethod<aot::InstructionDebugHandles> large_map() {
  aot::PerMethod<aot::InstructionDebugHandles> maps;
  for (std::int32_t i = 0; i < kInstructions; ++i) {
    maps["forward"][InstructionId(i)] = {DebugHandle(static_cast<std::uint32_t>(i) + 1)};
  }
  return maps;
}

void BM_WriteDebugHandleMap100k(benchmark::State& state) {
  const auto maps = large_map();
  for (auto _ : state) benchmark::DoNotOptimize(debug_handle_map_entry(maps));
}
BENCHMARK(BM_WriteDebugHandleMap100k)->Unit(benchmark::kMillisecond);

void BM_ParseDebugHandleMap100k(benchmark::State& state) {
  const std::string text = debug_handle_map_entry(large_map());
  for (auto _ : state) {
    auto parsed = parse_debug_handle_map_entry(text);
    if (!parsed.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(parsed);
  }
}
BENCHMARK(BM_ParseDebugHandleMap100k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace glassbox::etrecord::internal

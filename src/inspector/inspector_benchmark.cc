// The Inspector's budget (ARCHITECTURE.md): load, verify, join and
// aggregate 1,000,000 events in under 0.5 s on one core. The dump is written
// by ETDumpGen in heap mode: 1,000 executions of one delegate call logging
// 999 post-time events over 100 int identifiers (a loop, so each identifier
// repeats about 10 times a run), plus the DELEGATE_CALL around them.
//
//   <build>/src/inspector/inspector_benchmark --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/views.h"

namespace glassbox::inspector {
namespace {

constexpr int kRuns = 1000;
constexpr int kEventsPerRun = 1000;  // including the DELEGATE_CALL
constexpr int kIdentifiers = 100;
constexpr char kFingerprint[] = "0123456789abcdef";

std::vector<std::uint8_t> make_dump() {
  etdump::ETDumpGenOptions options;
  options.heap_max_events = 2 * kRuns * kEventsPerRun;
  etdump::ETDumpGen gen(options);
  gen.set_program_fingerprint(kFingerprint);
  Ticks t = 1'000'000;
  for (int r = 0; r < kRuns; ++r) {
    (void)gen.create_event_block("Execute");
    gen.set_chain_instruction(ChainId(0), InstructionId(0));
    t += 10;
    for (int e = 0; e < kEventsPerRun - 1; ++e) {
      (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(e % kIdentifiers), t, t + 100);
      t += 105;
    }
    runtime::EventTracerEntry call =
        gen.start_profiling("DELEGATE_CALL", ChainId(0), InstructionId(0));
    (void)call;
    (void)gen.end_profiling(call);
    t += 1000;
  }
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  if (!data.ok()) {
    std::fprintf(stderr, "cannot serialize the benchmark dump\n");
    std::abort();
  }
  return std::vector<std::uint8_t>(data->begin(), data->end());
}

etrecord::ETRecord make_record() {
  etrecord::ETRecord record;
  record.fingerprint = kFingerprint;
  aot::Graph graph;
  aot::DebugHandleMap map;
  std::vector<DebugHandle> all;
  for (int i = 0; i < kIdentifiers; ++i) {
    aot::Node node;
    node.name = "op_" + std::to_string(i);
    node.op = i % 2 == 0 ? "conv2d" : "relu";
    node.debug_handle = DebugHandle(static_cast<std::uint32_t>(i + 1));
    node.module_hierarchy = {{"block" + std::to_string(i / 10), "Block"}};
    graph.nodes.push_back(node);
    map[aot::DelegateDebugIdentifier(std::int64_t{i})] = {node.debug_handle};
    all.push_back(node.debug_handle);
  }
  record.edge_graphs["forward"] = graph;
  record.debug_handle_map["forward"][InstructionId(0)] = all;
  record.delegate_map["forward"][InstructionId(0)] = {"bench", map};
  record.instruction_id_to_num_outs_map["forward"][InstructionId(0)] = 1;
  return record;
}

void BM_InspectMillionEvents(benchmark::State& state) {
  const std::vector<std::uint8_t> bytes = make_dump();
  const etrecord::ETRecord record = make_record();
  std::size_t events = 0;
  for (auto _ : state) {
    StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(bytes, "<benchmark>");
    if (!dump.ok()) {
      state.SkipWithError(dump.message().c_str());
      return;
    }
    StatusOr<Inspector> insp = Inspector::create(*dump, &record);
    if (!insp.ok()) {
      state.SkipWithError(insp.message().c_str());
      return;
    }
    const std::vector<OpRow> rows = ops_view(*insp);
    benchmark::DoNotOptimize(rows.data());
    events = insp->occurrences().size();
  }
  state.counters["events"] = static_cast<double>(events);
  state.counters["dump_MB"] = static_cast<double>(bytes.size()) / 1e6;
  state.counters["events_per_s"] = benchmark::Counter(
      static_cast<double>(events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_InspectMillionEvents)->Unit(benchmark::kMillisecond)->UseRealTime();

// The parts separately, to see where the time goes.
void BM_ParseOnly(benchmark::State& state) {
  const std::vector<std::uint8_t> bytes = make_dump();
  for (auto _ : state) {
    StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(bytes, "<benchmark>");
    benchmark::DoNotOptimize(dump.ok());
  }
}
BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_JoinAndAggregateOnly(benchmark::State& state) {
  const std::vector<std::uint8_t> bytes = make_dump();
  const etrecord::ETRecord record = make_record();
  const etdump::ETDumpFile dump = etdump::parse_etdump(bytes, "<benchmark>").value();
  for (auto _ : state) {
    StatusOr<Inspector> insp = Inspector::create(dump, &record);
    const std::vector<OpRow> rows = ops_view(*insp);
    benchmark::DoNotOptimize(rows.data());
  }
}
BENCHMARK(BM_JoinAndAggregateOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace glassbox::inspector

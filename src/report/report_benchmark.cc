// The report of 1,000,000-event ETDumps, written by ETDumpGen and read
// back, in two shapes: many executions (1,000 x 1,000 events: the
// timeline shows one, the table aggregates all) and one execution of
// 1,000,000 events (its timeline is sampled to the 20,000 longest; event
// durations vary so the choice means something). Measures the C++ side
// (verify, join, aggregate, page). With GLASSBOX_REPORT_BENCH_PAGES=DIR the
// pages are also written there (many_executions.html, one_execution.html)
// for the browser's render time (scripts/bench_report.sh).
//
//   <build>/src/report/report_benchmark --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/report/report.h"

namespace glassbox::report {
namespace {

constexpr int kEvents = 1'000'000;
constexpr int kIdentifiers = 100;

// `runs` executions of one delegate call logging kEvents / runs - 1 events
// over kIdentifiers int identifiers, plus the DELEGATE_CALL.
std::vector<std::uint8_t> make_dump(int runs) {
  etdump::ETDumpGenOptions options;
  options.heap_max_events = 2 * kEvents;
  etdump::ETDumpGen gen(options);
  Ticks t = 1'000'000;
  for (int r = 0; r < runs; ++r) {
    (void)gen.create_event_block("Execute");
    gen.set_chain_instruction(ChainId(0), InstructionId(0));
    for (int e = 0; e < kEvents / runs - 1; ++e) {
      const Ticks duration = 50 + (static_cast<Ticks>(e) * 7919) % 1000;
      (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(e % kIdentifiers), t,
                                       t + duration);
      t += duration + 5;
    }
    runtime::EventTracerEntry call =
        gen.start_profiling("DELEGATE_CALL", ChainId(0), InstructionId(0));
    (void)gen.end_profiling(call);
  }
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  if (!data.ok()) std::abort();  // Without its input the benchmark measures nothing.
  return std::vector<std::uint8_t>(data->begin(), data->end());
}

void BM_ReportMillionEvents(benchmark::State& state, int runs, const char* page_name) {
  const std::vector<std::uint8_t> bytes = make_dump(runs);
  std::string page;
  for (auto _ : state) {
    StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(bytes, "<benchmark>");
    if (!dump.ok()) {
      state.SkipWithError(dump.message().c_str());
      return;
    }
    StatusOr<inspector::Inspector> insp = inspector::Inspector::create(*dump);
    if (!insp.ok()) {
      state.SkipWithError(insp.message().c_str());
      return;
    }
    StatusOr<std::string> rendered = render_report({.current = &*insp}, {});
    if (!rendered.ok()) {
      state.SkipWithError(rendered.message().c_str());
      return;
    }
    page = std::move(*rendered);
    benchmark::DoNotOptimize(page.data());
  }
  state.counters["page_MB"] = static_cast<double>(page.size()) / 1e6;
  if (const char* dir = std::getenv("GLASSBOX_REPORT_BENCH_PAGES")) {
    std::ofstream(std::string(dir) + "/" + page_name, std::ios::binary | std::ios::trunc) << page;
  }
}
BENCHMARK_CAPTURE(BM_ReportMillionEvents, many_executions, 1000, "many_executions.html")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReportMillionEvents, one_execution, 1, "one_execution.html")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace glassbox::report

// The report of a 1,000,000-event ETDump: one execution whose delegate call
// logs 999,999 events over 100 int identifiers (durations vary, so the
// timeline's "longest events" sampling has something to choose), written
// by ETDumpGen and read back. Measures the C++ side (verify, join,
// aggregate, page); with GLASSBOX_REPORT_BENCH_PAGE=FILE it also writes the
// page there, for the browser's render time (scripts/bench_report.sh).
//
//   <build>/src/report/report_benchmark --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/report/report.h"

namespace glassbox::report {
namespace {

constexpr int kEvents = 1'000'000;  // including the DELEGATE_CALL
constexpr int kIdentifiers = 100;

std::vector<std::uint8_t> make_single_execution_dump() {
  etdump::ETDumpGenOptions options;
  options.heap_max_events = 2 * kEvents;
  etdump::ETDumpGen gen(options);
  (void)gen.create_event_block("Execute");
  gen.set_chain_instruction(ChainId(0), InstructionId(0));
  Ticks t = 1'000'000;
  for (int e = 0; e < kEvents - 1; ++e) {
    const Ticks duration = 50 + static_cast<Ticks>((e * 7919) % 1000);
    (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(e % kIdentifiers), t,
                                     t + duration);
    t += duration + 5;
  }
  runtime::EventTracerEntry call =
      gen.start_profiling("DELEGATE_CALL", ChainId(0), InstructionId(0));
  (void)gen.end_profiling(call);
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  if (!data.ok()) std::abort();  // Without its input the benchmark measures nothing.
  return std::vector<std::uint8_t>(data->begin(), data->end());
}

void BM_ReportMillionEventExecution(benchmark::State& state) {
  const std::vector<std::uint8_t> bytes = make_single_execution_dump();
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
  if (const char* out = std::getenv("GLASSBOX_REPORT_BENCH_PAGE")) {
    std::ofstream(out, std::ios::binary | std::ios::trunc) << page;
  }
}
BENCHMARK(BM_ReportMillionEventExecution)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace glassbox::report

// Hot-path costs of tracing, each next to the floor it is judged against:
// two raw clock reads. docs/benchmarks.md records the results.
//
// Each logging benchmark uses a caller-buffer ETDumpGen (no allocation) and
// resets it, outside the timed region, before it fills: a full tracer only
// counts drops, which would measure the wrong path.

#include <benchmark/benchmark.h>

#include <optional>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/event_tracer_hooks.h"

namespace glassbox::etdump {
namespace {

using runtime::EventTracer;
using runtime::EventTracerEntry;

constexpr std::size_t kBufferBytes = 64 << 20;

Clock clock_for(const benchmark::State& state) {
  return state.range(0) == 0 ? Clock::steady() : Clock::tsc();
}
const char* clock_label(const benchmark::State& state) {
  return state.range(0) == 0 ? "steady_clock" : "tsc";
}

// Owns a tracer and resets it (untimed) every `capacity / 2` iterations.
class Harness {
 public:
  explicit Harness(benchmark::State& state) : state_(state), memory_(kBufferBytes) {
    ETDumpGenOptions options;
    options.clock = clock_for(state);
    gen_.emplace(Span<std::uint8_t>(memory_), options);
    batch_ = gen_->capacity() / 2;
    (void)gen_->create_event_block("bench");
    state.SetLabel(clock_label(state));
  }
  EventTracer* tracer() { return &*gen_; }
  void tick(std::size_t events_per_iteration) {
    if (++count_ * events_per_iteration >= batch_) {
      state_.PauseTiming();
      gen_->reset();
      (void)gen_->create_event_block("bench");
      count_ = 0;
      state_.ResumeTiming();
    }
  }
  ~Harness() {
    if (gen_->dropped_events() != 0) state_.SkipWithError("events dropped");
  }

 private:
  benchmark::State& state_;
  std::vector<std::uint8_t> memory_;
  std::optional<ETDumpGen> gen_;
  std::size_t batch_ = 0;
  std::size_t count_ = 0;
};

void BM_TwoClockReads(benchmark::State& state) {
  const Clock clock = clock_for(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(clock.now());
    benchmark::DoNotOptimize(clock.now());
  }
  state.SetLabel(clock_label(state));
}
BENCHMARK(BM_TwoClockReads)->Arg(0)->Arg(1);

void BM_DelegateEventPairIntId(benchmark::State& state) {
  Harness h(state);
  EventTracer* tracer = h.tracer();
  for (auto _ : state) {
    EventTracerEntry e =
        runtime::event_tracer_start_profiling_delegate(tracer, nullptr, DelegateDebugIntId(7));
    (void)runtime::event_tracer_end_profiling_delegate(tracer, e);
    h.tick(1);
  }
}
BENCHMARK(BM_DelegateEventPairIntId)->Arg(0)->Arg(1);

void BM_DelegateEventPairStringId(benchmark::State& state) {
  Harness h(state);
  EventTracer* tracer = h.tracer();
  for (auto _ : state) {
    EventTracerEntry e = runtime::event_tracer_start_profiling_delegate(tracer, "conv_relu_fused",
                                                                        kUnsetDelegateDebugIntId);
    (void)runtime::event_tracer_end_profiling_delegate(tracer, e);
    h.tick(1);
  }
}
BENCHMARK(BM_DelegateEventPairStringId)->Arg(0)->Arg(1);

void BM_PostTimeLogDelegate(benchmark::State& state) {
  Harness h(state);
  EventTracer* tracer = h.tracer();
  Ticks t = 1000;
  for (auto _ : state) {
    (void)runtime::event_tracer_log_profiling_delegate(tracer, nullptr, DelegateDebugIntId(3), t,
                                                       t + 50);
    t += 100;
    h.tick(1);
  }
}
BENCHMARK(BM_PostTimeLogDelegate)->Arg(0);

void BM_OperatorScope(benchmark::State& state) {
  Harness h(state);
  EventTracer* tracer = h.tracer();
  for (auto _ : state) {
    runtime::EventTracerProfileOpScope scope(tracer, "OPERATOR_CALL");
    h.tick(1);
  }
}
BENCHMARK(BM_OperatorScope)->Arg(0)->Arg(1);

void BM_HookOnNullTracer(benchmark::State& state) {
  EventTracer* tracer = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tracer);  // the branch must stay a real one
    EventTracerEntry e =
        runtime::event_tracer_start_profiling_delegate(tracer, nullptr, DelegateDebugIntId(7));
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_HookOnNullTracer);

// A dump of `kEvents` delegate events with metadata, shared by the
// serialization and reader benchmarks.
constexpr std::int64_t kEvents = 100000;

void fill(ETDumpGen& gen) {
  (void)gen.create_event_block("Execute");
  for (std::int64_t i = 0; i < kEvents; ++i) {
    (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(static_cast<std::int32_t>(i % 64)),
                                     static_cast<Ticks>(i), static_cast<Ticks>(i + 1), "op", 2);
  }
}

void BM_SerializePerEvent(benchmark::State& state) {
  ETDumpGen gen;
  fill(gen);
  for (auto _ : state) {
    Result<Span<const std::uint8_t>> out = gen.get_etdump_data();
    benchmark::DoNotOptimize(out->data());
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
}
BENCHMARK(BM_SerializePerEvent)->Unit(benchmark::kMillisecond);

void BM_ReaderDecodePerEvent(benchmark::State& state) {
  ETDumpGen gen;
  fill(gen);
  Result<Span<const std::uint8_t>> out = gen.get_etdump_data();
  const std::vector<std::uint8_t> bytes(out->begin(), out->end());
  for (auto _ : state) {
    StatusOr<ETDumpFile> file = parse_etdump(bytes, "bench.etdp");
    benchmark::DoNotOptimize(file.ok());
  }
  state.SetItemsProcessed(state.iterations() * kEvents);
  state.counters["bytes_per_event"] =
      static_cast<double>(bytes.size()) / static_cast<double>(kEvents);
}
BENCHMARK(BM_ReaderDecodePerEvent)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace glassbox::etdump

// Hot-path costs of tracing, each next to the floor it is judged against:
// two raw clock reads. docs/benchmarks.md records the results.
//
// Each logging benchmark uses a caller-buffer ETDumpGen (no allocation) and
// resets it, outside the timed region, before it fills: a full tracer only
// counts drops, which would measure the wrong path.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
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
    // A fixed batch (4.8 MB of records), so that figures compare across
    // versions whose buffers hold different numbers of events.
    batch_ = std::min<std::size_t>(gen_->capacity() / 2, 150000);
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

// The floor: what any real-time event pair must do.
inline void two_clock_reads(const Clock& clock) {
  benchmark::DoNotOptimize(clock.now());
  benchmark::DoNotOptimize(clock.now());
}

// A delegate's real-time event pair with an int identifier.
inline void delegate_event_pair(EventTracer* tracer) {
  EventTracerEntry e =
      runtime::event_tracer_start_profiling_delegate(tracer, nullptr, DelegateDebugIntId(7));
  (void)runtime::event_tracer_end_profiling_delegate(tracer, e);
}

void BM_TwoClockReads(benchmark::State& state) {
  const Clock clock = clock_for(state);
  for (auto _ : state) two_clock_reads(clock);
  state.SetLabel(clock_label(state));
}
BENCHMARK(BM_TwoClockReads)->Arg(0)->Arg(1);

void BM_DelegateEventPairIntId(benchmark::State& state) {
  Harness h(state);
  EventTracer* tracer = h.tracer();
  for (auto _ : state) {
    delegate_event_pair(tracer);
    h.tick(1);
  }
}
BENCHMARK(BM_DelegateEventPairIntId)->Arg(0)->Arg(1);

// The int-id pair and its floor (two clock reads) timed alternately, in
// rounds of kRoundEvents each, so that what this shared machine does over
// milliseconds (other guests, frequency changes) falls on both alike. The
// separate benchmarks above run seconds apart, and their ratio moves with
// it. Reports the pair's time per event (manual time), the floor's
// (`floor_ns`), and the median of the rounds' ratios (`ratio_to_floor`);
// the order within a round alternates so that neither side always runs on
// a cache warmed by the other.
void BM_DelegateEventPairInterleaved(benchmark::State& state) {
  constexpr int kRoundEvents = 512;
  const Clock clock = clock_for(state);
  Harness h(state);
  EventTracer* tracer = h.tracer();
  const auto floor_round = [&] {
    for (int i = 0; i < kRoundEvents; ++i) two_clock_reads(clock);
  };
  const auto pair_round = [&] {
    for (int i = 0; i < kRoundEvents; ++i) delegate_event_pair(tracer);
  };
  const auto timed = [](const auto& round) {
    const auto start = std::chrono::steady_clock::now();
    round();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<double> ratios;
  double floor_seconds = 0;
  bool floor_first = true;
  for (auto _ : state) {
    double floor_s = 0;
    double pair_s = 0;
    if (floor_first) {
      floor_s = timed(floor_round);
      pair_s = timed(pair_round);
    } else {
      pair_s = timed(pair_round);
      floor_s = timed(floor_round);
    }
    floor_first = !floor_first;
    state.SetIterationTime(pair_s);
    floor_seconds += floor_s;
    ratios.push_back(pair_s / floor_s);
    h.tick(kRoundEvents);
  }
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  const double events = static_cast<double>(state.iterations()) * kRoundEvents;
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["floor_ns"] = floor_seconds * 1e9 / events;
  state.counters["ratio_to_floor"] = ratios.empty() ? 0.0 : ratios[ratios.size() / 2];
}
BENCHMARK(BM_DelegateEventPairInterleaved)->Arg(0)->Arg(1)->UseManualTime();

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

// A delegate's loop of operators logged after it runs, as
// backends::OperatorProfiler::finish does: 128 operators whose metadata is
// one of 8 kernel names (OperatorEvents points equal names at one copy).
// Arg 0: one log_profiling_delegate call an event; 1: one
// log_profiling_delegates call for the loop. Time per event.
void BM_PostTimeDelegateLoop(benchmark::State& state) {
  constexpr std::size_t kOps = 128;
  static const std::string kKinds[8] = {"fully_connected_nc_f32", "add_nd_f32",
                                        "transpose: glassbox",    "batch_matmul: glassbox",
                                        "softmax_nc_f32",         "layer_norm: glassbox",
                                        "erf: glassbox",          "multiply_nd_f32"};
  std::vector<runtime::DelegateEventDesc> ops(kOps);
  std::vector<runtime::DelegateEventTimes> times(kOps);
  for (std::size_t i = 0; i < kOps; ++i) {
    const std::string& kind = kKinds[(i * 5) % 8];
    ops[i] = {nullptr, DelegateDebugIntId(static_cast<std::int32_t>(i)), kind.data(), kind.size()};
    times[i] = {100 * i, 100 * i + 90};
  }
  const bool batch = state.range(0) == 1;
  Harness h(state);
  EventTracer* tracer = h.tracer();
  for (auto _ : state) {
    if (batch) {
      (void)runtime::event_tracer_log_profiling_delegates(tracer, ops, times.data());
    } else {
      for (std::size_t i = 0; i < kOps; ++i) {
        (void)runtime::event_tracer_log_profiling_delegate(tracer, ops[i].name, ops[i].int_id,
                                                           times[i].start, times[i].end,
                                                           ops[i].metadata, ops[i].metadata_len);
      }
    }
    h.tick(kOps);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kOps));
  state.SetLabel(batch ? "one call" : "a call an event");
}
BENCHMARK(BM_PostTimeDelegateLoop)->Arg(0)->Arg(1);

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

// ---- Serialization -----------------------------------------------------------
//
// Arguments: events, identifier (0 int, 1 string), metadata (0 none, 1 the
// same two bytes on every event, as a delegate logs its operator's kind:
// interned; 2 two bytes that differ from event to event: past the first 31,
// copied per event), mode (0 heap, 1 caller buffer). Timed manually, in thread CPU
// time, so that the caller-buffer refill (its dump is written over the
// records) stays out of the figure. Each also reports the floor measured
// in the same run the same way: a memcpy of the dump's bytes into a warm
// buffer, per event, and the ratio.

constexpr std::int64_t kDelegateIds = 64;

enum class Metadata : std::int64_t { kNone = 0, kRepeated = 1, kDistinct = 2 };

void log_events(ETDumpGen& gen, std::int64_t events, bool string_id, Metadata metadata) {
  (void)gen.create_event_block("Execute");
  const char* names[] = {"conv_1", "relu_2", "pool_3", "fc_4"};
  for (std::int64_t i = 0; i < events; ++i) {
    const char* name = string_id ? names[i % 4] : nullptr;
    const DelegateDebugIntId id =
        string_id ? kUnsetDelegateDebugIntId
                  : DelegateDebugIntId(static_cast<std::int32_t>(i % kDelegateIds));
    const char counter[2] = {static_cast<char>(i), static_cast<char>(i >> 8)};
    const char* bytes = metadata == Metadata::kDistinct ? counter : "op";
    (void)gen.log_profiling_delegate(name, id, static_cast<Ticks>(i), static_cast<Ticks>(i + 1),
                                     metadata == Metadata::kNone ? nullptr : bytes,
                                     metadata == Metadata::kNone ? 0 : 2);
  }
}

const char* metadata_label(Metadata metadata) {
  switch (metadata) {
    case Metadata::kNone: return "";
    case Metadata::kRepeated: return ", repeated metadata";
    case Metadata::kDistinct: return ", distinct metadata";
  }
  return "";
}

// Bytes a caller buffer needs for `events` such events (slots at 60 bytes,
// two slots with short metadata), with room for the fixed parts.
std::size_t buffer_bytes(std::int64_t events, bool metadata) {
  return static_cast<std::size_t>(events) * (metadata ? 2 : 1) * 60 + (1 << 20);
}

// CPU time of this thread: the machine the figures come from is shared,
// and time spent descheduled is not the serializer's.
double thread_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The median of 5 copies of `bytes` into a warm buffer.
double memcpy_ns(Span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> to(bytes.size(), 1);
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    const double start = thread_ns();
    std::memcpy(to.data(), bytes.data(), bytes.size());
    benchmark::ClobberMemory();
    times.push_back(thread_ns() - start);
  }
  std::sort(times.begin(), times.end());
  return times[2];
}

void BM_Serialize(benchmark::State& state) {
  const std::int64_t events = state.range(0);
  const bool string_id = state.range(1) != 0;
  const auto metadata = static_cast<Metadata>(state.range(2));
  const bool caller_buffer = state.range(3) != 0;
  std::vector<std::uint8_t> memory(
      caller_buffer ? buffer_bytes(events, metadata != Metadata::kNone) : 0, 0);
  std::optional<ETDumpGen> gen;
  if (caller_buffer) {
    gen.emplace(Span<std::uint8_t>(memory));
  } else {
    gen.emplace();
    log_events(*gen, events, string_id, metadata);
  }
  double total_ns = 0;
  std::size_t dump_bytes = 0;
  std::vector<std::uint8_t> last;
  for (auto _ : state) {
    if (caller_buffer) {
      gen->reset();
      log_events(*gen, events, string_id, metadata);
    }
    const double start = thread_ns();
    Result<Span<const std::uint8_t>> out = gen->get_etdump_data();
    benchmark::DoNotOptimize(out->data());
    const double ns = thread_ns() - start;
    state.SetIterationTime(ns * 1e-9);
    total_ns += ns;
    dump_bytes = out->size();
    if (last.empty()) last.assign(out->begin(), out->end());
  }
  if (gen->dropped_events() != 0) state.SkipWithError("events dropped");
  const double floor = memcpy_ns(last) / static_cast<double>(events);
  const double per_event =
      total_ns / static_cast<double>(state.iterations()) / static_cast<double>(events);
  state.SetItemsProcessed(state.iterations() * events);
  state.counters["bytes_per_event"] = static_cast<double>(dump_bytes) / static_cast<double>(events);
  state.counters["memcpy_ns_per_event"] = floor;
  state.counters["ratio_to_memcpy"] = per_event / floor;
  state.SetLabel(std::string(caller_buffer ? "caller buffer" : "heap") +
                 (string_id ? ", string ids" : ", int ids") + metadata_label(metadata));
}
BENCHMARK(BM_Serialize)
    ->ArgNames({"events", "str", "meta", "buffer"})
    ->ArgsProduct({{100000, 1000000}, {0, 1}, {0, 1, 2}, {0, 1}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

// Log and serialize, per event, as a run would: a fresh heap tracer, or a
// caller buffer reset, then `events` delegate event pairs (int ids, the
// clock read at both ends) or post-time events with 2 bytes of metadata,
// then get_etdump_data(). Argument 1: 0 pairs, 1 post-time with the same
// metadata on every event (interned), 2 post-time with metadata that
// differs from event to event (copied past the first 31).
void BM_LogAndSerialize(benchmark::State& state) {
  const std::int64_t events = state.range(0);
  const bool post_time = state.range(1) != 0;
  const bool distinct = state.range(1) == 2;
  const bool caller_buffer = state.range(2) != 0;
  std::vector<std::uint8_t> memory(caller_buffer ? buffer_bytes(events, post_time) : 0, 0);
  std::optional<ETDumpGen> buffer_gen;
  if (caller_buffer) buffer_gen.emplace(Span<std::uint8_t>(memory));
  std::uint64_t dropped = 0;
  for (auto _ : state) {
    std::optional<ETDumpGen> heap_gen;
    ETDumpGen* gen = nullptr;
    if (caller_buffer) {
      buffer_gen->reset();
      gen = &*buffer_gen;
    } else {
      gen = &heap_gen.emplace();
    }
    (void)gen->create_event_block("Execute");
    EventTracer* tracer = gen;
    for (std::int64_t i = 0; i < events; ++i) {
      const DelegateDebugIntId id(static_cast<std::int32_t>(i % kDelegateIds));
      if (post_time) {
        const char counter[2] = {static_cast<char>(i), static_cast<char>(i >> 8)};
        (void)runtime::event_tracer_log_profiling_delegate(
            tracer, nullptr, id, static_cast<Ticks>(i), static_cast<Ticks>(i + 1),
            distinct ? counter : "op", 2);
      } else {
        EventTracerEntry e = runtime::event_tracer_start_profiling_delegate(tracer, nullptr, id);
        (void)runtime::event_tracer_end_profiling_delegate(tracer, e);
      }
    }
    Result<Span<const std::uint8_t>> out = gen->get_etdump_data();
    benchmark::DoNotOptimize(out->data());
    dropped += gen->dropped_events();
  }
  if (dropped != 0) state.SkipWithError("events dropped");
  state.SetItemsProcessed(state.iterations() * events);
  state.SetLabel(std::string(caller_buffer ? "caller buffer" : "heap") +
                 (!post_time ? ", pairs"
                  : distinct ? ", post-time with distinct metadata"
                             : ", post-time with repeated metadata"));
}
BENCHMARK(BM_LogAndSerialize)
    ->ArgNames({"events", "post_time", "buffer"})
    ->ArgsProduct({{100000, 1000000}, {0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// A dump of 100,000 delegate events with metadata (a vector each), for the
// reader.
constexpr std::int64_t kEvents = 100000;

void BM_ReaderDecodePerEvent(benchmark::State& state) {
  ETDumpGen gen;
  log_events(gen, kEvents, false, Metadata::kDistinct);
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

// ETDumpGen filled past its capacity from several threads at once: every
// attempted event is either kept in the dump or counted as dropped, never
// lost or doubled. Also run by the ThreadSanitizer build (make test-tsan).

#include <gtest/gtest.h>

#include <algorithm>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::IsOk;

constexpr int kThreads = 4;
constexpr int kEventsPerThread = 3000;
constexpr std::size_t kAttempted = std::size_t{kThreads} * kEventsPerThread;

// Profile events from every thread, each named by its thread.
void fill_from_threads(ETDumpGen& gen) {
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&gen, t] {
      const std::string name = "worker" + std::to_string(t);
      for (int i = 0; i < kEventsPerThread; ++i) {
        runtime::EventTracerEntry e =
            runtime::event_tracer_start_profiling_delegate(&gen, nullptr, DelegateDebugIntId(t));
        (void)runtime::event_tracer_end_profiling_delegate(&gen, e, name.c_str());
      }
    });
  }
  for (std::thread& th : pool) th.join();
}

void expect_kept_plus_dropped_is_attempted(ETDumpGen& gen) {
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  ASSERT_THAT(data, IsOk());
  StatusOr<ETDumpFile> file = parse_etdump(*data, "threads.etdp");
  ASSERT_THAT(file, IsOk());
  const RunData& run = file->runs.at(0);
  const std::size_t kept = run.events.size();
  EXPECT_GT(gen.dropped_events(), 0u) << "the test must overfill the tracer";
  EXPECT_GT(kept, 0u);
  EXPECT_EQ(kept + gen.dropped_events(), kAttempted);
  EXPECT_EQ(run.dropped_events.value_or(0), gen.dropped_events());
}

TEST(ETDumpGenThreadsTest, CallerBufferOverfilledFromThreads) {
  std::vector<std::uint8_t> buffer(256 << 10);
  ETDumpGen gen{Span<std::uint8_t>(buffer)};
  ASSERT_EQ(gen.status(), Error::kOk);
  ASSERT_LT(gen.capacity(), kAttempted);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  fill_from_threads(gen);
  expect_kept_plus_dropped_is_attempted(gen);
}

TEST(ETDumpGenThreadsTest, HeapModeOverfilledFromThreads) {
  ETDumpGenOptions options;
  options.heap_max_events = kAttempted / 3;
  ETDumpGen gen(options);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  fill_from_threads(gen);
  expect_kept_plus_dropped_is_attempted(gen);
}

// Counters from several threads at once: each thread names its own
// counter and a shared one, all first seen concurrently. Every kept event
// has both, with its own thread's values; the names are interned once.
TEST(ETDumpGenThreadsTest, CountersFromThreadsKeepTheirNamesAndValues) {
  // Room for every event (three records each), so that each thread's name
  // is interned: a full buffer leaves out names it cannot charge.
  std::vector<std::uint8_t> buffer(4 << 20);
  ETDumpGen gen{Span<std::uint8_t>(buffer)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  static const char* const kOwn[kThreads] = {"t0", "t1", "t2", "t3"};
  std::latch start(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&gen, &start, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kEventsPerThread; ++i) {
        const runtime::DelegateCounter counters[] = {{"shared", t}, {kOwn[t], 1000 + t}};
        (void)runtime::event_tracer_log_profiling_delegate_with_counters(
            &gen, nullptr, DelegateDebugIntId(t), 1, 2, counters);
      }
    });
  }
  for (std::thread& th : pool) th.join();
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  ASSERT_THAT(data, IsOk());
  StatusOr<ETDumpFile> file = parse_etdump(*data, "threads.etdp");
  ASSERT_THAT(file, IsOk());
  std::vector<std::string> names = file->counter_names;
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"shared", "t0", "t1", "t2", "t3"}));
  const RunData& run = file->runs.at(0);
  EXPECT_EQ(gen.dropped_events(), 0u);
  EXPECT_EQ(run.events.size(), kAttempted);
  for (const Event& e : run.events) {
    const ProfileEvent& p = *e.profile();
    const std::int32_t t = p.delegate_debug_id_int.value;
    ASSERT_EQ(p.counters.size(), 2u);
    EXPECT_EQ(file->counter_names.at(p.counters[0].name), "shared");
    EXPECT_EQ(p.counters[0].value, t);
    EXPECT_EQ(file->counter_names.at(p.counters[1].name), kOwn[t]);
    EXPECT_EQ(p.counters[1].value, 1000 + t);
  }
}

// Each logging thread claims record slots ahead (a run). A run claimed in
// one block must not carry the thread's later events into that block, and
// its unused slots must read as empty: the caller's buffer starts out full
// of 0x02 bytes, which would read as int-id delegate events (RecordKind 2).
TEST(ETDumpGenThreadsTest, AWorkersEventsStayInTheBlockTheyWereLoggedIn) {
  std::vector<std::uint8_t> buffer(256 << 10, 0x02);
  ETDumpGen gen{Span<std::uint8_t>(buffer)};
  ASSERT_EQ(gen.create_event_block("first"), Error::kOk);
  std::latch logged_first(1);
  std::latch second_block(1);
  std::thread worker([&] {
    (void)runtime::event_tracer_log_profiling_delegate(&gen, nullptr, DelegateDebugIntId(1), 10,
                                                       20);
    logged_first.count_down();
    second_block.wait();
    (void)runtime::event_tracer_log_profiling_delegate(&gen, nullptr, DelegateDebugIntId(2), 30,
                                                       40);
  });
  logged_first.wait();
  (void)runtime::event_tracer_log_profiling_delegate(&gen, nullptr, DelegateDebugIntId(3), 15, 25);
  ASSERT_EQ(gen.create_event_block("second"), Error::kOk);
  second_block.count_down();
  worker.join();
  (void)runtime::event_tracer_log_profiling_delegate(&gen, nullptr, DelegateDebugIntId(4), 50, 60);

  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  ASSERT_THAT(data, IsOk());
  StatusOr<ETDumpFile> file = parse_etdump(*data, "runs.etdp");
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ(file->runs.size(), 2u);
  auto ids = [](const RunData& run) {
    std::vector<int> out;
    for (const Event& e : run.events) out.push_back(e.profile()->delegate_debug_id_int.value);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(ids(file->runs[0]), (std::vector<int>{1, 3}));
  EXPECT_EQ(ids(file->runs[1]), (std::vector<int>{2, 4}));
  EXPECT_EQ(gen.dropped_events(), 0u);
  EXPECT_EQ(gen.num_events(), 4u);
}

// Runs belong to one tracer: a thread that alternates between two keeps
// each one's events in its own dump, in order.
TEST(ETDumpGenThreadsTest, OneThreadAlternatingBetweenTwoTracers) {
  std::vector<std::uint8_t> buffer(256 << 10, 0x02);
  ETDumpGen in_buffer{Span<std::uint8_t>(buffer)};
  ETDumpGen on_heap;
  ASSERT_EQ(in_buffer.create_event_block("a"), Error::kOk);
  ASSERT_EQ(on_heap.create_event_block("b"), Error::kOk);
  constexpr int kEach = 100;
  for (int i = 0; i < kEach; ++i) {
    (void)runtime::event_tracer_log_profiling_delegate(&in_buffer, nullptr, DelegateDebugIntId(i),
                                                       i, i + 1);
    (void)runtime::event_tracer_log_profiling_delegate(&on_heap, nullptr,
                                                       DelegateDebugIntId(1000 + i), i, i + 1);
  }
  int first_id = 0;
  for (ETDumpGen* gen : {&in_buffer, &on_heap}) {
    Result<Span<const std::uint8_t>> data = gen->get_etdump_data();
    ASSERT_THAT(data, IsOk());
    StatusOr<ETDumpFile> file = parse_etdump(*data, "alternating.etdp");
    ASSERT_THAT(file, IsOk());
    const RunData& run = file->runs.at(0);
    ASSERT_EQ(run.events.size(), std::size_t{kEach});
    for (int i = 0; i < kEach; ++i) {
      EXPECT_EQ(run.events[i].profile()->delegate_debug_id_int.value, first_id + i);
    }
    first_id = 1000;
  }
}

}  // namespace
}  // namespace glassbox::etdump

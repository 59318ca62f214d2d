// ETDumpGen filled past its capacity from several threads at once: every
// attempted event is either kept in the dump or counted as dropped, never
// lost or doubled. Also run by the ThreadSanitizer build (make test-tsan).

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace glassbox::etdump

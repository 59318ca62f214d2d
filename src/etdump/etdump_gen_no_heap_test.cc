// No allocation after init: a caller-buffer ETDumpGen logs delegate events
// with counters (new names and known ones, every form of metadata, both
// hooks) and writes its dump without touching the heap.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "src/testing/count_allocations.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::allocations_during;
using ::glassbox::testing::IsOk;
using runtime::DelegateCounter;

TEST(ETDumpGenNoHeapTest, CountersAllocateNothingAfterInit) {
  if (!::glassbox::testing::kCountsAllocations) {
    GTEST_SKIP() << "allocations are counted only without sanitizers, on glibc";
  }
  std::vector<std::uint8_t> memory(1 << 20);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.status(), Error::kOk);
  const char long_metadata[100] = {'c', 'o', 'n', 'v'};
  Result<Span<const std::uint8_t>> dump = make_error(Error::kInternal, "not run");
  const std::size_t allocations = allocations_during([&] {
    (void)gen.create_event_block("Execute");
    for (std::int64_t i = 0; i < 100; ++i) {
      const DelegateCounter counters[] = {{"cycles", 10 * i}, {"macs", i}, {"dma_bytes", 2 * i}};
      (void)runtime::event_tracer_log_profiling_delegate_with_counters(
          &gen, nullptr, DelegateDebugIntId(1), i, i + 1, counters, "conv", 4);
      (void)runtime::event_tracer_log_profiling_delegate_with_counters(
          &gen, nullptr, DelegateDebugIntId(2), i, i + 1, counters, long_metadata,
          sizeof long_metadata);
      const runtime::EventTracerEntry entry =
          runtime::event_tracer_start_profiling_delegate(&gen, "relu", kUnsetDelegateDebugIntId);
      (void)runtime::event_tracer_end_profiling_delegate_with_counters(&gen, entry, counters);
    }
    dump = gen.get_etdump_data();
  });
  EXPECT_EQ(allocations, 0u);
  ASSERT_THAT(dump, IsOk());
  StatusOr<ETDumpFile> file = parse_etdump(*dump, "no_heap.etdp");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->counter_names, (std::vector<std::string>{"cycles", "macs", "dma_bytes"}));
  EXPECT_EQ(file->runs.at(0).events.size(), 300u);
  EXPECT_EQ(gen.dropped_events(), 0u);
}

// The count sees the tracer's allocations: heap mode allocates its records.
TEST(ETDumpGenNoHeapTest, CountsTheHeapModeTracersAllocations) {
  if (!::glassbox::testing::kCountsAllocations) {
    GTEST_SKIP() << "allocations are counted only without sanitizers, on glibc";
  }
  ETDumpGen gen;
  const DelegateCounter counters[] = {{"cycles", 1}};
  EXPECT_GT(allocations_during([&] {
              (void)gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(1), 1, 2,
                                                             counters);
              (void)gen.get_etdump_data();
            }),
            0u);
}

}  // namespace
}  // namespace glassbox::etdump

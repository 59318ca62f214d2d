#include "backends/common/post_time_events.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "glassbox/config.h"
#include "glassbox/runtime/memory_allocator.h"
#include "src/runtime/testing/recording_tracer.h"

namespace glassbox::backends {
namespace {

using runtime::BackendExecutionContext;
using runtime::MemoryAllocator;
using runtime::testing::RecordingTracer;

// Operators with int ids 10, 11, ... and metadata "k".
OperatorEvents operators(MemoryAllocator& memory, std::uint32_t n) {
  OperatorEvents ops;
  EXPECT_TRUE(ops.init(memory, n));
  for (std::uint32_t i = 0; i < n; ++i) {
    ops.set(i, nullptr, DelegateDebugIntId(static_cast<std::int32_t>(10 + i)), "k", 1);
  }
  return ops;
}

std::vector<runtime::testing::RecordedCall> logged(const RecordingTracer& t) {
  std::vector<runtime::testing::RecordedCall> out;
  for (const auto& c : t.calls) {
    if (c.method == "log_profiling_delegate") out.push_back(c);
  }
  return out;
}

TEST(PostTimeEventsTest, ReadsNoClockBelowAllEvents) {
  MemoryAllocator temp;
  RecordingTracer tracer;
  tracer.set_profiling_level(runtime::ProfilingLevel::kMethodOnly);
  BackendExecutionContext context(&temp, &tracer, "forward");
  PostTimeEvents events;
  ASSERT_EQ(events.begin(context, 3), Error::kOk);
  EXPECT_FALSE(events.on()) << "level method: no timestamps, no clock reads";
  events.log(3, operators(temp, 3));
  EXPECT_TRUE(logged(tracer).empty());

  BackendExecutionContext untraced(&temp, nullptr, "forward");
  PostTimeEvents none;
  ASSERT_EQ(none.begin(untraced, 3), Error::kOk);
  EXPECT_FALSE(none.on());
}

TEST(PostTimeEventsTest, OneClockReadBetweenOperatorsAndAFreshOneAfterOwnWork) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  MemoryAllocator temp;
  RecordingTracer tracer;
  BackendExecutionContext context(&temp, &tracer, "forward");
  PostTimeEvents events;
  ASSERT_EQ(events.begin(context, 3), Error::kOk);
  ASSERT_TRUE(events.on());
  for (std::uint32_t i = 0; i < 3; ++i) {
    events.before(i);
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    events.after(i);
    if (i == 1) {
      // The delegate logs an output: not the next operator's time.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      events.interrupt();
    }
  }
  events.log(3, operators(temp, 3));
  const auto calls = logged(tracer);
  ASSERT_EQ(calls.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(calls[i].int_id, static_cast<std::int32_t>(10 + i));
    EXPECT_EQ(calls[i].metadata, "k");
    EXPECT_GE(calls[i].end - calls[i].start, 20'000u) << "operator " << i;
  }
  EXPECT_EQ(calls[1].start, calls[0].end) << "one read ends operator 0 and starts operator 1";
  EXPECT_GE(calls[2].start - calls[1].end, 200'000u) << "the delegate's own work is left out";
}

TEST(PostTimeEventsTest, AFailureLogsTheOperatorsThatRan) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  MemoryAllocator temp;
  RecordingTracer tracer;
  BackendExecutionContext context(&temp, &tracer, "forward");
  PostTimeEvents events;
  ASSERT_EQ(events.begin(context, 4), Error::kOk);
  for (std::uint32_t i = 0; i < 3; ++i) {
    events.before(i);
    events.after(i);
  }
  events.log(2, operators(temp, 4));  // operator 2 failed
  const auto calls = logged(tracer);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].int_id, 11);
}

TEST(PostTimeEventsTest, ShortTemporaryMemoryIsAnError) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  std::vector<std::uint8_t> tiny(8);
  MemoryAllocator temp{Span<std::uint8_t>(tiny)};
  RecordingTracer tracer;
  BackendExecutionContext context(&temp, &tracer, "forward");
  PostTimeEvents events;
  EXPECT_EQ(events.begin(context, 4), Error::kMemoryAllocationFailed);
  EXPECT_FALSE(events.on());
}

TEST(OperatorEventsTest, EqualMetadataIsStoredOnce) {
  MemoryAllocator memory;
  OperatorEvents ops;
  ASSERT_TRUE(ops.init(memory, 4));
  const std::string a = "matmul: brg:avx2", b = "softmax: jit:avx2", a_again = a;
  ops.set(0, nullptr, DelegateDebugIntId(0), a.data(), a.size());
  ops.set(1, nullptr, DelegateDebugIntId(1), b.data(), b.size());
  ops.set(2, "named", kUnsetDelegateDebugIntId, a_again.data(), a_again.size());
  ops.set(3, nullptr, DelegateDebugIntId(3), a.data(), 6);  // "matmul": a prefix, not equal
  EXPECT_EQ(ops[2].metadata, ops[0].metadata) << "one address for equal bytes";
  EXPECT_STREQ(ops[2].name, "named");
  EXPECT_NE(ops[3].metadata_len, ops[0].metadata_len);
  EXPECT_EQ(std::string(static_cast<const char*>(ops[3].metadata), ops[3].metadata_len), "matmul");
  EXPECT_EQ(ops[1].metadata, b.data());
}

}  // namespace
}  // namespace glassbox::backends

#include "backends/common/operator_profiler.h"

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
using runtime::DelegateLogMode;
using runtime::MemoryAllocator;
using runtime::testing::RecordedCall;
using runtime::testing::RecordingTracer;

constexpr std::uint32_t kOps = 4;

// A delegate of kOps operators with int ids 10, 11, ... and metadata "k",
// run under a recording tracer.
class OperatorProfilerTest : public ::testing::Test {
 protected:
  OperatorProfilerTest() {
    EXPECT_TRUE(ops_.init(memory_, kOps));
    for (std::uint32_t i = 0; i < kOps; ++i) {
      ops_.set(i, nullptr, DelegateDebugIntId(static_cast<std::int32_t>(10 + i)), "k", 1);
    }
  }
  // The calls of one kind the tracer received.
  std::vector<RecordedCall> calls(const char* method) const {
    std::vector<RecordedCall> out;
    for (const RecordedCall& c : tracer_.calls) {
      if (c.method == method) out.push_back(c);
    }
    return out;
  }
  static Error sleep_us(int us) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    return Error::kOk;
  }

  MemoryAllocator memory_;
  OperatorEvents ops_;
  RecordingTracer tracer_;
  BackendExecutionContext context_{&memory_, &tracer_, "forward"};
};

TEST_F(OperatorProfilerTest, PostTimeReadsNoClockBelowAllEvents) {
  tracer_.set_profiling_level(runtime::ProfilingLevel::kMethodOnly);
  OperatorProfiler profiler(ops_, DelegateLogMode::kPostTime);
  ASSERT_EQ(profiler.begin(context_), Error::kOk);
  int ran = 0;
  for (std::uint32_t i = 0; i < kOps; ++i) {
    EXPECT_EQ(profiler.run(i,
                           [&] {
                             ++ran;
                             return Error::kOk;
                           }),
              Error::kOk);
  }
  profiler.finish(kOps);
  EXPECT_EQ(ran, 4) << "every operator still runs";
  EXPECT_TRUE(tracer_.calls.empty()) << "level method: no delegate events";

  BackendExecutionContext untraced(&memory_, nullptr, "forward");
  OperatorProfiler none(ops_, DelegateLogMode::kPostTime);
  ASSERT_EQ(none.begin(untraced), Error::kOk);
  EXPECT_EQ(none.run(0, [] { return Error::kInternal; }), Error::kInternal);
  none.finish(1);
}

TEST_F(OperatorProfilerTest, PostTimeReadsOneClockBetweenOperatorsAndAFreshOneAfterOwnWork) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  OperatorProfiler profiler(ops_, DelegateLogMode::kPostTime);
  ASSERT_EQ(profiler.begin(context_), Error::kOk);
  for (std::uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(profiler.run(i, [] { return sleep_us(20); }), Error::kOk);
    if (i == 1) {
      sleep_us(200);  // the delegate logs an output: not the next operator's time
      profiler.interrupt();
    }
  }
  EXPECT_TRUE(calls("log_profiling_delegate").empty()) << "nothing is logged inside the loop";
  profiler.finish(3);
  const auto logged = calls("log_profiling_delegate");
  ASSERT_EQ(logged.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(logged[i].int_id, static_cast<std::int32_t>(10 + i));
    EXPECT_EQ(logged[i].metadata, "k");
    EXPECT_GE(logged[i].end - logged[i].start, 20'000u) << "operator " << i;
  }
  EXPECT_EQ(logged[1].start, logged[0].end) << "one read ends operator 0 and starts operator 1";
  EXPECT_GE(logged[2].start - logged[1].end, 200'000u) << "the delegate's own work is left out";
}

TEST_F(OperatorProfilerTest, PostTimeFailureLogsTheOperatorsThatRan) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  OperatorProfiler profiler(ops_, DelegateLogMode::kPostTime);
  ASSERT_EQ(profiler.begin(context_), Error::kOk);
  ASSERT_EQ(profiler.run(0, [] { return Error::kOk; }), Error::kOk);
  ASSERT_EQ(profiler.run(1, [] { return Error::kOk; }), Error::kOk);
  ASSERT_EQ(profiler.run(2, [] { return Error::kInternal; }), Error::kInternal);
  profiler.finish(2);  // as a delegate does when operator 2 fails
  const auto logged = calls("log_profiling_delegate");
  ASSERT_EQ(logged.size(), 2u);
  EXPECT_EQ(logged[1].int_id, 11);
}

TEST_F(OperatorProfilerTest, PostTimeShortTemporaryMemoryIsAnError) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  std::vector<std::uint8_t> tiny(8);
  MemoryAllocator temp{Span<std::uint8_t>(tiny)};
  BackendExecutionContext context(&temp, &tracer_, "forward");
  OperatorProfiler profiler(ops_, DelegateLogMode::kPostTime);
  EXPECT_EQ(profiler.begin(context), Error::kMemoryAllocationFailed);
}

TEST_F(OperatorProfilerTest, RealTimeLogsAroundEachOperatorWithItsMetadata) {
  if (!kTracingEnabled) GTEST_SKIP() << "tracing is built off";
  OperatorProfiler profiler(ops_, DelegateLogMode::kRealTime);
  ASSERT_EQ(profiler.begin(context_), Error::kOk);
  std::size_t calls_when_run = 0;
  ASSERT_EQ(profiler.run(3,
                         [&] {
                           calls_when_run = tracer_.calls.size();
                           return Error::kOk;
                         }),
            Error::kOk);
  EXPECT_EQ(calls_when_run, 1u) << "started before the operator ran";
  const auto started = calls("start_profiling_delegate");
  const auto ended = calls("end_profiling_delegate");
  ASSERT_EQ(started.size(), 1u);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(started[0].int_id, 13);
  EXPECT_EQ(ended[0].metadata, "k");
  profiler.finish(4);
  EXPECT_EQ(tracer_.calls.size(), 2u) << "real time logs nothing after the loop";
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

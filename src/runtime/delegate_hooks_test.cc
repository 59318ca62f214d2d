#include "glassbox/runtime/delegate_hooks.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "glassbox/config.h"
#include "src/runtime/testing/recording_tracer.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime {
namespace {

using ::glassbox::testing::IsOk;

using testing::RecordingTracer;

constexpr std::size_t when_on(std::size_t n) { return kTracingEnabled ? n : 0; }

TEST(DelegateHooksTest, NullTracerIsANoOp) {
  EventTracer* none = nullptr;
  EventTracerEntry e = event_tracer_start_profiling_delegate(none, nullptr, DelegateDebugIntId(1));
  EXPECT_EQ(event_tracer_end_profiling_delegate(none, e), Error::kOk);
  EXPECT_EQ(event_tracer_log_profiling_delegate(none, "x", kUnsetDelegateDebugIntId, 0, 1),
            Error::kOk);
  Result<bool> logged = event_tracer_log_output_delegate(none, nullptr, DelegateDebugIntId(1), 3);
  ASSERT_THAT(logged, IsOk());
  EXPECT_FALSE(*logged);
}

TEST(DelegateHooksTest, RealTimeIntIdForwardsWithMetadata) {
  RecordingTracer t;
  EventTracerEntry e = event_tracer_start_profiling_delegate(&t, nullptr, DelegateDebugIntId(3));
  EXPECT_EQ(event_tracer_end_profiling_delegate(&t, e, "conv_relu"), Error::kOk);
  ASSERT_EQ(t.calls.size(), when_on(2));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].method, "start_profiling_delegate");
    EXPECT_EQ(t.calls[0].int_id, 3);
    EXPECT_EQ(t.calls[1].method, "end_profiling_delegate");
    EXPECT_EQ(t.calls[1].metadata, "conv_relu");
  }
}

TEST(DelegateHooksTest, PostTimeStringIdForwardsTimestamps) {
  RecordingTracer t;
  constexpr Ticks kStart = 100, kEnd = 250;
  EXPECT_EQ(
      event_tracer_log_profiling_delegate(&t, "tan.sin", kUnsetDelegateDebugIntId, kStart, kEnd),
      Error::kOk);
  ASSERT_EQ(t.calls.size(), when_on(1));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].name, "tan.sin");
    EXPECT_EQ(t.calls[0].int_id, -1);
    EXPECT_EQ(t.calls[0].start, kStart);
    EXPECT_EQ(t.calls[0].end, kEnd);
  }
}

// A tracer that does not override log_profiling_delegates gets each event
// through log_profiling_delegate, in order; the first error is returned
// and later events are still logged.
TEST(DelegateHooksTest, BatchOfPostTimeEventsForwardsEachInOrder) {
  RecordingTracer t;
  const char kMeta[] = "add";
  const DelegateEventDesc events[] = {{nullptr, DelegateDebugIntId(4), kMeta, 3},
                                      {"tan.sin", kUnsetDelegateDebugIntId, nullptr, 0},
                                      {nullptr, DelegateDebugIntId(9), nullptr, 0}};
  const DelegateEventTimes times[] = {{10, 20}, {20, 35}, {35, 50}};
  t.fail_next_log = Error::kOutOfResources;
  EXPECT_EQ(event_tracer_log_profiling_delegates(&t, events, times),
            kTracingEnabled ? Error::kOutOfResources : Error::kOk);
  ASSERT_EQ(t.calls.size(), when_on(3));
  if constexpr (kTracingEnabled) {
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(t.calls[i].method, "log_profiling_delegate");
      EXPECT_EQ(t.calls[i].start, times[i].start);
      EXPECT_EQ(t.calls[i].end, times[i].end);
    }
    EXPECT_EQ(t.calls[0].int_id, 4);
    EXPECT_EQ(t.calls[0].metadata, "add");
    EXPECT_EQ(t.calls[1].name, "tan.sin");
    EXPECT_EQ(t.calls[2].int_id, 9);
  }
}

TEST(DelegateHooksTest, IntegerSpellingsOfTheIdMapOntoStrongIds) {
  using internal::kInvalidDelegateDebugIntId;
  using internal::to_delegate_int_id;
  EXPECT_EQ(to_delegate_int_id(5), DelegateDebugIntId(5));
  EXPECT_EQ(to_delegate_int_id(-1), kUnsetDelegateDebugIntId);
  EXPECT_EQ(to_delegate_int_id(static_cast<std::uint32_t>(-1)), kUnsetDelegateDebugIntId);
  EXPECT_EQ(to_delegate_int_id(-7), kInvalidDelegateDebugIntId);
  EXPECT_EQ(to_delegate_int_id(std::int64_t{1} << 40), kInvalidDelegateDebugIntId);
  EXPECT_EQ(to_delegate_int_id(std::uint32_t{0x80000000u}), kInvalidDelegateDebugIntId);
  // The DebugHandle-typed form of ExecuTorch's signatures: with a name, 0 means "no int id".
  EXPECT_EQ(to_delegate_int_id("fused", DebugHandle(0)), kUnsetDelegateDebugIntId);
  EXPECT_EQ(to_delegate_int_id(nullptr, DebugHandle(0)), DelegateDebugIntId(0));
}

TEST(DelegateHooksTest, MacroSpellingsCompileAndForward) {
  RecordingTracer t;
  EventTracer* event_tracer = &t;
  EventEntry a = EVENT_TRACER_BEGIN_DELEGATE_PROFILING_EVENT_ID(event_tracer, 4);
  EVENT_TRACER_END_DELEGATE_PROFILING_EVENT_ID(a);
  EventEntry b = EVENT_TRACER_BEGIN_DELEGATE_PROFILING_EVENT_NAME(event_tracer, "fusion");
  EVENT_TRACER_END_DELEGATE_PROFILING_EVENT_NAME(b);
  EVENT_TRACER_LOG_DELEGATE_PROFILING_EVENT_ID(event_tracer, 5, 10, 20);
  EVENT_TRACER_LOG_DELEGATE_PROFILING_EVENT_NAME(event_tracer, "fusion", 30, 40);
  ASSERT_EQ(t.calls.size(), when_on(6));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].int_id, 4);
    EXPECT_EQ(t.calls[2].name, "fusion");
    EXPECT_EQ(t.calls[2].int_id, -1);
    EXPECT_EQ(t.calls[4].int_id, 5);
    EXPECT_EQ(t.calls[5].name, "fusion");
  }
}

TEST(DelegateHooksTest, ProfilingHooksHonourProfilingLevel) {
  RecordingTracer t;
  t.set_profiling_level(ProfilingLevel::kMethodOnly);
  EventTracerEntry e = event_tracer_start_profiling_delegate(&t, nullptr, 1);
  (void)event_tracer_end_profiling_delegate(&t, e);
  (void)event_tracer_log_profiling_delegate(&t, nullptr, 1, 0, 1);
  const DelegateEventDesc batch[] = {{nullptr, DelegateDebugIntId(1), nullptr, 0}};
  const DelegateEventTimes times[] = {{0, 1}};
  (void)event_tracer_log_profiling_delegates(&t, batch, times);
  EXPECT_EQ(t.calls.size(), 0u);
}

TEST(DelegateHooksTest, OutputHooksHonourDebugLevel) {
  RecordingTracer t;
  const std::int64_t sizes[] = {2};
  const float data[] = {1.f, 2.f};
  TensorView tensor{ScalarType::kFloat, sizes, {}, data};
  (void)event_tracer_log_output_delegate(&t, nullptr, 1, tensor);
  EXPECT_EQ(t.calls.size(), 0u) << "kNoLogging is the default";

  t.set_debug_level(DebugLevel::kIntermediateOutputs);
  (void)event_tracer_log_output_delegate(&t, nullptr, 1, tensor);
  (void)event_tracer_log_output_delegate(&t, "x", -1, 2.5);
  (void)event_tracer_log_output_delegate(&t, nullptr, 2, true);
  Span<const TensorView> list(&tensor, 1);
  (void)event_tracer_log_output_delegate(&t, nullptr, DelegateDebugIntId(3), list);
  ASSERT_EQ(t.calls.size(), when_on(4));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].value_kind, ValueView::Kind::kTensor);
    EXPECT_EQ(t.calls[1].value_kind, ValueView::Kind::kDouble);
    EXPECT_EQ(t.calls[1].name, "x");
    EXPECT_EQ(t.calls[2].value_kind, ValueView::Kind::kBool);
    EXPECT_EQ(t.calls[3].value_kind, ValueView::Kind::kTensorList);
  }
}

}  // namespace
}  // namespace glassbox::runtime

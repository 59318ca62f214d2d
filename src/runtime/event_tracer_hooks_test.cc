#include "glassbox/runtime/event_tracer_hooks.h"

#include <gtest/gtest.h>

#include "glassbox/config.h"
#include "src/runtime/testing/recording_tracer.h"

namespace glassbox::runtime {
namespace {

using testing::RecordingTracer;

// In the tracing-off build (preset "notrace") every hook must vanish, so
// every expected count collapses to zero.
constexpr std::size_t when_on(std::size_t n) { return kTracingEnabled ? n : 0; }

TEST(EventTracerHooksTest, NullTracerIsANoOp) {
  EventTracer* none = nullptr;
  event_tracer_create_event_block(none, "Execute");
  EventTracerEntry e = event_tracer_begin_profiling_event(none, "x");
  event_tracer_end_profiling_event(none, e);
  EXPECT_EQ(event_tracer_track_allocator(none, "a"), kUnsetAllocatorId);
  event_tracer_track_allocation(none, AllocatorId(1), 8);
  event_tracer_log_value(none, ValueView::of_int(1));
  event_tracer_log_value_output(none, ValueView::of_int(1));
  { EventTracerProfileOpScope op(none, "OPERATOR_CALL"); }
  { EventTracerProfileMethodScope m(none, "Method::execute"); }
  { EventTracerProfileInstructionScope i(none, ChainId(0), InstructionId(1)); }
  EXPECT_EQ(e.tracer, nullptr);
}

TEST(EventTracerHooksTest, FreeFunctionsForward) {
  RecordingTracer t;
  event_tracer_create_event_block(&t, "Execute");
  EventTracerEntry e = event_tracer_begin_profiling_event(&t, "Method::execute");
  event_tracer_end_profiling_event(&t, e);
  AllocatorId a = event_tracer_track_allocator(&t, "planned");
  event_tracer_track_allocation(&t, a, 64);
  ASSERT_EQ(t.calls.size(), when_on(5));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].method, "create_event_block");
    EXPECT_EQ(t.calls[0].name, "Execute");
    EXPECT_EQ(t.calls[1].name, "Method::execute");
    EXPECT_EQ(a, AllocatorId(1));
  } else {
    EXPECT_EQ(a, kUnsetAllocatorId);
  }
}

TEST(EventTracerHooksTest, OpScopeHonoursProfilingLevel) {
  RecordingTracer t;
  t.set_profiling_level(ProfilingLevel::kMethodOnly);
  { EventTracerProfileOpScope op(&t, "OPERATOR_CALL"); }
  EXPECT_EQ(t.calls.size(), 0u);
  { EventTracerProfileMethodScope m(&t, "Method::execute"); }
  EXPECT_EQ(t.calls.size(), when_on(2));

  t.set_profiling_level(ProfilingLevel::kAllEvents);
  { EventTracerProfileOpScope op(&t, "OPERATOR_CALL"); }
  EXPECT_EQ(t.calls.size(), when_on(4));
}

TEST(EventTracerHooksTest, LevelNoneRecordsNoProfileEventButKeepsBlocksAndValues) {
  RecordingTracer t;
  t.set_profiling_level(ProfilingLevel::kNone);
  t.set_debug_level(DebugLevel::kProgramOutputs);
  { EventTracerProfileMethodScope m(&t, "Method::execute"); }
  { EventTracerProfileOpScope op(&t, "OPERATOR_CALL"); }
  EventTracerEntry e = event_tracer_begin_profiling_event(&t, "framework");
  event_tracer_end_profiling_event(&t, e);
  EXPECT_EQ(t.calls.size(), 0u);
  event_tracer_create_event_block(&t, "Execute");
  event_tracer_log_value_output(&t, ValueView::of_int(1));
  ASSERT_EQ(t.calls.size(), when_on(2));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].method, "create_event_block");
    EXPECT_EQ(t.calls[1].method, "log_value");
  }
}

TEST(EventTracerHooksTest, InstructionScopeSetsAndUnsets) {
  RecordingTracer t;
  {
    EventTracerProfileInstructionScope i(&t, ChainId(0), InstructionId(7));
    if constexpr (kTracingEnabled) {
      EXPECT_EQ(t.current_chain_id(), ChainId(0));
      EXPECT_EQ(t.current_instruction_id(), InstructionId(7));
    } else {
      EXPECT_EQ(t.current_instruction_id(), kUnsetInstructionId);
    }
  }
  EXPECT_EQ(t.current_chain_id(), kUnsetChainId);
  EXPECT_EQ(t.current_instruction_id(), kUnsetInstructionId);
}

TEST(EventTracerHooksTest, ValueLoggingFollowsDebugLevel) {
  RecordingTracer t;
  event_tracer_log_value(&t, ValueView::of_int(1));
  event_tracer_log_value_output(&t, ValueView::of_int(1));
  EXPECT_EQ(t.calls.size(), 0u) << "nothing is logged by default";

  t.set_debug_level(DebugLevel::kProgramOutputs);
  event_tracer_log_value(&t, ValueView::of_int(1));
  event_tracer_log_value_output(&t, ValueView::of_double(2.0));
  ASSERT_EQ(t.calls.size(), when_on(1));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[0].logged_kind, LoggedValueKind::kProgramOutput);
  }

  t.set_debug_level(DebugLevel::kIntermediateOutputs);
  event_tracer_log_value(&t, ValueView::of_bool(true));
  event_tracer_log_value_output(&t, ValueView::of_bool(true));
  ASSERT_EQ(t.calls.size(), when_on(3));
  if constexpr (kTracingEnabled) {
    EXPECT_EQ(t.calls[1].logged_kind, LoggedValueKind::kIntermediateOutput);
    EXPECT_EQ(t.calls[2].logged_kind, LoggedValueKind::kProgramOutput);
  }
}

TEST(EventTracerHooksTest, ScopesHaveTheSameLayoutInBothBuilds) {
  // No class layout depends on the tracing flag (no ODR hazard when a
  // library built with tracing links one built without).
  static_assert(sizeof(EventTracerProfileInstructionScope) == sizeof(EventTracer*));
  static_assert(sizeof(EventTracerProfileOpScope) ==
                sizeof(EventTracer*) + sizeof(EventTracerEntry));
}

}  // namespace
}  // namespace glassbox::runtime

// The raw-trace hook (glassbox/runtime/delegate_raw_trace.h) through
// ETDumpGen: the bytes come back from the dump as they were logged, in
// caller-buffer mode too, and a full buffer or a bad call is a counted
// error, never an abort.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/runtime/delegate_raw_trace.h"
#include "src/etdump/etdump_gen_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::IsOk;
using runtime::event_tracer_log_delegate_raw_trace;
using testing_util::serialize_in;

std::vector<std::uint8_t> pattern(std::size_t size) {
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + 3);
  return bytes;
}

TEST(RawTraceHookTest, TheBytesComeBackInTheirDelegateCall) {
  std::vector<std::uint8_t> memory(1 << 16);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  gen.set_chain_instruction(ChainId(0), InstructionId(4));
  const std::vector<std::uint8_t> long_trace = pattern(1000), short_trace = pattern(8);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, "npu", long_trace.data(), long_trace.size()),
            Error::kOk);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, "dsp", short_trace.data(), 8), Error::kOk);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, "npu", nullptr, 0), Error::kOk);
  StatusOr<ETDumpFile> file = serialize_in(gen, memory, "raw.etdp");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(count_raw_traces(*file), 3u);
  const std::vector<Event>& events = file->runs[0].events;
  ASSERT_EQ(events.size(), 3u);
  const ProfileEvent& first = *events[0].profile();
  EXPECT_EQ(raw_trace_backend(first), "npu");
  EXPECT_EQ(first.instruction_id, InstructionId(4));
  EXPECT_EQ(first.delegate_debug_metadata, long_trace);
  EXPECT_EQ(raw_trace_backend(*events[1].profile()), "dsp");
  EXPECT_EQ(events[1].profile()->delegate_debug_metadata, short_trace);
  EXPECT_EQ(events[2].profile()->delegate_debug_metadata.value_or(pattern(1)).size(), 0u);
}

TEST(RawTraceHookTest, BadCallsAreRefusedAndANullTracerIgnoresThem) {
  ETDumpGen gen;
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  const std::uint8_t byte = 1;
  const std::string too_long(kMaxRawTraceBackendLength + 1, 'n');
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, nullptr, &byte, 1), Error::kInvalidArgument);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, "", &byte, 1), Error::kInvalidArgument);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, too_long.c_str(), &byte, 1),
            Error::kInvalidArgument);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, "npu", nullptr, 4), Error::kInvalidArgument);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(nullptr, "npu", &byte, 1), Error::kOk);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(
                &gen, std::string(kMaxRawTraceBackendLength, 'n').c_str(), &byte, 1),
            Error::kOk);
}

TEST(RawTraceHookTest, ATraceLargerThanTheBufferIsDroppedWholeAndCounted) {
  std::vector<std::uint8_t> memory(1 << 16);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  const std::vector<std::uint8_t> trace = pattern(1 << 17);
  EXPECT_EQ(event_tracer_log_delegate_raw_trace(&gen, "npu", trace.data(), trace.size()),
            Error::kOutOfResources);
  EXPECT_EQ(gen.dropped_events(), 1u);
  StatusOr<ETDumpFile> file = serialize_in(gen, memory, "full.etdp");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(count_raw_traces(*file), 0u);
}

}  // namespace
}  // namespace glassbox::etdump

// Raw traces: the reader's checks, and their expansion through a decoder
// into ordinary delegate events (the decoders here are test doubles with
// the plug-in's C signature).

#include "glassbox/etdump/raw_trace.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "glassbox/core/raw_trace.h"
#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/etdump/reader/test_etdump_builder.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using test_util::make_profile;
using test_util::TestETDump;
using ::testing::ElementsAre;

flatbuffers::Offset<::etdump::Event> make_raw_trace(flatbuffers::FlatBufferBuilder& fbb,
                                                    const std::string& id,
                                                    const std::vector<std::uint8_t>& bytes,
                                                    std::int32_t instruction = 2,
                                                    std::int32_t int_id = -1) {
  const auto p =
      ::etdump::CreateProfileEventDirect(fbb, nullptr, 0, instruction, int_id, id.c_str(), &bytes,
                                         500, 500, 1, ::etdump::TimeSource::Measured);
  return ::etdump::CreateEvent(fbb, p);
}

const std::string kNpuTrace = std::string(kRawTraceIdPrefix) + "npu";

// One execution: DELEGATE_CALL at instruction 2 holding a raw trace of
// `bytes`, and an operator after it; the npu's clock is 2 ns a tick.
std::vector<std::uint8_t> dump_with_trace(const std::vector<std::uint8_t>& bytes) {
  TestETDump b;
  const ::etdump::TickRatio two_ns(2, 1);
  b.delegate_time_scale("npu", &two_ns, flatbuffers::Optional<std::int64_t>(1000));
  b.counter_names({"cycles"});
  b.run("Execute");
  b.event(make_raw_trace(b.fbb(), kNpuTrace, bytes));
  b.event(make_profile(b.fbb(), "DELEGATE_CALL", 0, 2, 400, 900));
  b.event(make_profile(b.fbb(), "OPERATOR_CALL", 0, 3, 900, 950));
  return b.finish();
}

// The test decoder's trace: (id, start, end) triples of int64; an id below
// -1 fails the decode, -1 emits the event as named "op<start>".
GlassboxRawTraceClock g_last_clock;
extern "C" int triples_decoder(const std::uint8_t* bytes, std::size_t size,
                               const GlassboxRawTraceClock* clock, GlassboxDecodedEventSink sink,
                               void* context, char* error, std::size_t error_size) {
  g_last_clock = *clock;
  if (size % 24 != 0) {
    std::snprintf(error, error_size, "trace of %zu bytes is not whole triples", size);
    return 1;
  }
  for (std::size_t at = 0; at < size; at += 24) {
    std::int64_t v[3];
    std::memcpy(v, bytes + at, sizeof(v));
    if (v[0] < -1) {
      std::snprintf(error, error_size, "bad op %lld", static_cast<long long>(v[0]));
      return 1;
    }
    const std::string name = "op" + std::to_string(v[1]);
    const std::uint8_t meta[] = {'m'};
    const GlassboxDecodedCounter counters[] = {{"cycles", v[2] - v[1]}, {"macs", 64}};
    GlassboxDecodedEvent e{};
    e.delegate_debug_id_int = v[0] == -1 ? -1 : static_cast<std::int32_t>(v[0]);
    e.delegate_debug_id_str = v[0] == -1 ? name.c_str() : nullptr;
    e.start_ticks = static_cast<std::uint64_t>(v[1]);
    e.end_ticks = static_cast<std::uint64_t>(v[2]);
    e.metadata = meta;
    e.metadata_size = 1;
    e.counters = counters;
    e.num_counters = 2;
    if (sink(context, &e) != 0) return 1;
  }
  return 0;
}

std::vector<std::uint8_t> triples(std::initializer_list<std::int64_t> values) {
  std::vector<std::uint8_t> out(values.size() * 8);
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

GlassboxRawTraceDecoder npu_only(std::string_view backend) {
  return backend == "npu" ? &triples_decoder : nullptr;
}

ETDumpFile parsed(const std::vector<std::uint8_t>& bytes) {
  StatusOr<ETDumpFile> file = parse_etdump(bytes, "run.etdp");
  EXPECT_THAT(file, IsOk());
  return file.ok() ? std::move(file.value()) : ETDumpFile{};
}

TEST(RawTraceTest, ReaderCountsAndNamesRawTraces) {
  const std::vector<std::uint8_t> bytes = dump_with_trace(triples({0, 10, 20}));
  const ETDumpFile file = parsed(bytes);
  EXPECT_EQ(count_raw_traces(file), 1u);
  EXPECT_EQ(raw_trace_backend(*file.runs[0].events[0].profile()), "npu");
  EXPECT_EQ(raw_trace_backend(*file.runs[0].events[1].profile()), std::nullopt);
  StatusOr<ETDumpBuffer> buffer = ETDumpBuffer::parse(bytes, "run.etdp");
  ASSERT_THAT(buffer, IsOk());
  EXPECT_EQ(buffer->raw_traces(), 1u);
  EXPECT_EQ(ETDumpBuffer::parse(dump_with_trace({}), "x").value().raw_traces(), 1u);
}

TEST(RawTraceTest, ReaderRefusesARawTraceWithoutBackendOrWithAnIntId) {
  for (const auto& [id, int_id, message] :
       {std::tuple{std::string(kRawTraceIdPrefix), -1, "raw trace names no backend"},
        std::tuple{std::string(kRawTraceIdPrefix) + std::string(64, 'n'), -1,
                   "raw trace names a backend of 64 characters (at most 63)"},
        std::tuple{kNpuTrace, 3, "raw trace of backend 'npu' also has an int identifier"}}) {
    TestETDump b;
    b.run("Execute");
    b.event(make_raw_trace(b.fbb(), id, {1, 2}, 2, int_id));
    const std::vector<std::uint8_t> bytes = b.finish();
    const std::string expected = std::string("run.etdp: event 0 of run 0: ") + message;
    EXPECT_THAT(parse_etdump(bytes, "run.etdp"), ErrorIs(Error::kCorruptData, {expected}));
    EXPECT_THAT(ETDumpBuffer::parse(bytes, "run.etdp"), ErrorIs(Error::kCorruptData, {expected}));
  }
}

TEST(RawTraceTest, ExpandsIntoDelegateEventsWhereTheTraceWas) {
  ETDumpFile file = parsed(dump_with_trace(triples({0, 10, 20, -1, 20, 45})));
  const StatusOr<RawTraceExpansion> done = expand_raw_traces(&file, &npu_only);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->traces, 1u);
  EXPECT_EQ(done->events, 2u);
  EXPECT_EQ(count_raw_traces(file), 0u);
  const std::vector<Event>& events = file.runs[0].events;
  ASSERT_EQ(events.size(), 4u);
  const ProfileEvent& first = *events[0].profile();
  EXPECT_EQ(first.delegate_debug_id_int, DelegateDebugIntId(0));
  EXPECT_FALSE(first.delegate_debug_id_str.has_value());
  EXPECT_EQ(first.start_time, 10u);
  EXPECT_EQ(first.end_time, 20u);
  EXPECT_EQ(first.instruction_id, InstructionId(2));
  EXPECT_EQ(first.thread_index, 1);
  EXPECT_EQ(first.time_source, TimeSource::kMeasured);
  EXPECT_EQ(first.delegate_debug_metadata, std::vector<std::uint8_t>{'m'});
  // "cycles" was a name already; "macs" is added after it.
  EXPECT_THAT(file.counter_names, ElementsAre("cycles", "macs"));
  EXPECT_THAT(first.counters, ElementsAre(Counter{0, 10}, Counter{1, 64}));
  const ProfileEvent& second = *events[1].profile();
  EXPECT_EQ(second.delegate_debug_id_str, "op20");
  EXPECT_FALSE(second.delegate_debug_id_int.is_set());
  EXPECT_EQ(*events[2].profile()->name, "DELEGATE_CALL");
  // The decoder saw the backend's declared clock.
  EXPECT_EQ(g_last_clock.ns_per_tick_numerator, 2u);
  EXPECT_EQ(g_last_clock.ns_per_tick_denominator, 1u);
  EXPECT_EQ(g_last_clock.has_host_offset, 1);
  EXPECT_EQ(g_last_clock.host_offset_ns, 1000);
}

TEST(RawTraceTest, ABackendWithoutDecoderIsNamed) {
  ETDumpFile file = parsed(dump_with_trace(triples({0, 10, 20})));
  EXPECT_THAT(expand_raw_traces(&file, [](std::string_view) { return nullptr; }),
              ErrorIs(Error::kNotFound, {"1 raw trace(s) of backend 'npu' need its decoder"}));
  EXPECT_EQ(count_raw_traces(file), 1u);
}

TEST(RawTraceTest, DecoderFailuresAndRefusedEventsLeaveTheDumpAlone) {
  const struct {
    std::vector<std::uint8_t> trace;
    const char* message;
  } cases[] = {
      {{1, 2, 3},
       "raw trace of backend 'npu' (event 0 of run 0) does not decode: trace of 3 "
       "bytes is not whole triples"},
      {triples({0, 1, 2, -5, 0, 0}), "does not decode: bad op -5"},
      {triples({0, 1, 2, 1, 30, 20}), "the decoder gave event 1 ends (20) before it starts (30)"},
  };
  for (const auto& c : cases) {
    ETDumpFile file = parsed(dump_with_trace(c.trace));
    EXPECT_THAT(expand_raw_traces(&file, &npu_only), ErrorIs(Error::kCorruptData, {c.message}));
    EXPECT_EQ(count_raw_traces(file), 1u);
    EXPECT_EQ(file.runs[0].events.size(), 3u);
    EXPECT_THAT(file.counter_names, ElementsAre("cycles"));
  }
}

// A decoder that breaks the rules the host checks, one per trace byte.
extern "C" int rule_breaker(const std::uint8_t* bytes, std::size_t size,
                            const GlassboxRawTraceClock*, GlassboxDecodedEventSink sink,
                            void* context, char*, std::size_t) {
  GlassboxDecodedEvent e{};
  e.delegate_debug_id_int = 0;
  const GlassboxDecodedCounter twice[] = {{"a", 1}, {"a", 2}};
  const std::string reserved = std::string(kRawTraceIdPrefix) + "x";
  switch (size == 0 ? 0 : bytes[0]) {
    case 0: e.delegate_debug_id_int = -1; break;   // no identifier
    case 1: e.delegate_debug_id_str = "x"; break;  // both
    case 2: e.delegate_debug_id_int = -7; break;   // negative
    case 3: e.delegate_debug_id_int = -1, e.delegate_debug_id_str = reserved.c_str(); break;
    case 4: e.metadata_size = 3; break;                     // null metadata
    case 5: e.counters = twice, e.num_counters = 2; break;  // repeated name
  }
  return sink(context, &e) != 0 ? 1 : 0;
}

TEST(RawTraceTest, TheHostChecksEveryDecodedEvent) {
  const char* messages[] = {"has no identifier",
                            "has both an int and a string identifier",
                            "has int identifier -7",
                            "has an empty or reserved string identifier",
                            "has null metadata or counters with a count",
                            "has counter 'a' twice"};
  for (std::uint8_t rule = 0; rule < 6; ++rule) {
    ETDumpFile file = parsed(dump_with_trace({rule}));
    EXPECT_THAT(
        expand_raw_traces(&file, [](std::string_view) { return &rule_breaker; }),
        ErrorIs(Error::kCorruptData, {std::string("the decoder gave event 0 ") + messages[rule]}))
        << int{rule};
  }
}

}  // namespace
}  // namespace glassbox::etdump

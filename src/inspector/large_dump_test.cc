// A dump read as bytes (etdump::ETDumpBuffer) gives the same Inspector as the
// decoded file, with or without occurrences, and the chrome trace streamed
// in chunks is the one to_chrome_trace returns.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "src/inspector/test_util.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::IsOk;
using testing::value_of;

// `executions` Execute blocks of 40 delegate events each (4 identifiers,
// 10 times each) with metadata, plus a Method::execute event per block.
std::vector<std::uint8_t> recorded_dump(int executions) {
  etdump::ETDumpGen gen;
  Ticks t = 1000;
  for (int e = 0; e < executions; ++e) {
    gen.create_event_block("Execute");
    const runtime::EventTracerEntry execute = gen.start_profiling("Method::execute");
    for (int i = 0; i < 40; ++i) {
      const char kernel[] = "kernel";
      EXPECT_EQ(gen.log_profiling_delegate(nullptr, DelegateDebugIntId(i % 4), t, t + 10 + i % 4,
                                           kernel, sizeof kernel - 1),
                Error::kOk);
      t += 20;
    }
    EXPECT_EQ(gen.end_profiling(execute), Error::kOk);
  }
  const std::span<const std::uint8_t> data = *gen.get_etdump_data();
  return {data.begin(), data.end()};
}

TEST(LargeDumpTest, BytesAndDecodedFileGiveTheSameInspector) {
  const std::vector<std::uint8_t> bytes = recorded_dump(50);
  const etdump::ETDumpFile file = value_of(etdump::parse_etdump(bytes, "big.etdp"));
  const etdump::ETDumpBuffer buffer = value_of(etdump::ETDumpBuffer::parse(bytes, "big.etdp"));
  const Inspector decoded = value_of(Inspector::create(file));
  const Inspector in_place = value_of(Inspector::create(buffer));

  ASSERT_EQ(in_place.groups().size(), decoded.groups().size());
  for (std::size_t g = 0; g < decoded.groups().size(); ++g) {
    EXPECT_EQ(in_place.groups()[g].name, decoded.groups()[g].name);
    EXPECT_EQ(in_place.groups()[g].samples, decoded.groups()[g].samples);
    EXPECT_EQ(in_place.groups()[g].delegate_debug_metadata,
              decoded.groups()[g].delegate_debug_metadata);
  }
  EXPECT_EQ(in_place.occurrences().size(), 50u * 41);
  EXPECT_EQ(render(in_place, View::kOps, Format::kJson),
            render(decoded, View::kOps, Format::kJson));
  EXPECT_EQ(to_chrome_trace(in_place), to_chrome_trace(decoded));
}

TEST(LargeDumpTest, WithoutOccurrencesTheViewsAreTheSame) {
  const std::vector<std::uint8_t> bytes = recorded_dump(20);
  const etdump::ETDumpBuffer buffer = value_of(etdump::ETDumpBuffer::parse(bytes, "big.etdp"));
  InspectorOptions options;
  options.keep_occurrences = false;
  const Inspector lean = value_of(Inspector::create(buffer, nullptr, {}, options));
  const Inspector full = value_of(Inspector::create(buffer));
  EXPECT_TRUE(lean.occurrences().empty());
  EXPECT_FALSE(full.occurrences().empty());
  for (View view : {View::kEvents, View::kOps, View::kModules, View::kTypes}) {
    EXPECT_EQ(render(lean, view, Format::kJson), render(full, view, Format::kJson));
  }
}

// Each group's samples are reserved once, for the used runs from the one it
// first appears in (growing by doubling left up to half of a million-event
// dump's samples unused, and copied them on the way).
TEST(LargeDumpTest, SamplesAreReservedForTheRunsLeftNotGrownByDoubling) {
  const std::vector<std::uint8_t> bytes = recorded_dump(5);
  InspectorOptions options;
  options.skip_first_runs = 2;  // 3 runs used
  const Inspector insp = value_of(Inspector::create(
      value_of(etdump::ETDumpBuffer::parse(bytes, "big.etdp")), nullptr, {}, options));
  ASSERT_FALSE(insp.groups().empty());
  for (const EventGroup& g : insp.groups()) {
    EXPECT_EQ(g.samples.size(), 3u) << g.name;
    EXPECT_EQ(g.samples.capacity(), 3u) << g.name;
    EXPECT_EQ(g.sample_runs.capacity(), 3u) << g.name;
  }
}

TEST(LargeDumpTest, ChromeTraceStreamsInChunksAndStopsOnAnError) {
  // Enough events for several one-megabyte chunks.
  const std::vector<std::uint8_t> bytes = recorded_dump(400);
  const Inspector insp =
      value_of(Inspector::create(value_of(etdump::ETDumpBuffer::parse(bytes, "big.etdp"))));
  std::string streamed;
  int chunks = 0;
  ASSERT_THAT(write_chrome_trace(insp,
                                 [&](std::string_view chunk) {
                                   ++chunks;
                                   streamed += chunk;
                                   return Status();
                                 }),
              IsOk());
  EXPECT_GT(chunks, 2);
  EXPECT_EQ(streamed, to_chrome_trace(insp));

  int calls = 0;
  const Status failed = write_chrome_trace(insp, [&](std::string_view) {
    ++calls;
    return Status(Error::kAccessFailed, "cannot write out.json: No space left on device");
  });
  EXPECT_EQ(failed.message(), "cannot write out.json: No space left on device");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace glassbox::inspector

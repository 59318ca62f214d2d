// ETDumpBuffer: the same dump as parse_etdump, with the profile events read
// in place instead of decoded.

#include "glassbox/etdump/etdump_buffer.h"

#include <algorithm>
#include <utility>

#include "glassbox/etdump/etdump_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/etdump/reader/test_etdump_builder.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::IsOk;
using test_util::make_allocation;
using test_util::make_counted_profile;
using test_util::make_debug_int;
using test_util::make_delegate_profile;
using test_util::make_profile;
using test_util::TestETDump;

std::vector<std::uint8_t> two_runs() {
  TestETDump b;
  b.run("Default", {"planned"});
  b.event(make_profile(b.fbb(), "Method::init", 0, -1, 10, 20));
  b.event(make_allocation(b.fbb(), 1, 64));
  b.run("Execute", {"planned"});
  b.event(make_profile(b.fbb(), "OPERATOR_CALL", 3, 4, 100, 250));
  b.event(make_debug_int(b.fbb(), 7, 5, 42));
  b.event(make_delegate_profile(b.fbb(), 7, 5, 300, 400, {0xde, 0xad}));
  b.counter_names({"cycles", "macs"});
  b.event(make_counted_profile(b.fbb(), 8, 400, 500,
                               {::etdump::Counter(1, 7), ::etdump::Counter(0, -9)}));
  return b.finish();
}

TEST(ETDumpBufferTest, SkeletonIsTheDumpWithoutItsProfileEvents) {
  const std::vector<std::uint8_t> bytes = two_runs();
  const StatusOr<ETDumpFile> whole = parse_etdump(bytes, "run.etdp");
  ASSERT_THAT(whole, IsOk());
  StatusOr<ETDumpBuffer> buffer = ETDumpBuffer::parse(bytes, "run.etdp");
  ASSERT_THAT(buffer, IsOk());

  const ETDumpFile& skeleton = buffer->skeleton();
  ASSERT_EQ(skeleton.runs.size(), 2u);
  EXPECT_EQ(buffer->profile_events(), 4u);
  for (std::size_t r = 0; r < 2; ++r) {
    EXPECT_EQ(skeleton.runs[r].name, whole->runs[r].name);
    EXPECT_EQ(skeleton.runs[r].allocators, whole->runs[r].allocators);
    // Allocation and debug events stay, in file order; profile events go.
    std::vector<EventKind> kept, expected;
    for (const Event& e : skeleton.runs[r].events) kept.push_back(e.kind());
    for (const Event& e : whole->runs[r].events) {
      if (e.kind() != EventKind::kProfile) expected.push_back(e.kind());
    }
    EXPECT_EQ(kept, expected);
  }
}

TEST(ETDumpBufferTest, VisitsEveryProfileEventAsParseDecodesIt) {
  const std::vector<std::uint8_t> bytes = two_runs();
  const StatusOr<ETDumpFile> whole = parse_etdump(bytes, "run.etdp");
  ASSERT_THAT(whole, IsOk());
  std::vector<std::pair<std::size_t, ProfileEvent>> expected;
  for (std::size_t r = 0; r < whole->runs.size(); ++r) {
    for (const Event& e : whole->runs[r].events) {
      if (const ProfileEvent* p = e.profile()) expected.emplace_back(r, *p);
    }
  }
  StatusOr<ETDumpBuffer> buffer = ETDumpBuffer::parse(bytes, "run.etdp");
  ASSERT_THAT(buffer, IsOk());
  // Moved: the views must still point into the kept bytes.
  const ETDumpBuffer moved = std::move(*buffer);

  std::size_t i = 0;
  moved.for_each_profile_event([&](std::size_t run, const ProfileEventRef& got) {
    ASSERT_LT(i, expected.size());
    const auto& [want_run, want] = expected[i++];
    const ProfileEventRef ref = ProfileEventRef::of(want);
    EXPECT_EQ(run, want_run);
    EXPECT_EQ(got.name, ref.name);
    EXPECT_EQ(got.chain_index, ref.chain_index);
    EXPECT_EQ(got.instruction_id, ref.instruction_id);
    EXPECT_EQ(got.delegate_debug_id_int, ref.delegate_debug_id_int);
    EXPECT_EQ(got.delegate_debug_id_str, ref.delegate_debug_id_str);
    ASSERT_EQ(got.delegate_debug_metadata.has_value(), ref.delegate_debug_metadata.has_value());
    if (got.delegate_debug_metadata) {
      EXPECT_TRUE(std::ranges::equal(*got.delegate_debug_metadata, *ref.delegate_debug_metadata));
    }
    EXPECT_EQ(got.start_time, ref.start_time);
    EXPECT_EQ(got.end_time, ref.end_time);
    EXPECT_EQ(got.thread_index, ref.thread_index);
    EXPECT_EQ(got.time_source, ref.time_source);
    // Counters are viewed in place, as decoded.
    EXPECT_TRUE(std::ranges::equal(got.counters, ref.counters));
    if (want.delegate_debug_id_int == DelegateDebugIntId(8)) {
      EXPECT_EQ(std::vector<Counter>(got.counters.begin(), got.counters.end()),
                (std::vector<Counter>{{1, 7}, {0, -9}}));
    }
  });
  EXPECT_EQ(i, expected.size());
}

TEST(ETDumpBufferTest, RefusesWhatParseRefusesWithTheSameMessage) {
  std::vector<std::uint8_t> bytes = two_runs();
  bytes.resize(bytes.size() / 2);
  const StatusOr<ETDumpFile> whole = parse_etdump(bytes, "cut.etdp");
  const StatusOr<ETDumpBuffer> buffer = ETDumpBuffer::parse(bytes, "cut.etdp");
  ASSERT_FALSE(whole.ok());
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().message(), whole.status().message());

  // A rule only the decoder checks, on a profile event the skeleton skips.
  TestETDump b;
  auto& fbb = b.fbb();
  const auto p = ::etdump::CreateProfileEventDirect(fbb, "x");
  const auto a = ::etdump::CreateAllocationEvent(fbb, 1, 8);
  b.run("Execute", {"a"}).event(::etdump::CreateEvent(fbb, p, a));
  const StatusOr<ETDumpBuffer> refused = ETDumpBuffer::parse(b.finish(), "run.etdp");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "run.etdp: event 0 of run 0 has 2 members set; an event holds exactly one");
}

}  // namespace
}  // namespace glassbox::etdump

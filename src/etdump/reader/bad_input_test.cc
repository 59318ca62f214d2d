// Bad input: every failure is one error naming the source and the problem,
// never a crash and never a partial result.

#include <random>

#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/etdump/reader/test_etdump_builder.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;

namespace fb = ::etdump;
using test_util::make_allocation;
using test_util::make_counted_profile;
using test_util::make_debug_int;
using test_util::make_delegate_profile;
using test_util::make_profile;
using test_util::TestETDump;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A file with every event kind and a tensor, for truncation and flips.
std::vector<std::uint8_t> rich_file(bool size_prefixed = true) {
  TestETDump b;
  auto& fbb = b.fbb();
  b.tick_ratio(1, 1);
  b.run("Default").event(make_profile(fbb, "Method::init", 0, 0, 10, 20));
  b.run("Execute", {"planned"});
  b.event(make_profile(fbb, "OPERATOR_CALL", 0, 0, 100, 200));
  b.event(make_delegate_profile(fbb, 3, 1, 210, 300, {1, 2, 3}));
  b.event(make_allocation(fbb, 1, 64));
  b.event(make_debug_int(fbb, ~0ull, 1, 9));
  const std::vector<std::int64_t> sizes = {4};
  b.event(fb::CreateEvent(
      fbb, 0, 0,
      fb::CreateDebugEvent(
          fbb, 0, 1,
          fb::CreateValue(fbb, fb::ValueType::Tensor,
                          fb::CreateTensorDirect(fbb, executorch_flatbuffer::ScalarType::FLOAT,
                                                 &sizes, nullptr, 0)))));
  return b.finish(size_prefixed);
}

Status parse_error(const std::vector<std::uint8_t>& bytes) {
  auto file = parse_etdump(bytes, "run.etdp");
  return file.status();
}

TEST(EtdumpBadInputTest, EveryTruncationIsAnError) {
  const std::vector<std::uint8_t> bytes = rich_file();
  ASSERT_TRUE(parse_etdump(bytes, "whole").ok());
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    const Status s = parse_etdump(std::span(bytes).first(len), "run.etdp").status();
    ASSERT_FALSE(s.ok()) << "length " << len;
    EXPECT_THAT(s, ErrorIs(Error::kCorruptData)) << "length " << len;
    EXPECT_THAT(s.message(), StartsWith("run.etdp: ")) << "length " << len;
  }
}

TEST(EtdumpBadInputTest, TruncationOfUnprefixedBufferNeverCrashes) {
  // Without a prefix nothing records the length, so some cuts may still
  // verify; each must be a whole, consistent parse or an error.
  const std::vector<std::uint8_t> bytes = rich_file(/*size_prefixed=*/false);
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    auto file = parse_etdump(std::span(bytes).first(len), "cut");
    if (file.ok()) {
      EXPECT_LE(file->runs.size(), 2u);
    }
  }
}

TEST(EtdumpBadInputTest, TruncatedFileSaysWhatThePrefixClaims) {
  std::vector<std::uint8_t> bytes = rich_file();
  const std::size_t declared = bytes.size() - 4;
  bytes.resize(bytes.size() - 100);
  const Status s = parse_error(bytes);
  EXPECT_EQ(s.message(), "run.etdp: truncated: size prefix says " + std::to_string(declared) +
                             " bytes, file has " + std::to_string(declared - 100) +
                             " after the 4-byte prefix");
}

TEST(EtdumpBadInputTest, SeededByteFlipsGiveParseOrError) {
  const std::vector<std::uint8_t> original = rich_file();
  std::mt19937 rng(20240601);  // fixed seed: failures reproduce
  constexpr int kTrials = 4000;
  int errors = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<std::uint8_t> bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      bytes[rng() % bytes.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    }
    auto file = parse_etdump(bytes, "flipped");
    if (!file.ok()) {
      ++errors;
      EXPECT_THAT(file.message(), StartsWith("flipped: "));
    }
  }
  // Most flips land in offsets, lengths or checked fields.
  EXPECT_GT(errors, 0);
}

TEST(EtdumpBadInputTest, EmptyAndTinyInputs) {
  EXPECT_EQ(parse_error({}).message(), "run.etdp: too short to be an ETDump (0 bytes)");
  EXPECT_THAT(parse_error({1, 2, 3}), ErrorIs(Error::kCorruptData));
}

TEST(EtdumpBadInputTest, WrongIdentifier) {
  std::vector<std::uint8_t> bytes = rich_file();
  std::memcpy(bytes.data() + 8, "XY\x01Z", 4);
  EXPECT_EQ(parse_error(bytes).message(),
            "run.etdp: not an ETDump (file identifier is 'XY\\x01Z', "
            "expected 'ED00')");
}

TEST(EtdumpBadInputTest, NonZeroBytesAfterPrefixedBuffer) {
  std::vector<std::uint8_t> bytes = rich_file();
  bytes.push_back(0x7f);
  EXPECT_THAT(parse_error(bytes).message(), HasSubstr("1 more non-padding bytes"));
}

TEST(EtdumpBadInputTest, VersionOneIsRefused) {
  TestETDump b;
  b.version(1).event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  const Status s = parse_error(b.finish());
  EXPECT_THAT(s, ErrorIs(Error::kVersionMismatch));
  EXPECT_EQ(s.message(),
            "run.etdp: unsupported ETDump version 1 (this reader reads "
            "version 0)");
}

TEST(EtdumpBadInputTest, EventWithNoMember) {
  TestETDump b;
  b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  b.run("Execute");
  b.event(make_profile(b.fbb(), "y", 0, 0, 1, 2));
  b.event(make_profile(b.fbb(), "z", 0, 0, 1, 2));
  b.event(fb::CreateEvent(b.fbb()));
  EXPECT_EQ(parse_error(b.finish()).message(), "run.etdp: event 2 of run 1 has no member set");
}

TEST(EtdumpBadInputTest, EventWithTwoMembers) {
  TestETDump b;
  auto& fbb = b.fbb();
  const auto p = fb::CreateProfileEventDirect(fbb, "x");
  const auto a = fb::CreateAllocationEvent(fbb, 1, 8);
  b.run("Execute", {"a"}).event(fb::CreateEvent(fbb, p, a));
  EXPECT_EQ(parse_error(b.finish()).message(),
            "run.etdp: event 0 of run 0 has 2 members set; an event holds "
            "exactly one");
}

TEST(EtdumpBadInputTest, AllocatorIdZeroOrOutOfRange) {
  for (const std::int32_t id : {0, 3, -1}) {
    TestETDump b;
    b.run("Execute", {"a", "b"}).event(make_allocation(b.fbb(), id, 8));
    EXPECT_EQ(parse_error(b.finish()).message(),
              "run.etdp: event 0 of run 0: allocator id " + std::to_string(id) +
                  " is out of range (the run has 2 allocators, numbered from "
                  "1)");
  }
}

TEST(EtdumpBadInputTest, ValueMemberMustMatchType) {
  TestETDump b;
  auto& fbb = b.fbb();
  // Says Int, holds a Double.
  const auto v = fb::CreateValue(fbb, fb::ValueType::Int, 0, 0, 0, 0, fb::CreateDouble(fbb, 1.0));
  b.event(fb::CreateEvent(fbb, 0, 0, fb::CreateDebugEvent(fbb, 0, 0, v)));
  EXPECT_EQ(parse_error(b.finish()).message(),
            "run.etdp: event 0 of run 0: value of type Int has no int_value");
}

TEST(EtdumpBadInputTest, ValueWithExtraMember) {
  TestETDump b;
  auto& fbb = b.fbb();
  const auto v = fb::CreateValue(fbb, fb::ValueType::Null, 0, 0, fb::CreateInt(fbb, 1));
  b.event(fb::CreateEvent(fbb, 0, 0, fb::CreateDebugEvent(fbb, 0, 0, v)));
  EXPECT_EQ(parse_error(b.finish()).message(),
            "run.etdp: event 0 of run 0: value of type Null also has "
            "int_value set");
}

TEST(EtdumpBadInputTest, UnknownValueType) {
  TestETDump b;
  auto& fbb = b.fbb();
  const auto v = fb::CreateValue(fbb, static_cast<fb::ValueType>(42));
  b.event(fb::CreateEvent(fbb, 0, 0, fb::CreateDebugEvent(fbb, 0, 0, v)));
  EXPECT_EQ(parse_error(b.finish()).message(), "run.etdp: event 0 of run 0: unknown value type 42");
}

TEST(EtdumpBadInputTest, DebugEventWithoutValue) {
  TestETDump b;
  b.event(fb::CreateEvent(b.fbb(), 0, 0, fb::CreateDebugEvent(b.fbb())));
  EXPECT_EQ(parse_error(b.finish()).message(),
            "run.etdp: event 0 of run 0: debug event has no value "
            "(debug_entry)");
}

TEST(EtdumpBadInputTest, ZeroTickRatioDenominator) {
  TestETDump b;
  b.tick_ratio(1, 0).event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  EXPECT_EQ(parse_error(b.finish()).message(), "run.etdp: tick ratio 1/0 has a zero denominator");
}

TEST(EtdumpBadInputTest, DelegateTimeScaleWithoutBackend) {
  TestETDump b;
  const fb::TickRatio ratio(4, 1);
  b.delegate_time_scale("Npu", &ratio).delegate_time_scale(nullptr, &ratio);
  EXPECT_EQ(parse_error(b.finish()).message(), "run.etdp: delegate time scale 1 names no backend");
}

TEST(EtdumpBadInputTest, DelegateTimeScaleWithoutUsableRatio) {
  const fb::TickRatio zero_numerator(0, 1), zero_denominator(1, 0);
  for (const fb::TickRatio* ratio :
       {static_cast<const fb::TickRatio*>(nullptr), &zero_numerator, &zero_denominator}) {
    TestETDump b;
    b.delegate_time_scale("Npu", ratio);
    EXPECT_EQ(parse_error(b.finish()).message(),
              "run.etdp: delegate time scale 0 has no ratio or a zero in its ratio");
  }
}

TEST(EtdumpBadInputTest, CounterNamingNoCounterName) {
  for (const bool with_names : {false, true}) {
    TestETDump b;
    if (with_names) b.counter_names({"cycles"});
    b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
    b.event(make_counted_profile(b.fbb(), 1, 1, 2, {fb::Counter(0, 5), fb::Counter(1, 6)}));
    const std::vector<std::uint8_t> bytes = b.finish();
    const std::string expected =
        with_names ? "run.etdp: event 1 of run 0: counter 1 names counter name 1, but the dump "
                     "has 1 counter names"
                   : "run.etdp: event 1 of run 0: counter 0 names counter name 0, but the dump "
                     "has 0 counter names";
    EXPECT_EQ(parse_error(bytes).message(), expected);
    // The buffer form (profile events left undecoded) refuses it alike.
    EXPECT_EQ(ETDumpBuffer::parse(bytes, "run.etdp").status().message(), expected);
  }
}

TEST(EtdumpBadInputTest, CounterNamesEmptyOrRepeated) {
  TestETDump empty;
  empty.counter_names({"cycles", ""}).event(make_profile(empty.fbb(), "x", 0, 0, 1, 2));
  EXPECT_EQ(parse_error(empty.finish()).message(), "run.etdp: counter name 1 is empty");
  TestETDump repeated;
  repeated.counter_names({"cycles", "macs", "cycles"})
      .event(make_profile(repeated.fbb(), "x", 0, 0, 1, 2));
  EXPECT_EQ(parse_error(repeated.finish()).message(),
            "run.etdp: counter name 2 repeats an earlier one");
}

TEST(EtdumpBadInputTest, CorruptOffsetFailsVerification) {
  std::vector<std::uint8_t> bytes = rich_file();
  // Point the root offset past the end.
  bytes[4] = 0xff;
  bytes[5] = 0xff;
  const Status s = parse_error(bytes);
  EXPECT_THAT(s, ErrorIs(Error::kCorruptData));
  EXPECT_THAT(s.message(), StartsWith("run.etdp: corrupt: the FlatBuffer "
                                      "failed verification"));
}

}  // namespace
}  // namespace glassbox::etdump

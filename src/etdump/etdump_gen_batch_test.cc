// ETDumpGen::log_profiling_delegates: a batch of post-time delegate events
// must record exactly what logging each with log_profiling_delegate
// records, in both memory modes, including refusals and a full buffer.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "src/etdump/etdump_gen_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using testing_util::metadata_of;

using ::glassbox::testing::IsOk;
using runtime::DelegateEventDesc;
using runtime::DelegateEventTimes;

using testing_util::Tracer;

class ETDumpGenBatchTest : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Modes, ETDumpGenBatchTest, ::testing::Bool(), [](const auto& param_info) {
  return param_info.param ? "CallerBuffer" : "Heap";
});

TEST_P(ETDumpGenBatchTest, RecordsWhatOneByOneRecords) {
  const std::string kind_a = "fully_connected_nc_f32";
  const std::string kind_b = "add_nd_f32";
  const std::string kind_b_copy = kind_b;     // equal bytes at another address
  const std::string long_metadata(150, 'L');  // too long to intern: copied
  const DelegateEventDesc events[] = {
      {nullptr, DelegateDebugIntId(0), nullptr, 0},
      {nullptr, DelegateDebugIntId(1), kind_a.data(), kind_a.size()},
      {"fused.conv_relu", kUnsetDelegateDebugIntId, kind_b.data(), kind_b.size()},
      {nullptr, DelegateDebugIntId(3), kind_b.data(), kind_b.size()},
      {nullptr, DelegateDebugIntId(4), kind_a.data(), kind_a.size()},
      {nullptr, DelegateDebugIntId(5), kind_b_copy.data(), kind_b_copy.size()},
      {nullptr, DelegateDebugIntId(6), long_metadata.data(), long_metadata.size()},
      {"both", DelegateDebugIntId(7), nullptr, 0},   // refused: two identifiers
      {nullptr, DelegateDebugIntId(8), nullptr, 3},  // refused: no metadata bytes
      {nullptr, DelegateDebugIntId(9), kind_a.data(), kind_a.size()},
  };
  constexpr std::size_t kEvents = sizeof(events) / sizeof(events[0]);
  DelegateEventTimes times[kEvents];
  for (std::size_t i = 0; i < kEvents; ++i) times[i] = {100 * i, 100 * i + 40 + i};

  Tracer batch(GetParam());
  Tracer one_by_one(GetParam());
  for (Tracer* t : {&batch, &one_by_one}) {
    ASSERT_EQ(t->gen->create_event_block("Execute"), Error::kOk);
    t->gen->set_chain_instruction(ChainId(0), InstructionId(2));
  }
  EXPECT_EQ(batch.gen->log_profiling_delegates(events, times, runtime::TimeSource::kMeasured),
            Error::kInvalidArgument)
      << "the first refusal is the answer";
  for (std::size_t i = 0; i < kEvents; ++i) {
    (void)one_by_one.gen->log_profiling_delegate(events[i].name, events[i].int_id, times[i].start,
                                                 times[i].end, events[i].metadata,
                                                 events[i].metadata_len);
  }
  EXPECT_EQ(batch.gen->rejected_events(), 2u);
  EXPECT_EQ(batch.gen->rejected_events(), one_by_one.gen->rejected_events());

  const ETDumpFile got = batch.dump();
  const ETDumpFile want = one_by_one.dump();
  const auto& got_events = got.runs.at(0).events;
  const auto& want_events = want.runs.at(0).events;
  ASSERT_EQ(got_events.size(), kEvents - 2);
  ASSERT_EQ(got_events.size(), want_events.size());
  for (std::size_t i = 0; i < got_events.size(); ++i) {
    const ProfileEvent& g = *got_events[i].profile();
    const ProfileEvent& w = *want_events[i].profile();
    EXPECT_EQ(g.delegate_debug_id_int, w.delegate_debug_id_int) << i;
    EXPECT_EQ(g.delegate_debug_id_str, w.delegate_debug_id_str) << i;
    EXPECT_EQ(g.start_time, w.start_time) << i;
    EXPECT_EQ(g.end_time, w.end_time) << i;
    EXPECT_EQ(g.instruction_id, InstructionId(2)) << i;
    EXPECT_EQ(g.instruction_id, w.instruction_id) << i;
    EXPECT_EQ(g.time_source, w.time_source) << i;
    EXPECT_EQ(metadata_of(g), metadata_of(w)) << i;
  }
  EXPECT_EQ(metadata_of(*got_events[1].profile()), kind_a);
  EXPECT_EQ(metadata_of(*got_events[2].profile()), kind_b);
  EXPECT_EQ(got_events[2].profile()->delegate_debug_id_str, "fused.conv_relu");
  EXPECT_EQ(metadata_of(*got_events[6].profile()), long_metadata);
}

// The addresses a call has seen are forgotten when it returns: a buffer the
// delegate rewrites between two calls gives the second its new bytes.
TEST_P(ETDumpGenBatchTest, MetadataRewrittenBetweenCallsKeepsItsNewBytes) {
  Tracer t(GetParam());
  ASSERT_EQ(t.gen->create_event_block("Execute"), Error::kOk);
  char buffer[] = "conv: jit:avx2";
  const DelegateEventDesc events[] = {{nullptr, DelegateDebugIntId(0), buffer, 14},
                                      {nullptr, DelegateDebugIntId(1), buffer, 14}};
  const DelegateEventTimes times[] = {{0, 1}, {1, 2}};
  ASSERT_EQ(t.gen->log_profiling_delegates(events, times), Error::kOk);
  std::memcpy(buffer, "pool", 4);
  ASSERT_EQ(t.gen->log_profiling_delegates(events, times), Error::kOk);

  const ETDumpFile file = t.dump();
  const auto& logged = file.runs.at(0).events;
  ASSERT_EQ(logged.size(), 4u);
  EXPECT_EQ(metadata_of(*logged[0].profile()), "conv: jit:avx2");
  EXPECT_EQ(metadata_of(*logged[1].profile()), "conv: jit:avx2");
  EXPECT_EQ(metadata_of(*logged[2].profile()), "pool: jit:avx2");
  EXPECT_EQ(metadata_of(*logged[3].profile()), "pool: jit:avx2");
}

TEST(ETDumpGenBatchBufferTest, FullBufferKeepsWhatFitsAndCountsTheRest) {
  std::vector<std::uint8_t> memory(64 * 1024);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  const std::size_t capacity = gen.capacity();
  const std::string kind = "convolution_nhwc_f32";
  std::vector<DelegateEventDesc> events(capacity * 2);
  std::vector<DelegateEventTimes> times(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    events[i] = {nullptr, DelegateDebugIntId(static_cast<std::int32_t>(i)), kind.data(),
                 kind.size()};
    times[i] = {i, i + 1};
  }
  EXPECT_EQ(gen.log_profiling_delegates(events, times.data()), Error::kOutOfResources);
  // The interned string's vector takes one slot's worth of the buffer.
  const std::size_t kept = capacity - 1;
  EXPECT_EQ(gen.dropped_events(), events.size() - kept);
  StatusOr<ETDumpFile> file = testing_util::serialize_in(gen, memory, "full.etdp");
  ASSERT_THAT(file, IsOk());
  const auto& logged = file->runs.at(0).events;
  ASSERT_EQ(logged.size(), kept);
  for (std::size_t i = 0; i < kept; ++i) {
    ASSERT_EQ(logged[i].profile()->delegate_debug_id_int.value, static_cast<std::int32_t>(i));
    ASSERT_EQ(metadata_of(*logged[i].profile()), kind);
  }
}

}  // namespace
}  // namespace glassbox::etdump

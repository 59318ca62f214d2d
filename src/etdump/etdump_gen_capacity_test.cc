// The caller-buffer bound: whatever is logged into a buffer of any size,
// serialization fits, nothing aborts, and every attempted event is either
// in the dump or counted as dropped. Also what a buffer holds, and how a
// full buffer treats later blocks.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "src/etdump/etdump_gen_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::IsOk;
using runtime::EventTracerEntry;
using runtime::LoggedValueKind;
using runtime::ValueView;
using testing_util::serialize;
using testing_util::serialize_in;
using testing_util::Verifies;

std::size_t events_in(const ETDumpFile& file) {
  std::size_t n = 0;
  for (const RunData& run : file.runs) n += run.events.size() + run.allocators.size();
  return n;
}

// Logs one event (or allocator) of kind `kind`, 0..kKinds-1, and counts
// the attempt.
constexpr int kKinds = 14;
class Logger {
 public:
  explicit Logger(ETDumpGen& gen) : gen_(gen) {
    for (int i = 0; i < 40; ++i) names_.push_back("name_" + std::to_string(i * 7919));
    // More than a dump holds: later names are left out, their events kept.
    for (int i = 0; i < 40; ++i) counter_names_.push_back("counter_" + std::to_string(i));
  }
  void log(int kind, std::mt19937& rng) {
    const char* name = names_[rng() % names_.size()].c_str();
    const std::int64_t sizes[] = {2, 3, 4, 5};
    const TensorView t{
        ScalarType::kFloat, Span<const std::int64_t>(sizes, rng() % 4 + 1), {}, data_};
    const std::size_t metadata_length = rng() % 100 + 1;
    switch (kind) {
      case 0: {
        EventTracerEntry e = runtime::event_tracer_start_profiling_delegate(
            &gen_, nullptr, DelegateDebugIntId(static_cast<std::int32_t>(rng() % 1000)));
        (void)runtime::event_tracer_end_profiling_delegate(&gen_, e);
        break;
      }
      case 1: (void)gen_.log_profiling_delegate(name, kUnsetDelegateDebugIntId, 1, 2); break;
      case 2:
        (void)gen_.log_profiling_delegate(nullptr, DelegateDebugIntId(3), 1, 2, metadata_,
                                          metadata_length);
        break;
      case 3:
        (void)gen_.log_profiling_delegate(name, kUnsetDelegateDebugIntId, 1, 2, metadata_,
                                          metadata_length);
        break;
      case 11:
        // Too long to intern: copied into the records, as are lengths past
        // the interned table's 31 entries in cases 2 and 3.
        (void)gen_.log_profiling_delegate(nullptr, DelegateDebugIntId(5), 1, 2, metadata_,
                                          200 - rng() % 80);
        break;
      case 12:
      case 13: {
        // 1 to 16 distinct counters, with metadata of every form.
        runtime::DelegateCounter counters[runtime::EventTracer::kMaxEventCounters];
        const std::size_t n = rng() % runtime::EventTracer::kMaxEventCounters + 1;
        const std::size_t first = rng() % counter_names_.size();
        for (std::size_t k = 0; k < n; ++k) {
          counters[k] = {counter_names_[(first + k) % counter_names_.size()].c_str(),
                         static_cast<std::int64_t>(rng())};
        }
        const Span<const runtime::DelegateCounter> span(counters, n);
        const std::size_t length = rng() % 3 == 0 ? 0 : metadata_length + rng() % 100;
        if (kind == 12) {
          (void)gen_.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(8), 1, 2,
                                                          span, metadata_, length);
        } else {
          EventTracerEntry e = gen_.start_profiling_delegate(name, kUnsetDelegateDebugIntId);
          (void)gen_.end_profiling_delegate_with_counters(e, span, metadata_, length);
        }
        break;
      }
      case 4: (void)gen_.end_profiling(gen_.start_profiling(name)); break;
      case 5: (void)gen_.end_profiling(gen_.start_profiling(nullptr)); break;
      case 6:
        if (gen_.track_allocator(name).is_set()) ++allocators_;
        break;
      case 7:
        // An allocation needs an allocator in its block first.
        if (allocators_ == 0) return log(6, rng);
        gen_.track_allocation(AllocatorId(1), 64);
        break;
      case 8: (void)gen_.log_value(ValueView::of_tensor(t), LoggedValueKind::kProgramOutput); break;
      case 9: {
        const TensorView list[] = {t, t};
        (void)gen_.log_intermediate_output_delegate(nullptr, DelegateDebugIntId(4),
                                                    Span<const TensorView>(list));
        break;
      }
      default:
        (void)gen_.log_value(rng() % 2 ? ValueView::of_double(0.5) : ValueView::of_int(7),
                             LoggedValueKind::kIntermediateOutput);
    }
    ++attempted_;
  }
  std::uint64_t attempted() const { return attempted_; }
  // A new block resets the allocator ids.
  void new_block() { allocators_ = 0; }

 private:
  ETDumpGen& gen_;
  std::vector<std::string> names_;
  std::vector<std::string> counter_names_;
  const float data_[120] = {};
  const char metadata_[200] = {};
  std::uint64_t attempted_ = 0;
  int allocators_ = 0;
};

// Declares the most delegate time scales, with the longest names and (all
// but the first) a host clock offset: their bytes are reserved up front, so
// they can never overflow the buffer.
void declare_every_time_scale(ETDumpGen& gen) {
  for (std::size_t i = 0; i < runtime::EventTracer::kMaxDelegateTimeScales; ++i) {
    std::string name(runtime::EventTracer::kMaxBackendNameLength, 'a');
    name[0] = static_cast<char>('A' + i);
    ASSERT_EQ(gen.set_delegate_time_scale(name.c_str(), TickRatio{i + 1, 3}), Error::kOk);
    if (i > 0) {
      ASSERT_EQ(gen.set_delegate_clock_offset(name.c_str(), -1000 * static_cast<std::int64_t>(i)),
                Error::kOk);
    }
  }
}

// Logs `steps` events of kind `mix` (all kinds at random if negative), a
// block every 300, then checks that the dump verifies and accounts for
// every attempt.
void fill_and_check(ETDumpGen& gen, const std::vector<std::uint8_t>& memory, int mix,
                    std::size_t steps, std::mt19937& rng) {
  Logger logger(gen);
  std::uint64_t blocks = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    if (step % 300 == 0) {
      logger.new_block();
      if (gen.create_event_block("Execute") == Error::kOk) ++blocks;
    }
    logger.log(mix < 0 ? static_cast<int>(rng() % kKinds) : mix, rng);
  }
  ASSERT_GT(gen.dropped_events(), 0u) << "the test must reach the limit";
  EXPECT_GT(gen.dropped_blocks(), 0u) << "blocks after the buffer filled are refused";
  EXPECT_EQ(gen.rejected_events(), 0u);
  StatusOr<ETDumpFile> file = serialize_in(gen, memory, "capacity.etdp");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(events_in(*file) + gen.dropped_events(), logger.attempted());
  EXPECT_EQ(file->dropped_events, gen.dropped_events());
  EXPECT_EQ(file->dropped_blocks, gen.dropped_blocks());
  EXPECT_EQ(file->runs.size(), blocks) << "no implicit block, no empty refused ones";
  std::uint64_t per_run = 0;
  for (const RunData& run : file->runs) per_run += run.dropped_events.value_or(0);
  EXPECT_EQ(per_run, gen.dropped_events());
}

// Buffers of many sizes, each filled far past its capacity with one kind of
// event, or with all kinds mixed.
TEST(ETDumpGenCapacityTest, EveryKindInEverySizeSerializesAndAccountsForEveryEvent) {
  std::mt19937 rng(42);
  for (std::size_t kb : {24, 33, 47, 64, 100, 257}) {
    for (int mix = -1; mix < kKinds; ++mix) {
      SCOPED_TRACE("buffer " + std::to_string(kb) + " KiB, kind " + std::to_string(mix));
      // Slots are never cleared in advance: start from garbage, and fill
      // the same buffer twice (over the first dump).
      std::vector<std::uint8_t> memory(kb * 1024 + rng() % 64, 0x5a);
      ETDumpGen gen{Span<std::uint8_t>(memory.data() + rng() % 8, memory.size() - 8)};
      ASSERT_EQ(gen.status(), Error::kOk);
      declare_every_time_scale(gen);
      for (int round = 0; round < 2; ++round) {
        gen.reset();
        fill_and_check(gen, memory, mix, kb * 1024 / 16, rng);
      }
    }
  }
}

TEST(ETDumpGenCapacityTest, OneMegabyteHoldsSixteenThousandIntIdDelegateEvents) {
  std::vector<std::uint8_t> memory(1 << 20);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  std::uint64_t attempted = 0;
  while (gen.dropped_events() == 0) {
    EventTracerEntry e =
        runtime::event_tracer_start_profiling_delegate(&gen, nullptr, DelegateDebugIntId(1));
    (void)runtime::event_tracer_end_profiling_delegate(&gen, e);
    ++attempted;
  }
  StatusOr<ETDumpFile> file = serialize(gen, "mb.etdp");
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ(file->runs.size(), 1u);
  EXPECT_EQ(file->runs[0].events.size(), attempted - 1);
  EXPECT_GE(file->runs[0].events.size(), 16000u);
  RecordProperty("events_per_megabyte", static_cast<int>(file->runs[0].events.size()));
}

// A full buffer and a block every 1000 events: refused blocks are counted
// once each, not written as empty runs, and dropped events are exact.
TEST(ETDumpGenCapacityTest, FullBufferRefusesBlocksAndCountsThemApart) {
  std::vector<std::uint8_t> memory(1 << 20);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  constexpr std::uint64_t kBlocks = 100, kPerBlock = 1000;
  std::uint64_t created = 0;
  for (std::uint64_t b = 0; b < kBlocks; ++b) {
    if (gen.create_event_block("Execute") == Error::kOk) ++created;
    for (std::uint64_t i = 0; i < kPerBlock; ++i) {
      (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(1), i, i + 1);
    }
  }
  EXPECT_EQ(gen.dropped_blocks(), kBlocks - created);
  StatusOr<ETDumpFile> file = serialize(gen, "blocks.etdp");
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ(file->runs.size(), created);
  for (std::size_t r = 0; r + 1 < file->runs.size(); ++r) {
    EXPECT_EQ(file->runs[r].events.size(), kPerBlock);
  }
  EXPECT_FALSE(file->runs.back().events.empty());
  EXPECT_EQ(events_in(*file) + gen.dropped_events(), kBlocks * kPerBlock);
  EXPECT_EQ(file->dropped_blocks, kBlocks - created);
}

// Worker threads filling a small buffer with events, metadata and values
// at once: claims and arena charges race near the limit.
TEST(ETDumpGenCapacityTest, ConcurrentFillPastCapacityAccountsForEveryEvent) {
  constexpr int kThreads = 4;
  std::vector<std::uint8_t> memory(96 * 1024, 0xa5);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  std::vector<std::uint64_t> attempted(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&gen, &attempted, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      Logger logger(gen);
      const int kinds[] = {0, 1, 2, 3, 4, 8, 9, 10};
      for (int i = 0; i < 3000; ++i) logger.log(kinds[rng() % 8], rng);
      attempted[static_cast<std::size_t>(t)] = logger.attempted();
    });
  }
  for (std::thread& th : pool) th.join();
  ASSERT_GT(gen.dropped_events(), 0u) << "the test must reach the limit";
  StatusOr<ETDumpFile> file = serialize(gen, "threads.etdp");
  ASSERT_THAT(file, IsOk());
  std::uint64_t total = 0;
  for (std::uint64_t a : attempted) total += a;
  EXPECT_EQ(events_in(*file) + gen.dropped_events(), total);
}

TEST(ETDumpGenCapacityTest, CallerBufferIsFinishedOnceSerialized) {
  std::vector<std::uint8_t> memory(64 * 1024);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(1), 1, 2);
  Result<Span<const std::uint8_t>> first = gen.get_etdump_data();
  ASSERT_THAT(first, IsOk());
  const std::vector<std::uint8_t> bytes(first->begin(), first->end());
  EXPECT_EQ(gen.num_events(), 1u);
  EXPECT_EQ(gen.log_profiling_delegate(nullptr, DelegateDebugIntId(2), 3, 4),
            Error::kOutOfResources);
  EXPECT_EQ(gen.dropped_events(), 1u);
  // A real-time pair takes the end hook's fast path, which claims from the
  // thread's run: the slots it claimed before the dump now lie under the
  // dump and must not be written.
  const runtime::EventTracerEntry entry =
      gen.start_profiling_delegate(nullptr, DelegateDebugIntId(3));
  EXPECT_EQ(gen.end_profiling_delegate(entry), Error::kOutOfResources);
  EXPECT_EQ(gen.dropped_events(), 2u);
  Result<Span<const std::uint8_t>> again = gen.get_etdump_data();
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(std::vector<std::uint8_t>(again->begin(), again->end()), bytes);
  gen.reset();
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(5), 5, 6);
  StatusOr<ETDumpFile> file = serialize(gen, "again.etdp");
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ(file->runs.at(0).events.size(), 1u);
  EXPECT_EQ(file->runs[0].events[0].profile()->start_time, 5u);
}

// Every kind, int and string ids, metadata, values and many blocks, in both
// modes: flatc, with the schema, must read the dump as well.
TEST(ETDumpGenCapacityTest, FlatcReadsEveryKindOfEvent) {
  for (bool caller_buffer : {false, true}) {
    std::vector<std::uint8_t> memory(1 << 20);
    std::unique_ptr<ETDumpGen> gen = caller_buffer
                                         ? std::make_unique<ETDumpGen>(Span<std::uint8_t>(memory))
                                         : std::make_unique<ETDumpGen>();
    gen->set_program_fingerprint("fp");
    declare_every_time_scale(*gen);
    std::mt19937 rng(7);
    Logger logger(*gen);
    for (int block = 0; block < 20; ++block) {
      logger.new_block();
      ASSERT_EQ(gen->create_event_block(block % 2 ? "Execute" : nullptr), Error::kOk);
      for (int kind = 0; kind < kKinds; ++kind) logger.log(kind, rng);
    }
    Result<Span<const std::uint8_t>> data = gen->get_etdump_data();
    ASSERT_THAT(data, IsOk());
    ASSERT_TRUE(Verifies(*data));
    StatusOr<ETDumpFile> file = parse_etdump(*data, "kinds.etdp");
    ASSERT_THAT(file, IsOk());
    EXPECT_EQ(events_in(*file), logger.attempted());
    EXPECT_EQ(file->runs.size(), 20u);
    ASSERT_EQ(file->delegate_time_scales.size(), runtime::EventTracer::kMaxDelegateTimeScales);
    EXPECT_EQ(file->delegate_time_scales.back().ns_per_tick, (TickRatio{8, 3}));
    EXPECT_EQ(file->delegate_time_scales.front().host_offset_ns, std::nullopt);
    EXPECT_EQ(file->delegate_time_scales.back().host_offset_ns, -7000);
#ifdef GLASSBOX_FLATC
    const std::string dir = ::testing::TempDir();
    const std::string path = dir + "/kinds" + std::to_string(caller_buffer) + ".etdp";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(data->data()),
               static_cast<std::streamsize>(data->size()));
    const std::string command = std::string(GLASSBOX_FLATC) + " --json --strict-json " +
                                "--size-prefixed -o " + dir + " " + GLASSBOX_ETDUMP_SCHEMA +
                                " -- " + path;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream json(dir + "/kinds" + std::to_string(caller_buffer) + ".json");
    const std::string text((std::istreambuf_iterator<char>(json)),
                           std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\"delegate_debug_metadata\""), std::string::npos);
    EXPECT_NE(text.find("\"tensor_list\""), std::string::npos);
    EXPECT_NE(text.find("\"program_fingerprint\": \"fp\""), std::string::npos);
    EXPECT_NE(text.find("\"denominator\": 3"), std::string::npos) << "delegate_time_scales";
    EXPECT_NE(text.find("\"host_offset_ns\": -7000"), std::string::npos) << text;
    EXPECT_NE(text.find("\"counter_names\""), std::string::npos);
    EXPECT_NE(text.find("\"counters\""), std::string::npos);
#endif
  }
}

}  // namespace
}  // namespace glassbox::etdump

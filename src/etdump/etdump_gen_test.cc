#include "glassbox/etdump/etdump_gen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#endif

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/etdump/internal/etdump_gen_storage.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/event_tracer_hooks.h"
#include "src/etdump/etdump_gen_test_util.h"
#include "src/testing/sanitizer_build.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using testing_util::serialize;

using runtime::EventTracerEntry;
using runtime::LoggedValueKind;
using runtime::ValueView;

// Large enough for every functional test; the buffer-mode limits have
// their own tests below.
constexpr std::size_t kTestBufferBytes = 1 << 20;

// Every functional test runs against both memory modes.
class ETDumpGenTest : public ::testing::TestWithParam<bool> {
 protected:
  ETDumpGenTest() {
    if (caller_buffer()) {
      buffer_.resize(kTestBufferBytes);
      gen_ = std::make_unique<ETDumpGen>(Span<std::uint8_t>(buffer_));
    } else {
      gen_ = std::make_unique<ETDumpGen>();
    }
  }
  bool caller_buffer() const { return GetParam(); }

  ETDumpFile dump() {
    StatusOr<ETDumpFile> file = serialize(*gen_);
    EXPECT_THAT(file, IsOk());
    return file.ok() ? *file : ETDumpFile{};
  }

  std::vector<std::uint8_t> buffer_;
  std::unique_ptr<ETDumpGen> gen_;
};

INSTANTIATE_TEST_SUITE_P(Modes, ETDumpGenTest, ::testing::Bool(), [](const auto& param_info) {
  return param_info.param ? "CallerBuffer" : "Heap";
});

TEST_P(ETDumpGenTest, EmptyDumpHasExtensionsAndNoRuns) {
  ASSERT_EQ(gen_->status(), Error::kOk);
  ETDumpFile file = dump();
  EXPECT_EQ(file.version, 0u);
  EXPECT_EQ(file.runs.size(), 1u) << "an implicit Default block";
  ASSERT_TRUE(file.tick_ratio.has_value());
  EXPECT_EQ(*file.tick_ratio, (TickRatio{1, 1}));
  ASSERT_TRUE(file.producer.has_value());
  EXPECT_EQ(file.producer->rfind("glassbox ", 0), 0u);
  EXPECT_FALSE(file.program_fingerprint.has_value());
}

TEST_P(ETDumpGenTest, DelegateTimeScalesRoundTripAndOutliveReset) {
  EXPECT_TRUE(dump().delegate_time_scales.empty()) << "absent until a delegate declares one";
  gen_->reset();  // a caller buffer records nothing more once serialized
  runtime::EventTracer* tracer = gen_.get();
  ASSERT_EQ(runtime::event_tracer_set_delegate_time_scale(tracer, "NpuBackend", TickRatio{4, 1}),
            Error::kOk);
  // 800 MHz: 1.25 ns per tick, stored in lowest terms.
  ASSERT_EQ(runtime::event_tracer_set_delegate_ticks_per_second(tracer, "Dsp", 800000000),
            Error::kOk);
  // A second declaration replaces the first.
  ASSERT_EQ(runtime::event_tracer_set_delegate_time_scale(tracer, "NpuBackend", TickRatio{2, 1}),
            Error::kOk);
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  ASSERT_EQ(gen_->log_profiling_delegate(nullptr, DelegateDebugIntId(1), 10, 30), Error::kOk);
  const std::vector<DelegateTimeScale> expected = {{"NpuBackend", TickRatio{2, 1}, {}},
                                                   {"Dsp", TickRatio{5, 4}, {}}};
  ETDumpFile file = dump();
  EXPECT_EQ(file.delegate_time_scales, expected);
  EXPECT_EQ(file.runs.back().events.size(), 1u);
  gen_->reset();
  EXPECT_EQ(dump().delegate_time_scales, expected) << "declared at init, kept for the next dump";
}

TEST_P(ETDumpGenTest, DelegateClockOffsetRoundTripsAfterItsScale) {
  runtime::EventTracer* tracer = gen_.get();
  EXPECT_EQ(runtime::event_tracer_set_delegate_clock_offset(tracer, "Npu", 5),
            Error::kInvalidArgument)
      << "an offset belongs to a declared clock";
  EXPECT_EQ(runtime::event_tracer_set_delegate_clock_offset(tracer, nullptr, 5),
            Error::kInvalidArgument);
  ASSERT_EQ(runtime::event_tracer_set_delegate_ticks_per_second(tracer, "Npu", 500000000),
            Error::kOk);
  ASSERT_EQ(runtime::event_tracer_set_delegate_ticks_per_second(tracer, "Dsp", 1000000000),
            Error::kOk);
  ASSERT_EQ(runtime::event_tracer_set_delegate_clock_offset(tracer, "Npu", 7), Error::kOk);
  // A later call replaces it; negative offsets (a clock started later) too.
  ASSERT_EQ(runtime::event_tracer_set_delegate_clock_offset(tracer, "Npu", -123456789012),
            Error::kOk);
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  const std::vector<DelegateTimeScale> expected = {{"Npu", TickRatio{2, 1}, -123456789012},
                                                   {"Dsp", TickRatio{1, 1}, std::nullopt}};
  EXPECT_EQ(dump().delegate_time_scales, expected);
}

TEST_P(ETDumpGenTest, DelegateTimeScaleRefusals) {
  EXPECT_EQ(gen_->set_delegate_time_scale(nullptr, TickRatio{1, 1}), Error::kInvalidArgument);
  EXPECT_EQ(gen_->set_delegate_time_scale("", TickRatio{1, 1}), Error::kInvalidArgument);
  EXPECT_EQ(gen_->set_delegate_time_scale("Npu", TickRatio{0, 1}), Error::kInvalidArgument);
  EXPECT_EQ(gen_->set_delegate_time_scale("Npu", TickRatio{1, 0}), Error::kInvalidArgument);
  EXPECT_EQ(runtime::event_tracer_set_delegate_ticks_per_second(gen_.get(), "Npu", 0),
            Error::kInvalidArgument);
  const std::string too_long(runtime::EventTracer::kMaxBackendNameLength + 1, 'b');
  EXPECT_EQ(gen_->set_delegate_time_scale(too_long.c_str(), TickRatio{1, 1}),
            Error::kInvalidArgument);
  const std::string longest(runtime::EventTracer::kMaxBackendNameLength, 'b');
  EXPECT_EQ(gen_->set_delegate_time_scale(longest.c_str(), TickRatio{1, 1}), Error::kOk);
  for (std::size_t i = 1; i < runtime::EventTracer::kMaxDelegateTimeScales; ++i) {
    EXPECT_EQ(
        gen_->set_delegate_time_scale(("backend" + std::to_string(i)).c_str(), TickRatio{i, 1}),
        Error::kOk);
  }
  EXPECT_EQ(gen_->set_delegate_time_scale("one_too_many", TickRatio{1, 1}), Error::kOutOfResources);
  EXPECT_EQ(runtime::event_tracer_set_delegate_time_scale(nullptr, "Npu", TickRatio{1, 1}),
            Error::kOk)
      << "a no-op without a tracer";
  const ETDumpFile file = dump();
  ASSERT_EQ(file.delegate_time_scales.size(), runtime::EventTracer::kMaxDelegateTimeScales);
  EXPECT_EQ(file.delegate_time_scales[0].backend, longest);
}

TEST_P(ETDumpGenTest, FrameworkEventsRoundTrip) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  gen_->set_program_fingerprint("abc123");
  EventTracerEntry method = gen_->start_profiling("Method::execute");
  gen_->set_chain_instruction(ChainId(0), InstructionId(4));
  EventTracerEntry op = gen_->start_profiling("OPERATOR_CALL");
  EXPECT_EQ(gen_->end_profiling(op), Error::kOk);
  EventTracerEntry explicit_ids = gen_->start_profiling("explicit", ChainId(2), InstructionId(9));
  EXPECT_EQ(gen_->end_profiling(explicit_ids), Error::kOk);
  gen_->set_chain_instruction(kUnsetChainId, kUnsetInstructionId);
  EXPECT_EQ(gen_->end_profiling(method), Error::kOk);

  ETDumpFile file = dump();
  ASSERT_EQ(file.runs.size(), 1u);
  EXPECT_EQ(file.runs[0].name, "Execute");
  EXPECT_EQ(file.program_fingerprint, "abc123");
  const auto& events = file.runs[0].events;
  ASSERT_EQ(events.size(), 3u);
  // Events are appended when they end: the method event comes last.
  const ProfileEvent& first = *events[0].profile();
  EXPECT_EQ(first.name, "OPERATOR_CALL");
  EXPECT_EQ(first.chain_index, 0);
  EXPECT_EQ(first.instruction_id, InstructionId(4));
  EXPECT_LE(first.start_time, first.end_time);
  EXPECT_EQ(first.time_source, TimeSource::kMeasured);
  EXPECT_TRUE(first.thread_index.has_value());
  EXPECT_FALSE(first.delegate_debug_metadata.has_value());
  EXPECT_EQ(events[1].profile()->chain_index, 2);
  EXPECT_EQ(events[1].profile()->instruction_id, InstructionId(9));
  const ProfileEvent& last = *events[2].profile();
  EXPECT_EQ(last.name, "Method::execute");
  EXPECT_EQ(last.instruction_id, kUnsetInstructionId)
      << "framework events carry -1, not instruction 0";
}

TEST_P(ETDumpGenTest, DelegateEventsRoundTrip) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  gen_->set_chain_instruction(ChainId(0), InstructionId(1));
  EventTracerEntry a = gen_->start_profiling_delegate(nullptr, DelegateDebugIntId(276));
  EXPECT_EQ(gen_->end_profiling_delegate(a), Error::kOk);
  EventTracerEntry b = gen_->start_profiling_delegate(nullptr, DelegateDebugIntId(278));
  const char kMeta[] = "test_metadata";
  EXPECT_EQ(gen_->end_profiling_delegate(b, kMeta, std::strlen(kMeta)), Error::kOk);
  EXPECT_EQ(gen_->log_profiling_delegate("tan.sin", kUnsetDelegateDebugIntId, 100, 250, nullptr, 0,
                                         runtime::TimeSource::kDurationOnly),
            Error::kOk);

  ETDumpFile file = dump();
  const auto& events = file.runs.at(0).events;
  ASSERT_EQ(events.size(), 3u);
  const ProfileEvent& e0 = *events[0].profile();
  EXPECT_EQ(e0.delegate_debug_id_int, DelegateDebugIntId(276));
  EXPECT_FALSE(e0.delegate_debug_id_str.has_value());
  EXPECT_FALSE(e0.name.has_value()) << "delegate events carry no name";
  ASSERT_TRUE(e0.delegate_debug_metadata.has_value())
      << "always present for delegate events, as ExecuTorch writes them";
  EXPECT_TRUE(e0.delegate_debug_metadata->empty());
  EXPECT_EQ(e0.instruction_id, InstructionId(1));
  const ProfileEvent& e1 = *events[1].profile();
  EXPECT_EQ(std::string(e1.delegate_debug_metadata->begin(), e1.delegate_debug_metadata->end()),
            "test_metadata");
  const ProfileEvent& e2 = *events[2].profile();
  EXPECT_EQ(e2.delegate_debug_id_str, "tan.sin");
  EXPECT_EQ(e2.delegate_debug_id_int, kUnsetDelegateDebugIntId);
  EXPECT_EQ(e2.start_time, 100u);
  EXPECT_EQ(e2.end_time, 250u);
  EXPECT_EQ(e2.time_source, TimeSource::kDurationOnly);
}

// Metadata is interned (one record an event, one vector in the dump) when
// short and among the first 31 distinct; every event must still carry
// exactly the bytes it was logged with: past the table's size, after its
// buffer was rewritten, and when too long to intern.
TEST_P(ETDumpGenTest, EveryEventKeepsItsOwnMetadataBytes) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  std::vector<std::string> expected;
  auto log = [&](const void* bytes, std::size_t length) {
    const auto id = DelegateDebugIntId(static_cast<std::int32_t>(expected.size()));
    EventTracerEntry e = gen_->start_profiling_delegate(nullptr, id);
    ASSERT_EQ(gen_->end_profiling_delegate(e, bytes, length), Error::kOk);
    expected.emplace_back(static_cast<const char*>(bytes), length);
  };
  char reused[16] = "conv: jit:avx2";
  log(reused, std::strlen(reused));
  reused[6] = 'X';  // the same pointer, other bytes
  log(reused, std::strlen(reused));
  std::vector<std::string> distinct;
  for (int i = 0; i < 40; ++i) distinct.push_back("kernel: impl_" + std::to_string(i));
  for (int round = 0; round < 3; ++round) {
    for (const std::string& m : distinct) log(m.data(), m.size());
  }
  reused[6] = 'j';
  log(reused, std::strlen(reused));
  const std::string long_metadata(150, 'L');
  log(long_metadata.data(), long_metadata.size());
  const char with_zeros[] = {'a', '\0', 'b', '\0'};
  log(with_zeros, sizeof(with_zeros));

  ETDumpFile file = dump();
  const auto& events = file.runs.at(0).events;
  ASSERT_EQ(events.size(), expected.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const ProfileEvent& p = *events[i].profile();
    ASSERT_TRUE(p.delegate_debug_metadata.has_value());
    EXPECT_EQ(std::string(p.delegate_debug_metadata->begin(), p.delegate_debug_metadata->end()),
              expected[i])
        << "event " << i;
  }
}

TEST_P(ETDumpGenTest, RepeatedMetadataTakesOneRecordAndOneVector) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  const std::size_t before = gen_->capacity();
  const std::string metadata = "matmul: brg:avx512_core";
  constexpr int kEvents = 1000;
  for (int i = 0; i < kEvents; ++i) {
    ASSERT_EQ(gen_->log_profiling_delegate(nullptr, DelegateDebugIntId(i), i, i + 1,
                                           metadata.data(), metadata.size()),
              Error::kOk);
  }
  if (caller_buffer()) {
    // The vector is charged once (one slot's worth), not per event: what
    // the buffer can hold drops by one single-slot event.
    EXPECT_EQ(before - gen_->capacity(), 1u);
  }
  Result<Span<const std::uint8_t>> data = gen_->get_etdump_data();
  ASSERT_TRUE(data.ok());
  // 56 bytes an event (tables and the events vector's entry), as without
  // metadata: a copy of the vector an event would add 28.
  EXPECT_LT(data->size(), std::size_t{kEvents} * 60 + 4096);
}

TEST_P(ETDumpGenTest, DelegateEventKeepsTheInstructionItStartedIn) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  gen_->set_chain_instruction(ChainId(0), InstructionId(3));
  EventTracerEntry e = gen_->start_profiling_delegate(nullptr, DelegateDebugIntId(0));
  // The delegate call returned; an asynchronous completion ends it later.
  gen_->set_chain_instruction(kUnsetChainId, kUnsetInstructionId);
  EXPECT_EQ(gen_->end_profiling_delegate(e), Error::kOk);
  ETDumpFile file = dump();
  EXPECT_EQ(file.runs.at(0).events.at(0).profile()->instruction_id, InstructionId(3));
}

TEST_P(ETDumpGenTest, MisuseIsAnErrorValueAndCounted) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  EventTracerEntry both = gen_->start_profiling_delegate("x", DelegateDebugIntId(1));
  EXPECT_EQ(both.error, Error::kInvalidArgument);
  EXPECT_EQ(gen_->end_profiling_delegate(both), Error::kInvalidArgument);
  EventTracerEntry neither = gen_->start_profiling_delegate(nullptr, kUnsetDelegateDebugIntId);
  EXPECT_EQ(neither.error, Error::kInvalidArgument);
  EXPECT_EQ(gen_->log_profiling_delegate(nullptr, DelegateDebugIntId(-7), 0, 1),
            Error::kInvalidArgument);
  EventTracerEntry delegate = gen_->start_profiling_delegate(nullptr, DelegateDebugIntId(1));
  EXPECT_EQ(gen_->end_profiling(delegate), Error::kInvalidArgument);
  EventTracerEntry framework = gen_->start_profiling("op");
  EXPECT_EQ(gen_->end_profiling_delegate(framework), Error::kInvalidArgument);
  Result<bool> logged = gen_->log_intermediate_output_delegate("x", DelegateDebugIntId(2), 1.0);
  EXPECT_THAT(logged, ErrorIs(Error::kInvalidArgument));

  EXPECT_EQ(gen_->rejected_events(), 6u);
  ETDumpFile file = dump();
  EXPECT_TRUE(file.runs.at(0).events.empty());
  EXPECT_EQ(file.runs.at(0).rejected_events, 6u);
}

TEST_P(ETDumpGenTest, ValuesRoundTripWithTheirData) {
  std::vector<std::uint8_t> debug(4096);
  Result<BufferDataSink> sink = BufferDataSink::create(debug);
  ASSERT_THAT(sink, IsOk());
  gen_->set_data_sink(&*sink);
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  gen_->set_chain_instruction(ChainId(0), InstructionId(0));

  const std::int64_t sizes[] = {3, 2};
  const float data[] = {1, 2, 3, 4, 5, 6};
  const TensorView tensor{ScalarType::kFloat, sizes, {}, data};
  ASSERT_TRUE(*gen_->log_value(ValueView::of_tensor(tensor), LoggedValueKind::kIntermediateOutput));
  ASSERT_TRUE(*gen_->log_value(ValueView::of_int(-5), LoggedValueKind::kProgramOutput));
  const TensorView pair[] = {tensor, tensor};
  ASSERT_TRUE(*gen_->log_intermediate_output_delegate(nullptr, DelegateDebugIntId(257),
                                                      Span<const TensorView>(pair)));
  ASSERT_TRUE(*gen_->log_intermediate_output_delegate("fused", kUnsetDelegateDebugIntId, true));
  ASSERT_TRUE(*gen_->log_intermediate_output_delegate(nullptr, DelegateDebugIntId(258), 2.5));

  ETDumpFile file = dump();
  const auto& events = file.runs.at(0).events;
  ASSERT_EQ(events.size(), 5u);
  const DebugEvent& t = *events[0].debug();
  EXPECT_EQ(t.chain_index, 0u);
  EXPECT_EQ(t.instruction_id, InstructionId(0));
  ASSERT_EQ(t.value.type, ValueType::kTensor);
  EXPECT_EQ(t.value.tensor->sizes, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(t.value.tensor->strides, (std::vector<std::int64_t>{2, 1}));
  EXPECT_FALSE(t.value.output.has_value());
  StatusOr<std::vector<double>> values = read_tensor_values(*t.value.tensor, sink->data());
  ASSERT_THAT(values, IsOk());
  EXPECT_EQ(*values, (std::vector<double>{1, 2, 3, 4, 5, 6}));

  const DebugEvent& out = *events[1].debug();
  EXPECT_EQ(out.value.int_value, -5);
  EXPECT_EQ(out.value.output, true);

  const DebugEvent& list = *events[2].debug();
  EXPECT_EQ(list.delegate_debug_id_int, DelegateDebugIntId(257));
  EXPECT_FALSE(list.delegate_debug_id_str.has_value());
  ASSERT_EQ(list.value.type, ValueType::kTensorList);
  ASSERT_EQ(list.value.tensor_list->size(), 2u);
  EXPECT_NE((*list.value.tensor_list)[0].offset, (*list.value.tensor_list)[1].offset);

  EXPECT_EQ(events[3].debug()->delegate_debug_id_str, "fused");
  EXPECT_EQ(events[3].debug()->value.bool_value, true);
  EXPECT_EQ(events[4].debug()->value.double_value, 2.5);
  EXPECT_EQ(file.runs[0].tensor_data_dropped, 0u);
}

TEST_P(ETDumpGenTest, TensorWithoutSinkKeepsMetadataAndCountsTheData) {
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  const std::int64_t sizes[] = {2};
  const float data[] = {1, 2};
  ASSERT_TRUE(*gen_->log_value(ValueView::of_tensor({ScalarType::kFloat, sizes, {}, data}),
                               LoggedValueKind::kIntermediateOutput));
  ETDumpFile file = dump();
  EXPECT_EQ(file.runs.at(0).events.at(0).debug()->value.tensor->offset, -1);
  EXPECT_EQ(file.runs[0].tensor_data_dropped, 1u);
}

class DropOddIds final : public runtime::DelegateOutputFilter {
 public:
  Result<bool> keep(const char*, DelegateDebugIntId id) override { return id.value % 2 == 0; }
};

TEST_P(ETDumpGenTest, DelegateOutputFilterKeepsWhatItSays) {
  DropOddIds filter;
  gen_->set_delegate_output_filter(&filter);
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  EXPECT_TRUE(*gen_->log_intermediate_output_delegate(nullptr, DelegateDebugIntId(2), 1));
  EXPECT_FALSE(*gen_->log_intermediate_output_delegate(nullptr, DelegateDebugIntId(3), 1));
  EXPECT_EQ(dump().runs.at(0).events.size(), 1u);
}

TEST_P(ETDumpGenTest, BlocksAllocatorsAndAllocations) {
  EventTracerEntry init = gen_->start_profiling("Program::load_method");
  EXPECT_EQ(gen_->end_profiling(init), Error::kOk);
  gen_->set_bundled_input_index(3);
  ASSERT_EQ(gen_->create_event_block("Execute"), Error::kOk);
  AllocatorId planned = gen_->track_allocator("planned");
  AllocatorId temp = gen_->track_allocator("temp");
  EXPECT_EQ(planned, AllocatorId(1));
  EXPECT_EQ(temp, AllocatorId(2));
  gen_->track_allocation(temp, 128);
  gen_->set_bundled_input_index(-1);
  ASSERT_EQ(gen_->create_event_block("Empty"), Error::kOk);
  ASSERT_EQ(gen_->create_event_block("Second"), Error::kOk);
  EXPECT_EQ(gen_->track_allocator("planned"), AllocatorId(1))
      << "allocator ids restart in each block";

  ETDumpFile file = dump();
  ASSERT_EQ(file.runs.size(), 4u);
  EXPECT_EQ(file.runs[0].name, "Default");
  EXPECT_EQ(file.runs[0].events.at(0).profile()->name, "Program::load_method");
  EXPECT_EQ(file.runs[1].bundled_input_index, 3);
  EXPECT_EQ(file.runs[1].allocators, (std::vector<std::string>{"planned", "temp"}));
  ASSERT_EQ(file.runs[1].events.size(), 1u);
  EXPECT_EQ(file.runs[1].events[0].allocation()->allocator_id, AllocatorId(2));
  EXPECT_EQ(file.runs[1].events[0].allocation()->allocation_size, 128u);
  EXPECT_TRUE(file.runs[2].events.empty());
  EXPECT_EQ(file.runs[2].bundled_input_index, -1);
  EXPECT_EQ(file.runs[3].allocators, (std::vector<std::string>{"planned"}));
}

TEST_P(ETDumpGenTest, WorkerThreadsLogConcurrently) {
  constexpr int kThreads = 4;
  constexpr int kEventsPerThread = 2000;
  ETDumpGenOptions options;
  std::vector<std::uint8_t> big(32 << 20);
  ETDumpGen gen = caller_buffer() ? ETDumpGen(Span<std::uint8_t>(big)) : ETDumpGen();
  ASSERT_GE(gen.capacity(), std::size_t{kThreads * kEventsPerThread});
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  gen.set_chain_instruction(ChainId(0), InstructionId(2));
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&gen, t] {
      const std::string name = "worker" + std::to_string(t);
      for (int i = 0; i < kEventsPerThread; ++i) {
        EventTracerEntry e =
            runtime::event_tracer_start_profiling_delegate(&gen, nullptr, DelegateDebugIntId(t));
        (void)runtime::event_tracer_end_profiling_delegate(&gen, e, name.c_str());
      }
    });
  }
  for (std::thread& th : pool) th.join();
  StatusOr<ETDumpFile> file = serialize(gen, "threads.etdp");
  ASSERT_THAT(file, IsOk());
  const auto& events = file->runs.at(0).events;
  ASSERT_EQ(events.size(), std::size_t{kThreads * kEventsPerThread});
  std::set<std::int32_t> threads[kThreads];
  for (const Event& e : events) {
    const ProfileEvent& p = *e.profile();
    const int id = p.delegate_debug_id_int.value;
    ASSERT_GE(id, 0);
    ASSERT_LT(id, kThreads);
    EXPECT_EQ(std::string(p.delegate_debug_metadata->begin(), p.delegate_debug_metadata->end()),
              "worker" + std::to_string(id));
    EXPECT_EQ(p.instruction_id, InstructionId(2));
    threads[id].insert(*p.thread_index);
  }
  std::set<std::int32_t> distinct;
  for (const auto& s : threads) {
    EXPECT_EQ(s.size(), 1u) << "one thread index per logging thread";
    distinct.insert(s.begin(), s.end());
  }
  EXPECT_EQ(distinct.size(), std::size_t{kThreads});
}

// ---- Caller-buffer limits ---------------------------------------------------

TEST(ETDumpGenBufferTest, TooSmallBufferIsAStatusNotACrash) {
  std::vector<std::uint8_t> tiny(1024);
  ETDumpGen gen{Span<std::uint8_t>(tiny)};
  EXPECT_EQ(gen.status(), Error::kOutOfResources);
  EXPECT_EQ(gen.create_event_block("Execute"), Error::kOutOfResources);
  EventTracerEntry e = gen.start_profiling("x");
  (void)gen.end_profiling(e);
  EXPECT_THAT(gen.get_etdump_data(), ErrorIs(Error::kOutOfResources));
}

TEST(ETDumpGenBufferTest, FullBufferDropsCountsAndKeepsEarlierEvents) {
  std::vector<std::uint8_t> memory(64 * 1024);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.status(), Error::kOk);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  const std::size_t capacity = gen.capacity();
  ASSERT_GT(capacity, 16u);
  const std::size_t attempts = capacity * 3;
  for (std::size_t i = 0; i < attempts; ++i) {
    (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(static_cast<std::int32_t>(i)), i,
                                     i + 1);
  }
  EXPECT_EQ(gen.dropped_events(), attempts - capacity);
  StatusOr<ETDumpFile> file = testing_util::serialize_in(gen, memory, "full.etdp");
  ASSERT_THAT(file, IsOk());
  const auto& events = file->runs.at(0).events;
  ASSERT_EQ(events.size(), capacity);
  for (std::size_t i = 0; i < capacity; ++i) {
    ASSERT_EQ(events[i].profile()->delegate_debug_id_int.value, static_cast<std::int32_t>(i));
  }
  EXPECT_EQ(file->runs[0].dropped_events, attempts - capacity);
  EXPECT_EQ(file->dropped_events, attempts - capacity);
}

// Fills buffers of several sizes with a random mix of every kind of event,
// with long names, metadata and tensors, far past capacity. Serialization
// must always fit the reserved region (GLASSBOX_CHECK aborts otherwise) and
// the result must verify.
TEST(ETDumpGenBufferTest, RandomMixPastCapacityAlwaysSerializes) {
  std::mt19937 rng(1234);
  std::vector<std::uint8_t> debug(1 << 16);
  for (std::size_t size : {std::size_t{40} << 10, std::size_t{100} << 10, std::size_t{300} << 10}) {
    std::vector<std::uint8_t> memory(size);
    ETDumpGenOptions options;
    options.max_names = 64;
    ETDumpGen gen(Span<std::uint8_t>(memory), options);
    ASSERT_EQ(gen.status(), Error::kOk);
    Result<BufferDataSink> sink = BufferDataSink::create(debug);
    gen.set_data_sink(&*sink);
    std::vector<std::string> names;
    for (int i = 0; i < 100; ++i) {
      names.push_back(
          std::string(static_cast<std::size_t>(rng() % 40 + 1), static_cast<char>('a' + i % 26)) +
          std::to_string(i));
    }
    const std::string metadata(200, 'm');
    const std::int64_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float data[40320] = {};
    for (int step = 0; step < 20000; ++step) {
      const char* name = names[rng() % names.size()].c_str();
      const TensorView t{
          ScalarType::kFloat, Span<const std::int64_t>(sizes, rng() % 8 + 1), {}, data};
      switch (rng() % 9) {
        case 0: (void)gen.create_event_block(name); break;
        case 1: (void)gen.end_profiling(gen.start_profiling(name)); break;
        case 2:
          (void)gen.log_profiling_delegate(name, kUnsetDelegateDebugIntId, 1, 2, metadata.data(),
                                           rng() % metadata.size());
          break;
        case 3: (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(5), 1, 2); break;
        case 4: (void)gen.track_allocator(name); break;
        case 5: gen.track_allocation(AllocatorId(1), 64); break;
        case 6:
          (void)gen.log_value(ValueView::of_tensor(t), LoggedValueKind::kProgramOutput);
          break;
        case 7: {
          const TensorView list[] = {t, t, t};
          (void)gen.log_intermediate_output_delegate(name, kUnsetDelegateDebugIntId,
                                                     Span<const TensorView>(list));
          break;
        }
        default:
          (void)gen.log_value(ValueView::of_double(1.0), LoggedValueKind::kIntermediateOutput);
      }
    }
    EXPECT_GT(gen.dropped_events(), 0u) << "the test must reach the limit";
    StatusOr<ETDumpFile> file = serialize(gen, "mix.etdp");
    ASSERT_THAT(file, IsOk());
  }
}

TEST(ETDumpGenBufferTest, FullBlockTableStopsRecordingInsteadOfMisfiling) {
  std::vector<std::uint8_t> memory(256 * 1024);
  ETDumpGenOptions options;
  options.max_blocks = 2;
  ETDumpGen gen(Span<std::uint8_t>(memory), options);
  ASSERT_EQ(gen.create_event_block("one"), Error::kOk);
  ASSERT_EQ(gen.create_event_block("two"), Error::kOk);
  EXPECT_EQ(gen.create_event_block("three"), Error::kOutOfResources);
  (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(1), 1, 2);
  EXPECT_EQ(gen.dropped_events(), 1u) << "a refused block is not an event";
  EXPECT_EQ(gen.dropped_blocks(), 1u);
  StatusOr<ETDumpFile> file = serialize(gen, "b.etdp");
  ASSERT_THAT(file, IsOk());
  ASSERT_EQ(file->runs.size(), 2u);
  EXPECT_TRUE(file->runs[1].events.empty());
  EXPECT_EQ(file->runs[1].dropped_events, 1u);
  EXPECT_EQ(file->dropped_events, 1u);
  EXPECT_EQ(file->dropped_blocks, 1u);
}

TEST(ETDumpGenHeapTest, FullNameTableDropsAndCounts) {
  ETDumpGenOptions options;
  options.max_names = 2;
  ETDumpGen gen(options);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);  // name 1
  (void)gen.end_profiling(gen.start_profiling("a"));         // name 2
  (void)gen.end_profiling(gen.start_profiling("b"));         // no room
  EXPECT_EQ(gen.dropped_events(), 1u);
  StatusOr<ETDumpFile> file = serialize(gen, "n.etdp");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->runs.at(0).events.size(), 1u);
}

// (A caller-buffer dump is written over the records: see
// CallerBufferIsFinishedOnceSerialized.)
TEST(ETDumpGenHeapTest, DumpCanBeTakenAgainAfterMoreEvents) {
  ETDumpGen gen;
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(1), 1, 2);
  StatusOr<ETDumpFile> first = serialize(gen);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->runs.at(0).events.size(), 1u);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(1), 3, 4);
  StatusOr<ETDumpFile> again = serialize(gen);
  ASSERT_THAT(again, IsOk());
  ASSERT_EQ(again->runs.size(), 2u);
  EXPECT_EQ(again->runs[1].events.at(0).profile()->start_time, 3u);
  gen.reset();
  StatusOr<ETDumpFile> after_reset = serialize(gen);
  ASSERT_THAT(after_reset, IsOk());
  EXPECT_TRUE(after_reset->runs.at(0).events.empty());
}

TEST(ETDumpGenHeapTest, ReservingChangesNothingInTheDump) {
  // Two tracers see the same events; one reserves room for three more
  // blocks like its first after that block, as `glassbox run` does.
  ETDumpGen plain;
  ETDumpGen reserving;
  for (int block = 0; block < 4; ++block) {
    for (ETDumpGen* gen : {&plain, &reserving}) {
      ASSERT_EQ(gen->create_event_block("Execute"), Error::kOk);
      for (int i = 0; i < 3000; ++i) {
        (void)gen->log_profiling_delegate(nullptr, DelegateDebugIntId(i), i, i + 1, "op", 2);
      }
    }
    if (block == 0) reserving.reserve_like_last_block(3);
  }
  Result<Span<const std::uint8_t>> a = plain.get_etdump_data();
  Result<Span<const std::uint8_t>> b = reserving.get_etdump_data();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(std::equal(a->begin(), a->end(), b->begin(), b->end()));
  EXPECT_EQ(reserving.num_events(), 4u * 3000u);
}

// Heap records past the first 16 chunks come from slabs (of huge pages, or
// malloc's without them): a recording across three slabs keeps every
// event, in order, and so does one that reserved its slots first.
TEST(ETDumpGenHeapTest, EventsAcrossRecordSlabsAllRoundTrip) {
  constexpr std::uint64_t kSlabEvents = internal::RecordStore::kChunkSize
                                        << internal::RecordStore::kSlabShift;
  constexpr std::uint64_t kEvents = 2 * kSlabEvents + 100;
  for (const bool huge_pages : {true, false}) {
    for (const bool reserve : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "huge pages " << huge_pages << ", reserve " << reserve);
      ETDumpGenOptions options;
      options.heap_huge_pages = huge_pages;
      ETDumpGen gen(options);
      ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
      for (std::uint64_t i = 0; i < kEvents; ++i) {
        (void)gen.log_profiling_delegate(nullptr, DelegateDebugIntId(static_cast<std::int32_t>(i)),
                                         i, i + 1);
      }
      if (reserve) {
        // As `glassbox run` does: room for the next block, then the block.
        gen.reserve_like_last_block(1);
        ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
        for (std::uint64_t i = 0; i < kEvents; ++i) {
          (void)gen.log_profiling_delegate(
              nullptr, DelegateDebugIntId(static_cast<std::int32_t>(i)), i, i + 1);
        }
      }
      StatusOr<ETDumpFile> file = serialize(gen);
      ASSERT_THAT(file, IsOk());
      EXPECT_EQ(gen.dropped_events(), 0u);
      for (const auto& run : file->runs) {
        if (run.events.empty()) continue;
        ASSERT_EQ(run.events.size(), kEvents);
        for (std::uint64_t i = 0; i < kEvents; i += 997) {
          const ProfileEvent& e = *run.events[i].profile();
          ASSERT_EQ(e.delegate_debug_id_int, DelegateDebugIntId(static_cast<std::int32_t>(i)));
          ASSERT_EQ(e.start_time, i);
        }
      }
    }
  }
}

TEST(RecordStoreTest, ReserveAllocatesTheChunksTheNextSlotsNeed) {
  constexpr std::uint64_t kChunk = internal::RecordStore::kChunkSize;
  internal::RecordStore store;
  store.init_heap(4 * kChunk, std::int64_t{1} << 30);
  ASSERT_TRUE(store.claim_run(16).ok);  // slots [0, 16)
  EXPECT_EQ(store.peek(16), nullptr) << "chunks are allocated on first touch";
  store.reserve(kChunk);  // slots [16, kChunk + 16): chunks 0 and 1
  EXPECT_NE(store.peek(16), nullptr);
  EXPECT_NE(store.peek(kChunk + 15), nullptr);
  EXPECT_EQ(store.peek(2 * kChunk), nullptr) << "chunk 2 is not needed";
  store.reserve(~std::uint64_t{0});  // clamped to the capacity
  EXPECT_NE(store.peek(4 * kChunk - 1), nullptr);
}

#if defined(__linux__)
// Minor page faults of this thread so far.
long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

TEST(ETDumpGenHeapTest, BlocksRecordedAfterReservingTakeNoPageFault) {
  // ThreadSanitizer maps its shadow of the records on first touch, which
  // counts as page faults the tracer does not take (`make test-tsan`).
  if (glassbox::testing::kThreadSanitizer) {
    GTEST_SKIP() << "ThreadSanitizer's shadow memory faults on first touch";
  }
  // A page fault of fresh memory costs microseconds (more in a VM): inside a
  // timed execution it would be charged to whatever operator runs next.
  // 400 events with 120 bytes of metadata each (too long to intern, so
  // copied: 6 slots) fill 75 KiB a block, so 40 blocks write about 750
  // fresh pages.
  constexpr int kBlocks = 40;
  constexpr int kEvents = 400;
  const std::string metadata(120, 'm');
  ETDumpGen gen;
  auto record_block = [&] {
    if (gen.create_event_block("Execute") != Error::kOk) return false;
    bool ok = true;
    for (int i = 0; i < kEvents; ++i) {
      ok &= gen.log_profiling_delegate(nullptr, DelegateDebugIntId(i), i, i + 1, metadata.data(),
                                       metadata.size()) == Error::kOk;
    }
    return ok;
  };
  ASSERT_TRUE(record_block());
  gen.reserve_like_last_block(kBlocks);
  const long before = minor_faults();
  bool ok = true;
  for (int block = 0; block < kBlocks; ++block) ok &= record_block();
  const long faults = minor_faults() - before;
  ASSERT_TRUE(ok);
  // Under qemu-user (make test-aarch64) the emulator's own memory faults
  // count for the process too, now and then one: still far from the ~750 of
  // recording without reserving.
  const long allowed = std::getenv("GLASSBOX_UNDER_EMULATOR") != nullptr ? 8 : 0;
  EXPECT_LE(faults, allowed);
  EXPECT_EQ(gen.num_events(), std::uint64_t{kBlocks + 1} * kEvents);
  EXPECT_EQ(gen.dropped_events(), 0u);
}
#endif

// ExecuTorch's readers assume nanoseconds: a TSC dump must say 1/1 too.
TEST(ETDumpGenHeapTest, TscClockDumpIsInNanoseconds) {
  ETDumpGenOptions options;
  options.clock = Clock::tsc();
  ETDumpGen gen(options);
  StatusOr<ETDumpFile> file = serialize(gen, "t.etdp");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->tick_ratio, (TickRatio{1, 1}));
}

}  // namespace
}  // namespace glassbox::etdump

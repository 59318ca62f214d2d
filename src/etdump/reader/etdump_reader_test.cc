// Reading buffers built with FlatBuffers' generated Create* functions: every
// event kind and value type, schema defaults, ExecuTorch's wire quirks, and
// both buffer layouts.

#include "glassbox/etdump/etdump_reader.h"

#include <cstdio>
#include <cstring>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/etdump/reader/test_etdump_builder.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

namespace fb = ::etdump;
using test_util::make_allocation;
using test_util::make_counted_profile;
using test_util::make_debug_int;
using test_util::make_delegate_profile;
using test_util::make_profile;
using test_util::TestETDump;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::uint64_t kChainMinusOne = std::numeric_limits<std::uint64_t>::max();

ETDumpFile parse_ok(const std::vector<std::uint8_t>& bytes) {
  auto file = parse_etdump(bytes, "test.etdp");
  EXPECT_THAT(file, IsOk());
  return file.ok() ? *file : ETDumpFile{};
}

TEST(EtdumpReaderTest, ReadsProfileAndAllocationEvents) {
  TestETDump b;
  b.run("Execute", {"planned", "temp"});
  b.event(make_profile(b.fbb(), "OPERATOR_CALL", 3, 4, 100, 250));
  b.event(make_delegate_profile(b.fbb(), 7, 5, 300, 400, {0xde, 0xad}));
  b.event(make_allocation(b.fbb(), 2, 4096));
  const ETDumpFile file = parse_ok(b.finish());

  EXPECT_EQ(file.version, 0u);
  ASSERT_EQ(file.runs.size(), 1u);
  const RunData& run = file.runs[0];
  EXPECT_EQ(run.name, "Execute");
  EXPECT_EQ(run.bundled_input_index, -1);
  EXPECT_THAT(run.allocators, ElementsAre("planned", "temp"));
  ASSERT_EQ(run.events.size(), 3u);

  const ProfileEvent* op = run.events[0].profile();
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->name, "OPERATOR_CALL");
  EXPECT_EQ(op->chain_index, 3);
  EXPECT_EQ(op->instruction_id, InstructionId(4));
  EXPECT_EQ(op->delegate_debug_id_int, kUnsetDelegateDebugIntId);
  EXPECT_EQ(op->delegate_debug_id_str, std::nullopt);
  EXPECT_EQ(op->delegate_debug_metadata, std::nullopt);
  EXPECT_EQ(op->start_time, 100u);
  EXPECT_EQ(op->end_time, 250u);
  EXPECT_EQ(op->thread_index, std::nullopt);
  EXPECT_EQ(op->time_source, std::nullopt);

  const ProfileEvent* delegate = run.events[1].profile();
  ASSERT_NE(delegate, nullptr);
  EXPECT_EQ(delegate->name, std::nullopt);
  EXPECT_EQ(delegate->delegate_debug_id_int, DelegateDebugIntId(7));
  EXPECT_THAT(*delegate->delegate_debug_metadata, ElementsAre(0xde, 0xad));

  ASSERT_EQ(run.events[2].kind(), EventKind::kAllocation);
  EXPECT_EQ(run.events[2].allocation()->allocator_id, AllocatorId(2));
  EXPECT_EQ(run.events[2].allocation()->allocation_size, 4096u);

  EXPECT_EQ(file.tick_ratio, std::nullopt);
  EXPECT_EQ(file.program_fingerprint, std::nullopt);
  EXPECT_EQ(file.dropped_events, std::nullopt);
  EXPECT_EQ(file.producer, std::nullopt);
  EXPECT_EQ(run.dropped_events, std::nullopt);
  EXPECT_EQ(run.rejected_events, std::nullopt);
  EXPECT_EQ(run.tensor_data_dropped, std::nullopt);
}

TEST(EtdumpReaderTest, ReadsEveryValueType) {
  TestETDump b;
  auto& fbb = b.fbb();
  const std::vector<std::int64_t> sizes = {2, 3};
  const std::vector<std::int64_t> strides = {3, 1};
  const auto tensor = [&](std::int64_t offset) {
    return fb::CreateTensorDirect(fbb, executorch_flatbuffer::ScalarType::FLOAT, &sizes, &strides,
                                  offset);
  };
  const auto debug = [&](flatbuffers::Offset<fb::Value> value) {
    b.event(
        fb::CreateEvent(fbb, 0, 0, fb::CreateDebugEventDirect(fbb, 1, 2, value, 9, "dbg", "out0")));
  };
  debug(fb::CreateValue(fbb, fb::ValueType::Null));
  debug(fb::CreateValue(fbb, fb::ValueType::Int, 0, 0, fb::CreateInt(fbb, -42)));
  debug(fb::CreateValue(fbb, fb::ValueType::Bool, 0, 0, 0, 0, 0, fb::CreateBool(fbb, true)));
  debug(fb::CreateValue(fbb, fb::ValueType::Float, 0, 0, 0, fb::CreateFloat(fbb, 1.5f)));
  debug(fb::CreateValue(fbb, fb::ValueType::Double, 0, 0, 0, 0, fb::CreateDouble(fbb, -0.125)));
  debug(fb::CreateValue(fbb, fb::ValueType::Tensor, tensor(64)));
  const std::vector<flatbuffers::Offset<fb::Tensor>> list = {tensor(0), tensor(-1)};
  debug(fb::CreateValue(fbb, fb::ValueType::TensorList, 0, fb::CreateTensorListDirect(fbb, &list)));
  debug(fb::CreateValue(fbb, fb::ValueType::String));
  debug(fb::CreateValue(fbb, fb::ValueType::Tensor, tensor(0), 0, 0, 0, 0, 0,
                        fb::CreateBool(fbb, true)));
  const ETDumpFile file = parse_ok(b.finish());

  ASSERT_EQ(file.runs.size(), 1u);
  const auto& events = file.runs[0].events;
  ASSERT_EQ(events.size(), 9u);
  for (const Event& e : events) {
    const DebugEvent* d = e.debug();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->chain_index, 1u);
    EXPECT_EQ(d->instruction_id, InstructionId(2));
    EXPECT_EQ(d->delegate_debug_id_int, DelegateDebugIntId(9));
    EXPECT_EQ(d->delegate_debug_id_str, "dbg");
    EXPECT_EQ(d->name, "out0");
  }
  const auto value = [&](std::size_t i) -> const Value& { return events[i].debug()->value; };
  EXPECT_EQ(value(0).type, ValueType::kNull);
  EXPECT_EQ(value(1).type, ValueType::kInt);
  EXPECT_EQ(value(1).int_value, -42);
  EXPECT_EQ(value(2).bool_value, true);
  EXPECT_EQ(value(3).float_value, 1.5f);
  EXPECT_EQ(value(4).double_value, -0.125);
  ASSERT_TRUE(value(5).tensor.has_value());
  const Tensor& t = *value(5).tensor;
  EXPECT_EQ(t.known_scalar_type(), ScalarType::kFloat);
  EXPECT_THAT(t.sizes, ElementsAre(2, 3));
  EXPECT_THAT(t.strides, ElementsAre(3, 1));
  EXPECT_EQ(t.offset, 64);
  EXPECT_EQ(value(5).output, std::nullopt);
  ASSERT_TRUE(value(6).tensor_list.has_value());
  ASSERT_EQ(value(6).tensor_list->size(), 2u);
  EXPECT_EQ((*value(6).tensor_list)[1].offset, -1);
  EXPECT_EQ(value(7).type, ValueType::kString);
  EXPECT_EQ(value(8).output, true);
}

TEST(EtdumpReaderTest, AbsentScalarsReadAsSchemaDefaults) {
  TestETDump b;
  auto& fbb = b.fbb();
  b.event(fb::CreateEvent(fbb, fb::ProfileEventBuilder(fbb).Finish()));
  b.event(fb::CreateEvent(fbb, 0, 0, fb::CreateDebugEvent(fbb, 0, -1, fb::CreateValue(fbb), -1)));
  const ETDumpFile file = parse_ok(b.finish());
  const ProfileEvent& p = *file.runs[0].events[0].profile();
  EXPECT_EQ(p.name, std::nullopt);
  EXPECT_EQ(p.chain_index, 0);
  EXPECT_EQ(p.instruction_id, kUnsetInstructionId);
  EXPECT_EQ(p.delegate_debug_id_int, kUnsetDelegateDebugIntId);
  EXPECT_EQ(p.start_time, 0u);
  const DebugEvent& d = *file.runs[0].events[1].debug();
  EXPECT_EQ(d.chain_index, 0u);
  EXPECT_EQ(d.instruction_id, kUnsetInstructionId);
  EXPECT_EQ(d.value.type, ValueType::kNull);
}

TEST(EtdumpReaderTest, DelegateEventKeepsPresentButEmptyMetadata) {
  TestETDump b;
  b.event(make_delegate_profile(b.fbb(), 0, 1, 10, 20, {}));
  const ETDumpFile file = parse_ok(b.finish());
  const ProfileEvent& p = *file.runs[0].events[0].profile();
  ASSERT_TRUE(p.delegate_debug_metadata.has_value());
  EXPECT_TRUE(p.delegate_debug_metadata->empty());
  EXPECT_EQ(p.name, std::nullopt);
  EXPECT_EQ(p.delegate_debug_id_int, DelegateDebugIntId(0));
}

TEST(EtdumpReaderTest, DebugChainMinusOneIsAllOnes) {
  TestETDump b;
  b.event(make_debug_int(b.fbb(), kChainMinusOne, -1, 5));
  const ETDumpFile file = parse_ok(b.finish());
  EXPECT_EQ(file.runs[0].events[0].debug()->chain_index, kChainMinusOne);
}

TEST(EtdumpReaderTest, ReadsExtensionFieldsByPresence) {
  TestETDump b;
  auto& fbb = b.fbb();
  // Force zeros onto the wire: a present 0 must read as 0, not as absent.
  fbb.ForceDefaults(true);
  const auto p = fb::CreateProfileEventDirect(fbb, "op", 0, 1, -1, nullptr, nullptr, 5, 6, 0,
                                              fb::TimeSource::Measured);
  const auto unknown_thread = fb::CreateProfileEventDirect(fbb, "op", 0, 1, -1, nullptr, nullptr, 5,
                                                           6, -1, fb::TimeSource::DurationOnly);
  const std::vector<flatbuffers::Offset<fb::Event>> events = {fb::CreateEvent(fbb, p),
                                                              fb::CreateEvent(fbb, unknown_thread)};
  const std::vector<flatbuffers::Offset<fb::RunData>> runs = {
      fb::CreateRunDataDirect(fbb, "Execute", -1, nullptr, &events, 0, 2, 0)};
  const fb::TickRatio ratio(10, 3);
  fb::FinishSizePrefixedETDumpBuffer(
      fbb, fb::CreateETDumpDirect(fbb, 0, &runs, &ratio, "fp", 0, "glassbox"));
  const ETDumpFile file = parse_ok(test_util::bytes_of(fbb));

  ASSERT_TRUE(file.tick_ratio.has_value());
  EXPECT_EQ(file.tick_ratio->numerator, 10u);
  EXPECT_EQ(file.tick_ratio->denominator, 3u);
  EXPECT_EQ(file.program_fingerprint, "fp");
  EXPECT_EQ(file.dropped_events, 0u);
  EXPECT_EQ(file.producer, "glassbox");
  EXPECT_TRUE(file.delegate_time_scales.empty());
  const RunData& run = file.runs[0];
  EXPECT_EQ(run.dropped_events, 0u);
  EXPECT_EQ(run.rejected_events, 2u);
  EXPECT_EQ(run.tensor_data_dropped, 0u);
  EXPECT_EQ(run.events[0].profile()->thread_index, 0);
  EXPECT_EQ(run.events[0].profile()->time_source, TimeSource::kMeasured);
  EXPECT_EQ(run.events[1].profile()->thread_index, std::nullopt);
  EXPECT_EQ(run.events[1].profile()->time_source, TimeSource::kDurationOnly);
}

TEST(EtdumpReaderTest, ReadsDelegateTimeScalesInOrder) {
  TestETDump b;
  const fb::TickRatio npu(4, 1), dsp(5, 4);
  b.delegate_time_scale("Npu", &npu).delegate_time_scale("Dsp", &dsp);
  b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  const ETDumpFile file = parse_ok(b.finish());
  const std::vector<DelegateTimeScale> expected = {{"Npu", TickRatio{4, 1}, {}},
                                                   {"Dsp", TickRatio{5, 4}, {}}};
  EXPECT_EQ(file.delegate_time_scales, expected);
}

TEST(EtdumpReaderTest, ReadsADelegateClocksHostOffsetWhenPresent) {
  TestETDump b;
  const fb::TickRatio npu(2, 1), dsp(1, 1);
  b.delegate_time_scale("Npu", &npu, -7).delegate_time_scale("Dsp", &dsp);
  b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  const ETDumpFile file = parse_ok(b.finish());
  ASSERT_EQ(file.delegate_time_scales.size(), 2u);
  EXPECT_EQ(file.delegate_time_scales[0].host_offset_ns, -7);
  EXPECT_EQ(file.delegate_time_scales[1].host_offset_ns, std::nullopt) << "absent: unknown";
}

TEST(EtdumpReaderTest, ReadsCountersWithTheirNames) {
  TestETDump b;
  b.counter_names({"cycles", "macs", "dma_bytes"});
  b.event(make_counted_profile(b.fbb(), 3, 10, 20,
                               {fb::Counter(0, 500), fb::Counter(2, -1), fb::Counter(1, 1 << 20)}));
  b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  const ETDumpFile file = parse_ok(b.finish());
  EXPECT_EQ(file.counter_names, (std::vector<std::string>{"cycles", "macs", "dma_bytes"}));
  const std::vector<Counter> expected = {{0, 500}, {2, -1}, {1, 1 << 20}};
  EXPECT_EQ(file.runs[0].events[0].profile()->counters, expected);
  EXPECT_TRUE(file.runs[0].events[1].profile()->counters.empty());
}

TEST(EtdumpReaderTest, FollowsRootOffsetThatIsNotEight) {
  // Defaults left out and 8-byte scalars present: the builder pads, so the
  // root table does not start right after the identifier (as in flatcc
  // files from ExecuTorch).
  TestETDump b;
  b.fbb().ForceDefaults(false);
  b.event(make_profile(b.fbb(), "Method::execute", 0, 0, 1u << 20, 1u << 21));
  b.event(make_debug_int(b.fbb(), kChainMinusOne, -1, 1));
  const std::vector<std::uint8_t> bytes = b.finish();
  std::uint32_t root_offset = 0;
  std::memcpy(&root_offset, bytes.data() + 4, sizeof(root_offset));
  ASSERT_NE(root_offset, 8u);
  const ETDumpFile file = parse_ok(bytes);
  EXPECT_EQ(file.runs[0].events[0].profile()->name, "Method::execute");
}

TEST(EtdumpReaderTest, ReadsUnprefixedBuffer) {
  TestETDump b;
  b.event(make_profile(b.fbb(), "OPERATOR_CALL", 0, 0, 1, 2));
  const ETDumpFile file = parse_ok(b.finish(/*size_prefixed=*/false));
  ASSERT_EQ(file.runs.size(), 1u);
  EXPECT_EQ(file.runs[0].events[0].profile()->name, "OPERATOR_CALL");
}

TEST(EtdumpReaderTest, ReadsMisalignedInput) {
  TestETDump b;
  b.event(make_debug_int(b.fbb(), 0, 0, 77));
  const std::vector<std::uint8_t> bytes = b.finish();
  // Shift by one byte so that the data is misaligned in memory.
  std::vector<std::uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  auto file = parse_etdump(std::span(shifted).subspan(1), "shifted");
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->runs[0].events[0].debug()->value.int_value, 77);
}

TEST(EtdumpReaderTest, AcceptsZeroPaddingAfterPrefixedBuffer) {
  TestETDump b;
  b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  std::vector<std::uint8_t> bytes = b.finish();
  bytes.resize(bytes.size() + 8, 0);
  EXPECT_TRUE(parse_etdump(bytes, "padded").ok());
}

TEST(EtdumpReaderTest, LoadsFileAndNamesMissingFile) {
  TestETDump b;
  b.event(make_profile(b.fbb(), "x", 0, 0, 1, 2));
  const std::vector<std::uint8_t> bytes = b.finish();
  const std::string path = ::testing::TempDir() + "/reader_test.etdp";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  auto file = load_etdump_file(path);
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ(file->runs.size(), 1u);
  std::remove(path.c_str());

  auto missing = load_etdump_file(path);
  ASSERT_THAT(missing, ErrorIs(Error::kAccessFailed));
  EXPECT_THAT(missing.message(), HasSubstr(path));
}

}  // namespace
}  // namespace glassbox::etdump

// Compatibility fixtures: testdata/etdump/*.json, written by hand against
// the format facts and turned into binaries by flatc at build time, so that
// neither our writer nor our builder helpers shaped them.

#include <filesystem>
#include <limits>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/io/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::IsOk;

using ::testing::ElementsAre;

const std::string kFixtures = GLASSBOX_ETDUMP_FIXTURE_DIR;

ETDumpFile load_ok(const std::string& path) {
  auto file = load_etdump_file(path);
  EXPECT_THAT(file, IsOk());
  return file.ok() ? *file : ETDumpFile{};
}

void expect_profile(const Event& e, std::optional<std::string> name, std::int32_t instruction,
                    Ticks start, Ticks end) {
  const ProfileEvent* p = e.profile();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->name, name);
  EXPECT_EQ(p->chain_index, 0);
  EXPECT_EQ(p->instruction_id, InstructionId(instruction));
  EXPECT_EQ(p->start_time, start);
  EXPECT_EQ(p->end_time, end);
  EXPECT_EQ(p->thread_index, std::nullopt);
  EXPECT_EQ(p->time_source, std::nullopt);
}

void expect_float_2x2(const Tensor& t, std::int64_t offset) {
  EXPECT_EQ(t.known_scalar_type(), ScalarType::kFloat);
  EXPECT_THAT(t.sizes, ElementsAre(2, 2));
  EXPECT_THAT(t.strides, ElementsAre(2, 1));
  EXPECT_EQ(t.offset, offset);
}

void check_executorch_style(const ETDumpFile& file) {
  EXPECT_EQ(file.version, 0u);
  EXPECT_EQ(file.tick_ratio, std::nullopt);
  EXPECT_EQ(file.program_fingerprint, std::nullopt);
  EXPECT_EQ(file.dropped_events, std::nullopt);
  EXPECT_EQ(file.dropped_blocks, std::nullopt);
  EXPECT_EQ(file.producer, std::nullopt);
  ASSERT_EQ(file.runs.size(), 2u);

  const RunData& init = file.runs[0];
  EXPECT_EQ(init.name, "Default");
  EXPECT_EQ(init.bundled_input_index, -1);
  EXPECT_TRUE(init.allocators.empty());
  EXPECT_EQ(init.dropped_events, std::nullopt);
  ASSERT_EQ(init.events.size(), 2u);
  expect_profile(init.events[0], "Method::init", 0, 100, 400);
  expect_profile(init.events[1], "Program::load_method", 0, 50, 420);

  const RunData& run = file.runs[1];
  EXPECT_EQ(run.name, "Execute");
  EXPECT_THAT(run.allocators, ElementsAre("method_allocator"));
  EXPECT_EQ(run.rejected_events, std::nullopt);
  EXPECT_EQ(run.tensor_data_dropped, std::nullopt);
  ASSERT_EQ(run.events.size(), 11u);
  const auto& ev = run.events;

  expect_profile(ev[0], "native_call_add.out", 0, 1000, 1500);
  EXPECT_EQ(ev[0].profile()->delegate_debug_id_int, kUnsetDelegateDebugIntId);
  EXPECT_EQ(ev[0].profile()->delegate_debug_metadata, std::nullopt);
  expect_profile(ev[1], "OPERATOR_CALL", 0, 990, 1510);

  ASSERT_NE(ev[2].debug(), nullptr);
  EXPECT_EQ(ev[2].debug()->chain_index, 0u);
  EXPECT_EQ(ev[2].debug()->instruction_id, InstructionId(0));
  EXPECT_EQ(ev[2].debug()->delegate_debug_id_int, kUnsetDelegateDebugIntId);
  EXPECT_EQ(ev[2].debug()->name, std::nullopt);
  EXPECT_EQ(ev[2].debug()->value.type, ValueType::kTensor);
  EXPECT_EQ(ev[2].debug()->value.output, std::nullopt);
  expect_float_2x2(*ev[2].debug()->value.tensor, 0);

  ASSERT_NE(ev[3].allocation(), nullptr);
  EXPECT_EQ(ev[3].allocation()->allocator_id, AllocatorId(1));
  EXPECT_EQ(ev[3].allocation()->allocation_size, 256u);

  expect_profile(ev[4], std::nullopt, 1, 1600, 1700);
  EXPECT_EQ(ev[4].profile()->delegate_debug_id_int, DelegateDebugIntId(0));
  EXPECT_EQ(ev[4].profile()->delegate_debug_id_str, std::nullopt);
  EXPECT_THAT(*ev[4].profile()->delegate_debug_metadata, ElementsAre(1, 2, 3, 4));

  expect_profile(ev[5], std::nullopt, 1, 1700, 1850);
  EXPECT_EQ(ev[5].profile()->delegate_debug_id_int, DelegateDebugIntId(1));
  ASSERT_TRUE(ev[5].profile()->delegate_debug_metadata.has_value());
  EXPECT_TRUE(ev[5].profile()->delegate_debug_metadata->empty());

  expect_profile(ev[6], std::nullopt, 1, 1610, 1840);
  EXPECT_EQ(ev[6].profile()->delegate_debug_id_int, kUnsetDelegateDebugIntId);
  EXPECT_EQ(ev[6].profile()->delegate_debug_id_str, "Fancy Fusion");
  EXPECT_TRUE(ev[6].profile()->delegate_debug_metadata->empty());

  ASSERT_NE(ev[7].debug(), nullptr);
  EXPECT_EQ(ev[7].debug()->instruction_id, InstructionId(1));
  EXPECT_EQ(ev[7].debug()->delegate_debug_id_int, DelegateDebugIntId(1));
  const Tensor& longs = *ev[7].debug()->value.tensor;
  EXPECT_EQ(longs.known_scalar_type(), ScalarType::kLong);
  EXPECT_THAT(longs.sizes, ElementsAre(3));
  EXPECT_EQ(longs.offset, 64);

  expect_profile(ev[8], "DELEGATE_CALL", 1, 1590, 1900);

  ASSERT_NE(ev[9].debug(), nullptr);
  EXPECT_EQ(ev[9].debug()->chain_index, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(ev[9].debug()->instruction_id, kUnsetInstructionId);
  EXPECT_EQ(ev[9].debug()->value.output, true);
  expect_float_2x2(*ev[9].debug()->value.tensor, 128);

  expect_profile(ev[10], "Method::execute", 0, 900, 2000);
}

TEST(EtdumpCompatTest, ReadsExecuTorchStyleFile) {
  check_executorch_style(load_ok(kFixtures + "/executorch_style.etdp"));
}

TEST(EtdumpCompatTest, ReadsExecuTorchStyleFileWithoutSizePrefix) {
  check_executorch_style(load_ok(kFixtures + "/unprefixed/executorch_style.etdp"));
}

TEST(EtdumpCompatTest, ExtensionsFixtureHasRootOffsetOtherThanEight) {
  // flatc pads before a root table holding 8-byte scalars, so this fixture
  // exercises the "follow the root offset" rule on a file we did not build.
  auto bytes = io::read_file(kFixtures + "/glassbox_extensions.etdp");
  ASSERT_THAT(bytes, IsOk());
  ASSERT_GE(bytes->size(), 8u);
  EXPECT_NE((*bytes)[4], 8);
}

TEST(EtdumpCompatTest, ReadsGlassboxExtensions) {
  const ETDumpFile file = load_ok(kFixtures + "/glassbox_extensions.etdp");
  ASSERT_TRUE(file.tick_ratio.has_value());
  EXPECT_EQ(*file.tick_ratio, (TickRatio{5, 2}));
  EXPECT_EQ(file.program_fingerprint, "fnv1a64:0123456789abcdef");
  EXPECT_EQ(file.dropped_events, 3u);
  EXPECT_EQ(file.dropped_blocks, 2u);
  EXPECT_EQ(file.producer, "glassbox 0.1.0");
  const std::vector<DelegateTimeScale> scales = {{"NpuBackend", TickRatio{4, 1}, {}}};
  EXPECT_EQ(file.delegate_time_scales, scales);
  ASSERT_EQ(file.runs.size(), 1u);
  const RunData& run = file.runs[0];
  EXPECT_EQ(run.dropped_events, 3u);
  EXPECT_EQ(run.rejected_events, 1u);
  EXPECT_EQ(run.tensor_data_dropped, std::nullopt);
  ASSERT_EQ(run.events.size(), 9u);
  EXPECT_EQ(run.events[0].profile()->thread_index, 0);
  EXPECT_EQ(run.events[0].profile()->time_source, TimeSource::kMeasured);
  EXPECT_EQ(run.events[1].profile()->thread_index, 1);
  EXPECT_EQ(run.events[1].profile()->time_source, TimeSource::kDurationOnly);
  EXPECT_EQ(run.events[2].profile()->thread_index, std::nullopt);
  EXPECT_EQ(run.events[2].profile()->time_source, TimeSource::kEstimated);
  const Value& list = run.events[3].debug()->value;
  ASSERT_TRUE(list.tensor_list.has_value());
  ASSERT_EQ(list.tensor_list->size(), 2u);
  EXPECT_EQ((*list.tensor_list)[0].known_scalar_type(), ScalarType::kInt);
  EXPECT_EQ((*list.tensor_list)[1].offset, -1);
  EXPECT_EQ(run.events[4].debug()->name, "fused_out");
  EXPECT_EQ(run.events[4].debug()->delegate_debug_id_str, "fused");
  EXPECT_EQ(run.events[4].debug()->value.int_value, -5);
  EXPECT_EQ(run.events[5].debug()->value.double_value, 2.5);
  EXPECT_EQ(run.events[6].debug()->value.float_value, 0.25f);
  EXPECT_EQ(run.events[7].debug()->value.bool_value, true);
  EXPECT_EQ(run.events[8].debug()->value.type, ValueType::kNull);
}

TEST(EtdumpCompatTest, EveryGeneratedFixtureParses) {
  int count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kFixtures)) {
    if (entry.path().extension() != ".etdp") continue;
    ++count;
    auto file = load_etdump_file(entry.path().string());
    EXPECT_THAT(file, IsOk());
  }
  EXPECT_GE(count, 3);
}

TEST(EtdumpCompatTest, EveryTestdataFileParsesOrFailsCleanly) {
  // testdata/etdump also keeps inputs that once broke the reader (found by
  // the fuzzer); each must give a parse or an error naming the file.
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GLASSBOX_TESTDATA_DIR) + "/etdump")) {
    const std::string path = entry.path().string();
    auto file = load_etdump_file(path);
    if (!file.ok()) {
      EXPECT_EQ(file.message().rfind(path + ": ", 0), 0u) << file.message();
    }
  }
}

}  // namespace
}  // namespace glassbox::etdump

// ETDumpGen's delegate counters: what a delegate attaches to an event comes
// back from the reader by name, in both memory modes, beside metadata of
// every form; misuse is refused; a full name table or buffer drops what
// does not fit and nothing else; a dump without counters has none of
// their fields.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "src/etdump/etdump_gen_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using testing_util::metadata_of;

using ::glassbox::testing::IsOk;
using runtime::DelegateCounter;
using runtime::EventTracerEntry;

using testing_util::Tracer;

// Every delegate event's counters by name, in dump order.
std::vector<std::map<std::string, std::int64_t>> counters_of(const ETDumpFile& file) {
  std::vector<std::map<std::string, std::int64_t>> out;
  for (const RunData& run : file.runs) {
    for (const Event& e : run.events) {
      if (!e.profile()) continue;
      std::map<std::string, std::int64_t> by_name;
      for (const Counter& c : e.profile()->counters) {
        by_name[file.counter_names.at(c.name)] = c.value;
      }
      out.push_back(by_name);
    }
  }
  return out;
}

class ETDumpGenCountersTest : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Modes, ETDumpGenCountersTest, ::testing::Bool(),
                         [](const auto& param_info) {
                           return param_info.param ? "CallerBuffer" : "Heap";
                         });

TEST_P(ETDumpGenCountersTest, ReaderSeesNamesAndValuesBesideEveryFormOfMetadata) {
  Tracer t(GetParam());
  ETDumpGen& gen = *t.gen;
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  gen.set_chain_instruction(ChainId(0), InstructionId(4));
  const DelegateCounter conv[] = {{"cycles", 1200}, {"macs", 884736}, {"dma_bytes", 51200}};
  const DelegateCounter relu[] = {{"cycles", -3}, {"dma_bytes", std::int64_t{1} << 40}};
  const std::string long_metadata(90, 'm');  // copied into raw slots
  // Int id, no metadata; string id, short (inline) metadata; int id, long
  // metadata; interned metadata (the same bytes a second time).
  EXPECT_EQ(runtime::event_tracer_log_profiling_delegate_with_counters(
                &gen, nullptr, DelegateDebugIntId(1), 10, 20, conv),
            Error::kOk);
  EXPECT_EQ(gen.log_profiling_delegate_with_counters("relu_0", kUnsetDelegateDebugIntId, 20, 25,
                                                     relu, "relu", 4),
            Error::kOk);
  EXPECT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(2), 25, 30, conv,
                                                     long_metadata.data(), long_metadata.size()),
            Error::kOk);
  EXPECT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(3), 30, 31, relu,
                                                     "relu", 4),
            Error::kOk);
  // Real time, through the hooks; and events without counters between.
  EventTracerEntry entry =
      runtime::event_tracer_start_profiling_delegate(&gen, nullptr, DelegateDebugIntId(5));
  EXPECT_EQ(runtime::event_tracer_end_profiling_delegate_with_counters(&gen, entry, relu, "k", 1),
            Error::kOk);
  EXPECT_EQ(gen.log_profiling_delegate(nullptr, DelegateDebugIntId(6), 40, 41), Error::kOk);
  EXPECT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(7), 41, 42, {}),
            Error::kOk);

  const ETDumpFile file = t.dump();
  EXPECT_EQ(file.counter_names, (std::vector<std::string>{"cycles", "macs", "dma_bytes"}));
  using Row = std::map<std::string, std::int64_t>;
  const Row conv_row{{"cycles", 1200}, {"macs", 884736}, {"dma_bytes", 51200}};
  const Row relu_row{{"cycles", -3}, {"dma_bytes", std::int64_t{1} << 40}};
  EXPECT_EQ(counters_of(file),
            (std::vector<Row>{conv_row, relu_row, conv_row, relu_row, relu_row, Row{}, Row{}}));
  const std::vector<Event>& events = file.runs.at(0).events;
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(events[0].profile()->delegate_debug_id_int, DelegateDebugIntId(1));
  EXPECT_EQ(events[0].profile()->start_time, 10u);
  EXPECT_EQ(events[0].profile()->end_time, 20u);
  EXPECT_EQ(events[0].profile()->instruction_id, InstructionId(4));
  EXPECT_EQ(metadata_of(*events[0].profile()), "");
  EXPECT_EQ(events[1].profile()->delegate_debug_id_str, "relu_0");
  EXPECT_EQ(metadata_of(*events[1].profile()), "relu");
  EXPECT_EQ(metadata_of(*events[2].profile()), long_metadata);
  EXPECT_EQ(metadata_of(*events[3].profile()), "relu");
  EXPECT_EQ(events[4].profile()->delegate_debug_id_int, DelegateDebugIntId(5));
  EXPECT_EQ(metadata_of(*events[4].profile()), "k");
  EXPECT_EQ(events[5].profile()->delegate_debug_id_int, DelegateDebugIntId(6));
  EXPECT_EQ(gen.rejected_events(), 0u);
  EXPECT_EQ(gen.dropped_events(), 0u);
}

TEST_P(ETDumpGenCountersTest, MisuseIsRefusedAndCountedAndLogsNothing) {
  Tracer t(GetParam());
  ETDumpGen& gen = *t.gen;
  const DelegateCounter unnamed[] = {{nullptr, 1}};
  const DelegateCounter empty[] = {{"", 1}};
  const DelegateCounter twice[] = {{"cycles", 1}, {"macs", 2}, {"cycles", 3}};
  std::vector<DelegateCounter> too_many;
  std::vector<std::string> names;
  for (std::size_t i = 0; i <= runtime::EventTracer::kMaxEventCounters; ++i) {
    names.push_back("c" + std::to_string(i));
  }
  for (const std::string& name : names) too_many.push_back({name.c_str(), 1});
  for (Span<const DelegateCounter> bad :
       {Span<const DelegateCounter>(unnamed), Span<const DelegateCounter>(empty),
        Span<const DelegateCounter>(twice), Span<const DelegateCounter>(too_many)}) {
    EXPECT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(1), 1, 2, bad),
              Error::kInvalidArgument);
  }
  // Good counters, bad identifiers.
  const DelegateCounter good[] = {{"cycles", 1}};
  EXPECT_EQ(gen.log_profiling_delegate_with_counters("x", DelegateDebugIntId(1), 1, 2, good),
            Error::kInvalidArgument);
  EXPECT_EQ(gen.end_profiling_delegate_with_counters(gen.start_profiling("op"), good),
            Error::kInvalidArgument);
  EXPECT_EQ(gen.rejected_events(), 6u);
  const ETDumpFile file = t.dump();
  EXPECT_EQ(file.runs.at(0).events.size(), 0u);
  EXPECT_EQ(file.runs.at(0).rejected_events, 6u);
}

TEST_P(ETDumpGenCountersTest, AFullNameTableLeavesOutNewNamesAndKeepsTheEvent) {
  Tracer t(GetParam());
  ETDumpGen& gen = *t.gen;
  constexpr std::uint32_t kMax = internal::CounterNameTable::kMaxNames;
  std::vector<std::string> names;
  for (std::uint32_t i = 0; i <= kMax; ++i) names.push_back("counter_" + std::to_string(i));
  for (std::uint32_t i = 0; i < kMax; ++i) {
    const DelegateCounter one[] = {{names[i].c_str(), i}};
    ASSERT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(1), 1, 2, one),
              Error::kOk);
  }
  // One name too many: that counter is left out, the known one kept.
  const DelegateCounter mixed[] = {{names[kMax].c_str(), 99}, {names[0].c_str(), 7}};
  EXPECT_EQ(gen.log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(2), 3, 4, mixed),
            Error::kOutOfResources);
  const ETDumpFile file = t.dump();
  EXPECT_EQ(file.counter_names.size(), kMax);
  const auto counters = counters_of(file);
  ASSERT_EQ(counters.size(), kMax + 1);
  EXPECT_EQ(counters.back(), (std::map<std::string, std::int64_t>{{"counter_0", 7}}));
  EXPECT_EQ(gen.dropped_events(), 0u);
}

TEST_P(ETDumpGenCountersTest, ADumpWithoutCountersHasNoCounterNames) {
  Tracer t(GetParam());
  EXPECT_EQ(t.gen->log_profiling_delegate(nullptr, DelegateDebugIntId(1), 1, 2), Error::kOk);
  const ETDumpFile file = t.dump();
  EXPECT_TRUE(file.counter_names.empty());
  EXPECT_TRUE(file.runs.at(0).events.at(0).profile()->counters.empty());
}

TEST_P(ETDumpGenCountersTest, ResetForgetsCounterNames) {
  Tracer t(GetParam());
  const DelegateCounter a[] = {{"a", 1}};
  const DelegateCounter b[] = {{"b", 2}};
  ASSERT_EQ(t.gen->log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(1), 1, 2, a),
            Error::kOk);
  (void)t.dump();
  t.gen->reset();
  ASSERT_EQ(t.gen->log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(1), 1, 2, b),
            Error::kOk);
  EXPECT_EQ(t.dump().counter_names, (std::vector<std::string>{"b"}));
}

// A small caller buffer filled with counter events: events that do not fit
// are dropped whole and counted, the dump verifies (serialize_in checks
// it lies in the buffer) and holds every other event with all its counters.
TEST(ETDumpGenCountersFullTest, AFullBufferDropsWholeEventsAndCountsThem) {
  std::vector<std::uint8_t> memory(24 * 1024);
  ETDumpGen gen{Span<std::uint8_t>(memory)};
  ASSERT_EQ(gen.status(), Error::kOk);
  ASSERT_EQ(gen.create_event_block("Execute"), Error::kOk);
  const DelegateCounter counters[] = {{"cycles", 5}, {"macs", 6}, {"dma_bytes", 7}};
  std::uint64_t attempted = 0;
  std::uint64_t full = 0;
  for (; attempted < 2000; ++attempted) {
    const Error error = gen.log_profiling_delegate_with_counters(
        nullptr, DelegateDebugIntId(1), 1, 2, counters, "conv", 4 + attempted % 2);
    if (error == Error::kOutOfResources) ++full;
  }
  ASSERT_GT(full, 0u) << "the test must reach the limit";
  EXPECT_EQ(gen.dropped_events(), full);
  StatusOr<ETDumpFile> file = testing_util::serialize_in(gen, memory, "full.etdp");
  ASSERT_THAT(file, IsOk());
  const auto kept = counters_of(*file);
  EXPECT_EQ(kept.size() + full, attempted);
  for (const auto& row : kept) EXPECT_EQ(row.size(), 3u);
}

#ifdef GLASSBOX_FLATC
// ExecuTorch's reader knows no counters: FlatBuffers readers skip trailing
// fields they lack, so a schema without ProfileEvent.counters and
// ETDump.counter_names (ExecuTorch's shape) still reads a dump with them.
TEST(ETDumpGenCountersFlatcTest, ASchemaWithoutCounterFieldsReadsTheDump) {
  Tracer t(true);
  const DelegateCounter counters[] = {{"cycles", 1200}, {"macs", 884736}};
  ASSERT_EQ(t.gen->create_event_block("Execute"), Error::kOk);
  ASSERT_EQ(t.gen->log_profiling_delegate_with_counters(nullptr, DelegateDebugIntId(7), 10, 20,
                                                        counters, "conv", 4),
            Error::kOk);
  Result<Span<const std::uint8_t>> data = t.gen->get_etdump_data();
  ASSERT_TRUE(data.ok());
  const std::string dir = ::testing::TempDir() + "/no_counters_schema";
  std::filesystem::create_directories(dir);
  std::ifstream in(GLASSBOX_ETDUMP_SCHEMA);
  std::ofstream schema(dir + "/etdump.fbs");
  for (std::string line; std::getline(in, line);) {
    if (line.find("counters:[Counter];") != std::string::npos ||
        line.find("counter_names:[string];") != std::string::npos) {
      continue;
    }
    schema << line << "\n";
  }
  schema.close();
  const std::filesystem::path source_dir =
      std::filesystem::path(GLASSBOX_ETDUMP_SCHEMA).parent_path();
  std::filesystem::copy_file(source_dir / "scalar_type.fbs", dir + "/scalar_type.fbs",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir + "/run.etdp", std::ios::binary)
      .write(reinterpret_cast<const char*>(data->data()),
             static_cast<std::streamsize>(data->size()));
  const std::string command = std::string(GLASSBOX_FLATC) + " --json --strict-json " +
                              "--size-prefixed -o " + dir + " " + dir + "/etdump.fbs -- " + dir +
                              "/run.etdp";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream json(dir + "/run.json");
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"delegate_debug_id_int\": 7"), std::string::npos) << text;
  EXPECT_NE(text.find("\"end_time\": 20"), std::string::npos) << text;
  EXPECT_EQ(text.find("counter"), std::string::npos) << text;
}
#endif

}  // namespace
}  // namespace glassbox::etdump

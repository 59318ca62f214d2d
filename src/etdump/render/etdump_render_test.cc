#include "glassbox/etdump/etdump_render.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "src/testing/status_matchers.h"

namespace glassbox::etdump {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

Event profile(const std::string& name, Ticks start, Ticks end) {
  ProfileEvent p;
  p.name = name;
  p.instruction_id = InstructionId(0);
  p.start_time = start;
  p.end_time = end;
  p.delegate_debug_metadata = std::vector<std::uint8_t>{'c', 'o', 'n', 'v'};
  return Event{p};
}

// Float tensors with data in `debug`, so the JSON carries values.
Event debug_tensor(std::int64_t offset) {
  DebugEvent d;
  d.name = "conv";
  d.instruction_id = InstructionId(1);
  d.value.type = ValueType::kTensor;
  d.value.tensor = Tensor{static_cast<std::int8_t>(ScalarType::kFloat), {2, 2}, {}, offset};
  d.value.output = true;
  return Event{d};
}

ETDumpFile sample_file() {
  ETDumpFile file;
  file.tick_ratio = TickRatio{1, 1};
  file.producer = "test";
  RunData init;
  init.name = "Default";
  init.events.push_back(profile("Method::init", 0, 10));
  RunData execute;
  execute.name = "Execute";
  execute.allocators = {"arena"};
  execute.events.push_back(profile("DELEGATE_CALL", 10, 50));
  execute.events.push_back(debug_tensor(0));
  execute.events.push_back(debug_tensor(16));
  RunData empty;  // no events: "events": []
  empty.name = "Execute";
  file.runs = {init, execute, empty};
  return file;
}

std::vector<std::uint8_t> debug_bytes() {
  std::vector<std::uint8_t> bytes(32);
  for (std::size_t i = 0; i < 8; ++i) {
    const float v = 0.5f * static_cast<float>(i);
    std::memcpy(bytes.data() + 4 * i, &v, 4);
  }
  return bytes;
}

std::string whole_document(const ETDumpFile& file, const DebugData* debug, TensorValues values) {
  StatusOr<nlohmann::ordered_json> json = etdump_to_json(file, debug, values);
  EXPECT_THAT(json, IsOk());
  return json->dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// The streamed document is byte for byte the one built whole.
TEST(EtdumpRenderTest, StreamedJsonEqualsTheWholeDocument) {
  const std::vector<std::uint8_t> bytes = debug_bytes();
  const DebugData debug{"d.bin", bytes};
  ETDumpFile no_runs;
  for (const ETDumpFile& file : {sample_file(), no_runs}) {
    for (const DebugData* d : {static_cast<const DebugData*>(nullptr), &debug}) {
      for (TensorValues values : {TensorValues::kSummary, TensorValues::kAll}) {
        std::ostringstream out;
        ASSERT_THAT(write_etdump_json(file, d, out, values), IsOk());
        EXPECT_EQ(out.str(), whole_document(file, d, values));
      }
    }
  }
}

TEST(EtdumpRenderTest, TensorsShowASummaryOrEveryValue) {
  std::vector<std::uint8_t> bytes = debug_bytes();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bytes.data() + 4 * 7, &nan, 4);  // The second tensor's last value.
  const DebugData debug{"d.bin", bytes};
  const nlohmann::ordered_json summary = *etdump_to_json(sample_file(), &debug);
  const nlohmann::ordered_json& second = summary["runs"][1]["events"][2]["value"];
  EXPECT_FALSE(second.contains("values"));
  // Dumped: the NaN value prints as null.
  EXPECT_EQ(
      second["summary"].dump(),
      R"({"count":4,"non_finite":1,"min":2.0,"max":3.0,"mean":2.5,"first":[2.0,2.5,3.0,null]})");
  const nlohmann::ordered_json all = *etdump_to_json(sample_file(), &debug, TensorValues::kAll);
  const nlohmann::ordered_json& first = all["runs"][1]["events"][1]["value"];
  EXPECT_FALSE(first.contains("summary"));
  EXPECT_EQ(first["values"], nlohmann::ordered_json::parse("[0.0, 0.5, 1.0, 1.5]"));
}

// Every event of a dump may point at one large tensor: 3 MB of dump and
// 13 MB of debug data gave 53 GB of JSON. Summaries keep the output
// proportional to the dump.
TEST(EtdumpRenderTest, SummaryOutputDoesNotGrowWithTheTensors) {
  constexpr std::int64_t kElements = 100'000;
  constexpr std::size_t kEvents = 1'000;
  std::vector<std::uint8_t> bytes(kElements * sizeof(float));
  for (std::int64_t i = 0; i < kElements; ++i) {
    const float v = static_cast<float>(i);
    std::memcpy(bytes.data() + i * 4, &v, 4);
  }
  const DebugData debug{"big.bin", bytes};
  ETDumpFile file;
  RunData run;
  run.name = "Execute";
  Event event = debug_tensor(0);
  std::get<DebugEvent>(event.data).value.tensor->sizes = {kElements};
  run.events.assign(kEvents, event);
  file.runs = {run};
  std::ostringstream out;
  ASSERT_THAT(write_etdump_json(file, &debug, out), IsOk());
  constexpr std::size_t kBytesPerEvent = 1'000;  // Each event's JSON is a few hundred.
  EXPECT_LT(out.str().size(), kEvents * kBytesPerEvent);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  const nlohmann::json& last = doc["runs"][0]["events"][kEvents - 1]["value"]["summary"];
  EXPECT_EQ(last["count"], kElements);
  EXPECT_EQ(last["max"], static_cast<double>(kElements - 1));
  EXPECT_EQ(last["mean"], static_cast<double>(kElements - 1) / 2);
  EXPECT_EQ(last["first"].size(), 8u);
}

TEST(EtdumpRenderTest, TextShowsTheFirstValuesOrEveryValue) {
  const std::vector<std::uint8_t> bytes(40 * sizeof(float));
  const DebugData debug{"d.bin", bytes};
  ETDumpFile file = sample_file();
  std::get<DebugEvent>(file.runs[1].events[1].data).value.tensor->sizes = {10};
  const std::string summary = *etdump_to_text(file, &debug);
  EXPECT_NE(summary.find("= [0, 0, 0, 0, 0, 0, 0, 0, ... (10 values)]"), std::string::npos)
      << summary;
  const std::string all = *etdump_to_text(file, &debug, TensorValues::kAll);
  EXPECT_NE(all.find("= [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"), std::string::npos) << all;
}

TEST(EtdumpRenderTest, StreamedJsonReplacesBytesThatAreNotUtf8) {
  ETDumpFile file = sample_file();
  file.runs[1].name = "bad \xff\xfe name";
  std::ostringstream out;
  ASSERT_THAT(write_etdump_json(file, nullptr, out), IsOk());
  EXPECT_NE(out.str().find("bad \xef\xbf\xbd\xef\xbf\xbd name"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(out.str()));
}

TEST(EtdumpRenderTest, StreamedJsonStopsWhenTheOutputFails) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  EXPECT_THAT(write_etdump_json(sample_file(), nullptr, out),
              ErrorIs(Error::kAccessFailed, {"cannot write the output"}));
}

TEST(EtdumpRenderTest, DebugDataErrorsNameTheFile) {
  const std::vector<std::uint8_t> bytes(8);  // too short for the tensors
  const DebugData debug{"short.bin", bytes};
  std::ostringstream out;
  EXPECT_THAT(write_etdump_json(sample_file(), &debug, out),
              ErrorIs(Error::kMismatch, {"short.bin"}));
}

TEST(EtdumpRenderTest, TextEscapesNamesFromTheFile) {
  ETDumpFile file = sample_file();
  file.runs[1].name = "run\x1b]0;title\x07";
  file.runs[1].events[0] = profile("evil\n#9999 forged line\x1b[2J", 0, 1);
  file.producer = "p\r";
  StatusOr<std::string> text = etdump_to_text(file, nullptr);
  ASSERT_THAT(text, IsOk());
  EXPECT_EQ(text->find('\x1b'), std::string::npos);
  EXPECT_EQ(text->find('\r'), std::string::npos);
  EXPECT_EQ(text->find("\n#9999"), std::string::npos);
  EXPECT_NE(text->find("evil\\n#9999 forged line\\x1b[2J"), std::string::npos) << *text;
}

TEST(EtdumpRenderTest, DelegateTimeScalesInJsonAndText) {
  ETDumpFile file = sample_file();
  file.delegate_time_scales = {{"Npu\n", TickRatio{5, 4}, {}}};
  StatusOr<nlohmann::ordered_json> json = etdump_to_json(file, nullptr);
  ASSERT_THAT(json, IsOk());
  EXPECT_EQ(
      (*json)["delegate_time_scales"],
      nlohmann::ordered_json::parse(R"([{"backend": "Npu\n", "numerator": 5, "denominator": 4}])"));
  StatusOr<std::string> text = etdump_to_text(file, nullptr);
  ASSERT_THAT(text, IsOk());
  EXPECT_NE(text->find("delegate time scale: backend \"Npu\\n\": 1 tick = 1.25 ns (5/4)\n"),
            std::string::npos)
      << *text;
  file.delegate_time_scales.clear();
  EXPECT_FALSE(etdump_to_json(file, nullptr)->contains("delegate_time_scales"));

  // Counters, by name, in both renderings.
  file.counter_names = {"cycles", "dma\nbytes"};
  ProfileEvent counted;
  counted.delegate_debug_id_int = DelegateDebugIntId(7);
  counted.counters = {{1, 4096}, {0, -3}};
  file.runs[0].events.push_back(Event{counted});
  const nlohmann::ordered_json counted_json = *etdump_to_json(file, nullptr);
  const nlohmann::ordered_json& last = counted_json["runs"][0]["events"].back();
  EXPECT_EQ(last["counters"],
            nlohmann::ordered_json::parse(R"({"dma\nbytes": 4096, "cycles": -3})"));
  EXPECT_NE(etdump_to_text(file, nullptr)->find("  dma\\nbytes=4096  cycles=-3\n"),
            std::string::npos)
      << *etdump_to_text(file, nullptr);

  // A declared host clock offset, in both renderings.
  file.delegate_time_scales = {{"Npu", TickRatio{2, 1}, -40}};
  EXPECT_EQ((*etdump_to_json(file, nullptr))["delegate_time_scales"][0]["host_offset_ns"], -40);
  EXPECT_NE(etdump_to_text(file, nullptr)->find("(2/1), host clock offset -40 ns\n"),
            std::string::npos);
}

}  // namespace
}  // namespace glassbox::etdump

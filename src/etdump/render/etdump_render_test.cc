#include "glassbox/etdump/etdump_render.h"

#include <gtest/gtest.h>

#include <cstring>
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

std::string whole_document(const ETDumpFile& file, const DebugData* debug) {
  StatusOr<nlohmann::ordered_json> json = etdump_to_json(file, debug);
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
      std::ostringstream out;
      ASSERT_THAT(write_etdump_json(file, d, out), IsOk());
      EXPECT_EQ(out.str(), whole_document(file, d));
    }
  }
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
              ErrorIs(Error::kCorruptData, {"short.bin"}));
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
  file.delegate_time_scales = {{"Npu\n", TickRatio{5, 4}}};
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
}

}  // namespace
}  // namespace glassbox::etdump

// The CLI end to end: run_cli() on the flatc-built fixtures, output parsed
// back with nlohmann::json, plus the error paths and exit codes.

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "glassbox/config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/cli/cli_test_util.h"

namespace glassbox::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Json = nlohmann::json;

const std::string kFixtures = GLASSBOX_ETDUMP_FIXTURE_DIR;

CliResult run(std::vector<std::string> args) { return run_glassbox(std::move(args)); }

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return bytes;
  int c;
  while ((c = std::fgetc(f)) != EOF) bytes.push_back(static_cast<std::uint8_t>(c));
  std::fclose(f);
  return bytes;
}

template <typename T>
void put(std::vector<std::uint8_t>* data, std::size_t at, T value) {
  if (data->size() < at + sizeof(T)) data->resize(at + sizeof(T));
  std::memcpy(data->data() + at, &value, sizeof(T));
}

int line_count(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(CliTest, ShowJsonOfExecuTorchStyleFile) {
  const CliResult r =
      run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["version"], 0);
  EXPECT_FALSE(j.contains("tick_ratio"));
  EXPECT_FALSE(j.contains("producer"));
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["name"], "Default");
  EXPECT_EQ(j["runs"][0]["bundled_input_index"], -1);
  EXPECT_EQ(j["runs"][0]["events"][1]["name"], "Program::load_method");

  const Json& run = j["runs"][1];
  EXPECT_EQ(run["allocators"], Json::array({"method_allocator"}));
  EXPECT_FALSE(run.contains("dropped_events"));
  const Json& ev = run["events"];
  ASSERT_EQ(ev.size(), 11u);
  EXPECT_EQ(ev[0]["kind"], "profile");
  EXPECT_EQ(ev[0]["name"], "native_call_add.out");
  EXPECT_EQ(ev[0]["instruction_id"], 0);
  EXPECT_EQ(ev[0]["start_time"], 1000);
  EXPECT_EQ(ev[0]["end_time"], 1500);
  EXPECT_FALSE(ev[0].contains("duration_ns"));  // no tick ratio
  EXPECT_FALSE(ev[0].contains("metadata_hex"));

  EXPECT_EQ(ev[2]["kind"], "debug");
  EXPECT_EQ(ev[2]["value"]["type"], "tensor");
  EXPECT_EQ(ev[2]["value"]["dtype"], "FLOAT");
  EXPECT_EQ(ev[2]["value"]["sizes"], Json::array({2, 2}));
  EXPECT_EQ(ev[2]["value"]["strides"], Json::array({2, 1}));
  EXPECT_EQ(ev[2]["value"]["offset"], 0);
  EXPECT_FALSE(ev[2]["value"].contains("values"));

  EXPECT_EQ(ev[3]["kind"], "allocation");
  EXPECT_EQ(ev[3]["allocator_id"], 1);
  EXPECT_EQ(ev[3]["allocator_name"], "method_allocator");
  EXPECT_EQ(ev[3]["allocation_size"], 256);

  EXPECT_FALSE(ev[4].contains("name"));
  EXPECT_EQ(ev[4]["delegate_debug_id_int"], 0);
  EXPECT_EQ(ev[4]["metadata_hex"], "01020304");
  EXPECT_EQ(ev[5]["metadata_hex"], "");
  EXPECT_EQ(ev[6]["delegate_debug_id_int"], -1);
  EXPECT_EQ(ev[6]["delegate_debug_id_str"], "Fancy Fusion");

  EXPECT_EQ(ev[9]["chain_index"], 18446744073709551615ull);
  EXPECT_EQ(ev[9]["instruction_id"], -1);
  EXPECT_EQ(ev[9]["value"]["output"], true);
  EXPECT_FALSE(ev[9].contains("thread_index"));
  EXPECT_FALSE(ev[9].contains("time_source"));
}

TEST(CliTest, ShowJsonKeysComeInDocumentedOrder) {
  const CliResult r =
      run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j["runs"][1]["events"][4].items()) {
    keys.push_back(key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "chain_index", "instruction_id",
                                            "delegate_debug_id_int", "start_time", "end_time",
                                            "metadata_hex"}));
}

TEST(CliTest, ShowJsonWithExtensions) {
  const CliResult r =
      run({"etdump", "show", kFixtures + "/glassbox_extensions.etdp", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["tick_ratio"]["numerator"], 5);
  EXPECT_EQ(j["tick_ratio"]["denominator"], 2);
  EXPECT_EQ(j["program_fingerprint"], "fnv1a64:0123456789abcdef");
  EXPECT_EQ(j["dropped_events"], 3);
  EXPECT_EQ(j["dropped_blocks"], 2);
  EXPECT_EQ(j["producer"], "glassbox 0.1.0");
  EXPECT_EQ(j["delegate_time_scales"][0]["backend"], "NpuBackend");
  EXPECT_EQ(j["delegate_time_scales"][0]["numerator"], 4);
  const Json& run = j["runs"][0];
  EXPECT_EQ(run["dropped_events"], 3);
  EXPECT_EQ(run["rejected_events"], 1);
  EXPECT_FALSE(run.contains("tensor_data_dropped"));
  const Json& ev = run["events"];
  EXPECT_EQ(ev[0]["duration_ns"], 1500.0);  // 600 ticks * 5 / 2
  EXPECT_EQ(ev[0]["thread_index"], 0);
  EXPECT_EQ(ev[0]["time_source"], "measured");
  EXPECT_EQ(ev[1]["time_source"], "duration_only");
  EXPECT_EQ(ev[2]["time_source"], "estimated");
  EXPECT_FALSE(ev[2].contains("thread_index"));
  EXPECT_EQ(ev[3]["value"]["type"], "tensor_list");
  EXPECT_EQ(ev[3]["value"]["tensors"][0]["dtype"], "INT");
  EXPECT_EQ(ev[4]["name"], "fused_out");
  EXPECT_EQ(ev[4]["value"], Json({{"type", "int"}, {"int", -5}}));
  EXPECT_EQ(ev[5]["value"], Json({{"type", "double"}, {"double", 2.5}}));
  EXPECT_EQ(ev[6]["value"], Json({{"type", "float"}, {"float", 0.25}}));
  EXPECT_EQ(ev[7]["value"], Json({{"type", "bool"}, {"bool", true}}));
  EXPECT_EQ(ev[8]["value"], Json({{"type", "null"}}));
}

TEST(CliTest, ShowWithDebugDataAddsTensorValues) {
  // The layout executorch_style.json's offsets describe: FLOAT[2,2] at 0,
  // LONG[3] at 64, FLOAT[2,2] at 128.
  std::vector<std::uint8_t> data;
  for (int i = 0; i < 4; ++i)
    put(&data, 4 * static_cast<std::size_t>(i), 1.0f + static_cast<float>(i));
  for (int i = 0; i < 3; ++i) put<std::int64_t>(&data, 64 + 8 * static_cast<std::size_t>(i), -i);
  for (int i = 0; i < 4; ++i) put(&data, 128 + 4 * static_cast<std::size_t>(i), 0.5f);
  const std::string path = ::testing::TempDir() + "/cli_test_debug.bin";
  write_file(path, data);

  const CliResult r = run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--format",
                           "json", "--debug-data", path, "--values", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json ev = Json::parse(r.out)["runs"][1]["events"];
  EXPECT_EQ(ev[2]["value"]["values"], Json::array({1.0, 2.0, 3.0, 4.0}));
  EXPECT_EQ(ev[7]["value"]["values"], Json::array({0.0, -1.0, -2.0}));
  EXPECT_EQ(ev[9]["value"]["values"], Json::array({0.5, 0.5, 0.5, 0.5}));

  // By default a summary of bounded size, never every value.
  const CliResult summary = run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--format",
                                 "json", "--debug-data", path});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const Json s = Json::parse(summary.out)["runs"][1]["events"][2]["value"];
  EXPECT_FALSE(s.contains("values"));
  EXPECT_EQ(s["summary"], Json::parse(R"({"count": 4, "non_finite": 0, "min": 1.0, "max": 4.0,
                                          "mean": 2.5, "first": [1.0, 2.0, 3.0, 4.0]})"));
  EXPECT_EQ(
      run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--values", "some"}).exit_code,
      2);

  const CliResult text =
      run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--debug-data", path});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("tensor FLOAT [2, 2] strides [2, 1] offset 0 = [1, 2, 3, 4]"));

  // Too short for the last tensor: one error naming the debug-data file.
  data.resize(100);
  write_file(path, data);
  const CliResult bad = run({"etdump", "show", kFixtures + "/executorch_style.etdp", "--format",
                             "json", "--debug-data", path});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_THAT(bad.err, StartsWith("glassbox: " + path + ": tensor of event 9 of run 1: "));
  EXPECT_EQ(line_count(bad.err), 1);
  std::remove(path.c_str());
}

TEST(CliTest, ShowTextListsRunsAndEvents) {
  const CliResult r = run({"etdump", "show", kFixtures + "/executorch_style.etdp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("time unit: none recorded"));
  EXPECT_THAT(r.out, HasSubstr("run 1 \"Execute\": 11 events"));
  EXPECT_THAT(r.out, HasSubstr("delegate id \"Fancy Fusion\""));
  EXPECT_THAT(r.out, HasSubstr("(program output)"));
  // Header lines plus two run headers, a blank line before each, one line
  // per event.
  EXPECT_EQ(line_count(r.out), 2 + 2 * 2 + 2 + 11);

  const CliResult ext = run({"etdump", "show", kFixtures + "/glassbox_extensions.etdp"});
  ASSERT_EQ(ext.exit_code, 0) << ext.err;
  EXPECT_THAT(ext.out, HasSubstr("time unit: 1 tick = 2.5 ns (tick ratio 5/2)"));
  EXPECT_THAT(ext.out, HasSubstr("(1.5 us)"));
  EXPECT_THAT(ext.out, HasSubstr("thread 1  time duration_only"));
  EXPECT_THAT(ext.out, HasSubstr("dropped blocks: 2\n"));
  EXPECT_THAT(ext.out,
              HasSubstr("delegate time scale: backend \"NpuBackend\": 1 tick = 4 ns (4/1)\n"));
}

TEST(CliTest, TruncatedFileIsOneLineAndExitOne) {
  std::vector<std::uint8_t> bytes = read_file(kFixtures + "/executorch_style.etdp");
  ASSERT_GT(bytes.size(), 100u);
  bytes.resize(bytes.size() - 100);
  const std::string path = ::testing::TempDir() + "/cli_test_truncated.etdp";
  write_file(path, bytes);
  const CliResult r = run({"etdump", "show", path, "--format", "json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, StartsWith("glassbox: " + path + ": truncated: size prefix says "));
  EXPECT_EQ(line_count(r.err), 1);
  std::remove(path.c_str());
}

TEST(CliTest, MissingFileIsExitOne) {
  const CliResult r = run({"etdump", "show", "/nonexistent/run.etdp"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, StartsWith("glassbox: /nonexistent/run.etdp: cannot open: "));
}

TEST(CliTest, UsageErrorsAreExitTwo) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{},
                                             {"etdump"},
                                             {"etdump", "show"},
                                             {"etdump", "show", "x.etdp", "--format", "xml"},
                                             {"--no-such-flag"}}) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_THAT(r.err, StartsWith("glassbox: "));
    EXPECT_EQ(line_count(r.err), 1) << r.err;
  }
}

// A mistyped command is named, with the commands there are: CLI11 alone
// said "A subcommand is required".
TEST(CliTest, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  const CliResult top = run({"frobnicate", "--etdump", "x.etdp"});
  EXPECT_EQ(top.exit_code, 2) << top.err;
  EXPECT_THAT(top.err, StartsWith("glassbox: unknown command 'frobnicate' (glassbox takes: "));
  EXPECT_THAT(top.err, HasSubstr("inspect, report, export, compare, check-backend)"));
  EXPECT_EQ(line_count(top.err), 1) << top.err;
  const CliResult nested = run({"etdump", "frobnicate"});
  EXPECT_EQ(nested.exit_code, 2) << nested.err;
  EXPECT_THAT(nested.err,
              StartsWith("glassbox: unknown command 'frobnicate' (glassbox etdump takes: show)"));
}

TEST(CliTest, VersionAndHelp) {
  const CliResult v = run({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_THAT(v.out, HasSubstr(std::string("glassbox ") + kVersion));
  EXPECT_THAT(v.out, HasSubstr("reads ETDump schema version 0"));

  const CliResult h = run({"--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_THAT(h.out, HasSubstr("Exit codes:"));
  EXPECT_THAT(h.out, HasSubstr("etdump"));
}

}  // namespace
}  // namespace glassbox::cli

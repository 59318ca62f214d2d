// `glassbox inspect` end to end: programs lowered and run with the real
// `glassbox lower` / `glassbox run`, then inspected in every format.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "glassbox/inspector/formats.h"
#include "src/cli/commands.h"
#include "src/cli/run_cli.h"
#include "src/cli/terminal_width.h"
#include "src/testing/status_matchers.h"

namespace glassbox::cli {

namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

// Runs `glassbox inspect ARGS` through the CLI's command tree, with the
// command's Status and the exit code run_cli would give.
struct Outcome {
  int exit_code = 0;
  Status status;
  std::string out;
};

Outcome inspect(std::vector<std::string> args) {
  args.insert(args.begin(), "inspect");
  const CommandLineOutcome result = run_command_line(args);
  Outcome outcome;
  if (!result.parsed) {
    outcome.exit_code = kExitUsage;
    return outcome;
  }
  outcome.status = result.status;
  outcome.exit_code = result.status.ok() ? 0 : 1;
  outcome.out = result.out;
  return outcome;
}

int glassbox(std::vector<std::string> args) {
  std::vector<const char*> argv = {"glassbox"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  EXPECT_EQ(code, 0) << err.str();
  return code;
}

class InspectCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_inspect_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    for (const char* ids : {"string", "int"}) {
      const std::string stem = (dir_ / ids).string();
      glassbox({"lower", "--model", "demo", "--backend", "demo", "-o", stem + ".gbx", "--etrecord",
                stem + ".etrecord", "--ids", ids});
      glassbox({"run", stem + ".gbx", "--etdump", stem + ".etdp", "--iterations", "3"});
    }
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }
  static std::filesystem::path dir_;
};
std::filesystem::path InspectCliTest::dir_;

TEST_F(InspectCliTest, OpsTableByDefault) {
  const Outcome o =
      inspect({"--etdump", path("string.etdp"), "--etrecord", path("string.etrecord")});
  ASSERT_THAT(o.status, IsOk());
  EXPECT_NE(o.out.find("ops view"), std::string::npos);
  EXPECT_NE(o.out.find("conv2d+relu"), std::string::npos);
  EXPECT_NE(o.out.find("tan.sin,tan.cos,tan.div"), std::string::npos);
  EXPECT_NE(o.out.find("5 of 5 identifiers logged"), std::string::npos);
}

TEST_F(InspectCliTest, OpsJsonHasTheDocumentedKeys) {
  const Outcome o = inspect({"--etdump", path("int.etdp"), "--etrecord", path("int.etrecord"),
                             "--format", "json", "--skip-first", "1"});
  ASSERT_THAT(o.status, IsOk());
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  EXPECT_EQ(doc["format"], "glassbox-inspector");
  EXPECT_EQ(doc["runs"]["skipped"], 1);
  ASSERT_EQ(doc["rows"].size(), 3u);
  for (const char* key :
       {"op_names", "op_types", "debug_handles", "module_hierarchy", "delegated", "backend",
        "delegate_debug_identifiers", "count", "mean_ns", "p50_ns", "p90_ns", "min_ns", "max_ns"}) {
    EXPECT_TRUE(doc["rows"][0].contains(key)) << key;
  }
  EXPECT_EQ(doc["rows"][0]["count"], 2);
  EXPECT_TRUE(doc["rows"][0]["delegate_debug_identifiers"][0].is_number_integer());
}

TEST_F(InspectCliTest, EveryViewAndFormat) {
  for (const char* view : {"events", "ops", "modules", "reconcile", "types"}) {
    for (const char* format : {"table", "csv", "tsv", "json"}) {
      const Outcome o = inspect({"--etdump", path("string.etdp"), "--etrecord",
                                 path("string.etrecord"), "--view", view, "--format", format});
      EXPECT_THAT(o.status, IsOk()) << view << " " << format << ": " << o.status.message();
      EXPECT_FALSE(o.out.empty()) << view << " " << format;
    }
  }
}

TEST_F(InspectCliTest, TypesViewSumsTimePerSourceOpType) {
  const Outcome o = inspect({"--etdump", path("int.etdp"), "--etrecord", path("int.etrecord"),
                             "--view", "types", "--format", "json"});
  ASSERT_THAT(o.status, IsOk());
  const nlohmann::json doc = nlohmann::json::parse(o.out);
  EXPECT_EQ(doc["view"], "types");
  // The demo: conv1+relu1, conv2+relu2 (fused, split between conv2d and
  // relu) and tan.
  std::map<std::string, nlohmann::json> by_type;
  double percent = 0, previous_total = std::numeric_limits<double>::infinity();
  for (const auto& row : doc["rows"]) {
    by_type[row["type"].get<std::string>()] = row;
    percent += row["percent"].get<double>();
    EXPECT_LE(row["total_ns"].get<double>(), previous_total) << "sorted by total time";
    previous_total = row["total_ns"].get<double>();
  }
  ASSERT_EQ(by_type.size(), 3u) << o.out;
  EXPECT_EQ(by_type["conv2d"]["count"], 2);
  EXPECT_EQ(by_type["relu"]["count"], 2);
  EXPECT_EQ(by_type["tan"]["count"], 1);
  EXPECT_EQ(by_type["conv2d"]["backends"], nlohmann::json::array({"DemoBackend"}));
  EXPECT_TRUE(by_type["conv2d"]["mapped"].get<bool>());
  EXPECT_EQ(by_type["conv2d"]["mean_ns"], by_type["relu"]["mean_ns"]);
  EXPECT_NEAR(percent, 100, 0.2);

  const Outcome csv = inspect({"--etdump", path("int.etdp"), "--etrecord", path("int.etrecord"),
                               "--view", "types", "--format", "csv"});
  ASSERT_THAT(csv.status, IsOk());
  EXPECT_EQ(
      csv.out.rfind("type,mapped,count,total_ns,mean_ns,shared_mean_ns,percent,backends\n", 0), 0u);
}

TEST_F(InspectCliTest, TypesViewWithoutAnETRecordSaysTheTypesAreEventNames) {
  const Outcome o = inspect({"--etdump", path("string.etdp"), "--view", "types"});
  ASSERT_THAT(o.status, IsOk());
  EXPECT_NE(o.out.find("types view"), std::string::npos);
  EXPECT_NE(o.out.find("The types are the events' names"), std::string::npos);
  // Said once, by the diagnostic.
  const std::size_t said = o.out.find("ETRecord");
  EXPECT_EQ(o.out.find("no ETRecord", said + 1), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("conv_relu_1"), std::string::npos);  // the delegate's identifier
  EXPECT_EQ(o.out.find("relu "), std::string::npos);        // no source op type
}

TEST(TerminalWidthTest, ColumnsOverridesTheIoctlWhenItIsAPositiveNumber) {
  EXPECT_EQ(terminal_columns("120", 80), 120u);
  EXPECT_EQ(terminal_columns(nullptr, 80), 80u);
  EXPECT_EQ(terminal_columns("0", 80), 80u);
  EXPECT_EQ(terminal_columns("wide", 80), 80u);
  EXPECT_EQ(terminal_columns("", 0), 0u);
}

TEST(TerminalWidthTest, FilesAndCapturedStreamsGetFullNames) {
  std::ostringstream captured;
  EXPECT_EQ(table_width_for(captured, false), inspector::kTableFullNames);
  EXPECT_EQ(table_width_for(std::cout, true), inspector::kTableFullNames);
}

TEST_F(InspectCliTest, ChromeTraceToAFile) {
  const std::string trace = path("trace.json");
  const Outcome o = inspect({"--etdump", path("string.etdp"), "--etrecord", path("string.etrecord"),
                             "--format", "chrome", "-o", trace});
  ASSERT_THAT(o.status, IsOk());
  EXPECT_TRUE(o.out.empty());
  std::ifstream in(trace);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  int complete = 0, names = 0;
  for (const auto& e : doc["traceEvents"]) {
    complete += e["ph"] == "X";
    names += e["ph"] == "M" && e["name"] == "thread_name";
  }
  EXPECT_EQ(complete, 3 * 7 + 1);  // 7 events per execute, plus Method::init
  EXPECT_EQ(names, 4);             // Default + 3 executions
}

TEST_F(InspectCliTest, FingerprintMismatchFailsUnlessAllowed) {
  const Outcome refused =
      inspect({"--etdump", path("string.etdp"), "--etrecord", path("int.etrecord")});
  EXPECT_THAT(refused.status, ErrorIs(Error::kMismatch));
  EXPECT_NE(refused.status.message().find("fingerprint mismatch"), std::string::npos);
  const Outcome allowed = inspect({"--etdump", path("string.etdp"), "--etrecord",
                                   path("int.etrecord"), "--allow-fingerprint-mismatch"});
  EXPECT_THAT(allowed.status, IsOk());
  EXPECT_NE(allowed.out.find("error: fingerprint mismatch"), std::string::npos);
}

TEST_F(InspectCliTest, BaselineGivesPerOpDeltas) {
  const Outcome o = inspect({"--etdump", path("string.etdp"), "--etrecord", path("string.etrecord"),
                             "--baseline", path("string.etdp"), "--format", "csv"});
  ASSERT_THAT(o.status, IsOk());
  EXPECT_EQ(o.out.rfind("label,debug_handles,in_baseline,in_current", 0), 0u);
  EXPECT_NE(o.out.find("tan,5,true,true"), std::string::npos);
}

TEST_F(InspectCliTest, ExecuTorchFileAloneAssumesNanoseconds) {
  const Outcome o =
      inspect({"--etdump", std::string(GLASSBOX_ETDUMP_FIXTURE_DIR) + "/executorch_style.etdp",
               "--view", "events"});
  ASSERT_THAT(o.status, IsOk());
  EXPECT_NE(o.out.find("ASSUMED nanoseconds"), std::string::npos);
  const Outcome overridden =
      inspect({"--etdump", std::string(GLASSBOX_ETDUMP_FIXTURE_DIR) + "/executorch_style.etdp",
               "--view", "events", "--time-unit", "us"});
  EXPECT_NE(overridden.out.find("unit given by --time-unit"), std::string::npos);
}

TEST_F(InspectCliTest, BadInputIsOneClearError) {
  const Outcome missing = inspect({"--etdump", path("nope.etdp")});
  EXPECT_THAT(missing.status, ErrorIs(Error::kAccessFailed));
  EXPECT_EQ(inspect({"--etdump", path("int.etdp"), "--format", "xml"}).exit_code, kExitUsage);
  EXPECT_EQ(inspect({"--etdump", path("int.etdp"), "--time-unit", "s"}).exit_code, kExitUsage);
  const Outcome skip_all = inspect({"--etdump", path("int.etdp"), "--skip-first", "3"});
  EXPECT_THAT(skip_all.status, ErrorIs(Error::kInvalidArgument));
}

// A cycle-counting backend's scale for a dump that records none: every
// delegate event's time scales by the ratio, nothing else moves.
TEST_F(InspectCliTest, DelegateTimeScaleOptionConvertsThatBackendsEvents) {
  const std::vector<std::string> base = {
      "--etdump", path("int.etdp"), "--etrecord", path("int.etrecord"),
      "--view",   "events",         "--format",   "json"};
  std::vector<std::string> scaled_args = base;
  scaled_args.insert(scaled_args.end(), {"--delegate-time-scale", "DemoBackend=1000/1"});
  const Outcome plain = inspect(base);
  const Outcome scaled = inspect(scaled_args);
  ASSERT_THAT(plain.status, IsOk());
  ASSERT_THAT(scaled.status, IsOk());
  const auto plain_json = nlohmann::json::parse(plain.out);
  const auto scaled_json = nlohmann::json::parse(scaled.out);
  const double ns_per_tick = plain_json["time"]["ns_per_tick"];
  EXPECT_EQ(scaled_json["time"]["delegate_scales"][0]["backend"], "DemoBackend");
  EXPECT_EQ(scaled_json["time"]["delegate_scales"][0]["source"], "option");
  ASSERT_EQ(plain_json["rows"].size(), scaled_json["rows"].size());
  // Rows are sorted by time, which the scale changes: match them by name.
  std::map<std::string, nlohmann::json> scaled_rows;
  for (const auto& row : scaled_json["rows"]) {
    scaled_rows[row["block"].get<std::string>() + "/" + row["name"].get<std::string>()] = row;
  }
  int delegate_rows = 0;
  for (const auto& before : plain_json["rows"]) {
    const auto& after = scaled_rows.at(before["block"].get<std::string>() + "/" +
                                       before["name"].get<std::string>());
    const double total = before["total_ns"];
    if (before["role"] == "delegate") {
      ++delegate_rows;
      EXPECT_EQ(after["time_scale"], "option");
      EXPECT_NEAR(after["total_ns"], total * 1000 / ns_per_tick, 1 + total * 1e-6);
    } else {
      EXPECT_EQ(after["time_scale"], "clock");
      EXPECT_EQ(after["total_ns"], before["total_ns"]);
    }
  }
  EXPECT_EQ(delegate_rows, 5);
}

TEST_F(InspectCliTest, BadDelegateTimeScaleIsAUsageError) {
  for (const std::vector<std::string>& scales : {std::vector<std::string>{"DemoBackend=4"},
                                                 {"DemoBackend=4/0"},
                                                 {"=4/1"},
                                                 {"DemoBackend=4/1", "DemoBackend=2/1"}}) {
    std::vector<const char*> argv = {"glassbox", "inspect", "--etdump", "never-opened.etdp"};
    for (const std::string& s : scales) {
      argv.push_back("--delegate-time-scale");
      argv.push_back(s.c_str());
    }
    std::ostringstream out, err;
    EXPECT_EQ(run_cli(static_cast<int>(argv.size()), argv.data(), out, err), kExitUsage)
        << scales[0];
    const bool explained = err.str().find("BACKEND=NUM/DEN") != std::string::npos ||
                           err.str().find("names backend 'DemoBackend' twice") != std::string::npos;
    EXPECT_TRUE(explained) << err.str();
  }
}

}  // namespace
}  // namespace glassbox::cli

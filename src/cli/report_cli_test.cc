// `glassbox report` end to end: the demo lowered with a fault in its cos
// (so tan's decomposition fails the numeric check), run twice with the
// real `glassbox lower` / `glassbox run`, then reported.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "src/cli/run_cli.h"
#include "src/testing/status_matchers.h"

namespace glassbox::cli {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using ::testing::HasSubstr;

Status report(std::vector<std::string> args) {
  args.insert(args.begin(), "report");
  const CommandLineOutcome result = run_command_line(args);
  if (!result.parsed) return Status(Error::kInvalidArgument, "command line not parsed");
  return result.status;
}

void glassbox(std::vector<std::string> args) {
  std::vector<const char*> argv = {"glassbox"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  EXPECT_EQ(run_cli(static_cast<int>(argv.size()), argv.data(), out, err), 0) << err.str();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The report data embedded in a page.
nlohmann::json embedded_data(const std::string& page) {
  const std::string open = "id=\"glassbox-data\">";
  const std::size_t begin = page.find(open);
  if (begin == std::string::npos) return nullptr;
  const std::size_t end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

class ReportCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_report_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    glassbox({"lower", "--model", "demo", "--backend", "demo", "-o", path("m.gbx"), "--etrecord",
              path("m.etrecord"), "--reference-seed", "7", "--perturb", "3"});
    glassbox({"run", path("m.gbx"), "--etdump", path("m.etdp"), "--iterations", "3",
              "--debug-level", "intermediates", "--debug-data", path("m.bin"), "--seed", "7"});
    glassbox({"run", path("m.gbx"), "--etdump", path("old.etdp"), "--iterations", "2"});
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }
  static std::filesystem::path dir_;
};
std::filesystem::path ReportCliTest::dir_;

TEST_F(ReportCliTest, WritesOnePageWithEveryPart) {
  ASSERT_THAT(report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "--debug-data",
                      path("m.bin"), "--baseline", path("old.etdp"), "-o", path("r.html")}),
              IsOk());
  const std::string page = read_text(path("r.html"));
  EXPECT_THAT(page, HasSubstr("<!doctype html>"));
  const nlohmann::json data = embedded_data(page);
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["summary"]["title"], "m");  // the ETRecord's file name
  EXPECT_EQ(data["summary"]["fingerprint"], "match");
  EXPECT_EQ(data["ops"].size(), 3u);
  EXPECT_EQ(data["timeline"]["chosen"], "median");
  // The fault is in cos: tan's decomposition is the first failure.
  const nlohmann::json& numeric = data["numeric"];
  ASSERT_TRUE(numeric["first_failure"].is_number());
  EXPECT_EQ(numeric["rows"][numeric["first_failure"].get<std::size_t>()]["label"], "tan");
  EXPECT_EQ(numeric["execution"], data["timeline"]["execution"]);
  EXPECT_EQ(data["baseline"]["rows"].size(), 3u);
}

TEST_F(ReportCliTest, TheGivenExecutionIsShownAndChecked) {
  ASSERT_THAT(report({"--etdump", path("m.etdp"), "--execution", "2", "--title", "demo", "-o",
                      path("e.html")}),
              IsOk());
  const nlohmann::json data = embedded_data(read_text(path("e.html")));
  EXPECT_EQ(data["timeline"]["execution"], 2);
  EXPECT_EQ(data["timeline"]["chosen"], "given");
  EXPECT_EQ(data["summary"]["title"], "demo");
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "--execution", "3", "-o", path("e.html")}),
              ErrorIs(Error::kInvalidArgument, {"has 3 executions"}));
}

TEST_F(ReportCliTest, RefusesToOverwriteAnInput) {
  const std::string before = read_text(path("m.etdp"));
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "-o", path("m.etdp")}),
              ErrorIs(Error::kInvalidArgument, {"both an input and an output"}));
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "--baseline", path("old.etdp"), "-o",
                      (dir_ / "." / "old.etdp").string()}),
              ErrorIs(Error::kInvalidArgument, {"both an input and an output"}));
  EXPECT_EQ(read_text(path("m.etdp")), before);
}

// A delegate time scale given on the command line reaches the page's
// delegated rows (the demo backend's), and a bad one is a usage error.
TEST_F(ReportCliTest, DelegateTimeScaleScalesTheDelegatedRows) {
  ASSERT_THAT(report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "-o",
                      path("plain.html")}),
              IsOk());
  ASSERT_THAT(report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"),
                      "--delegate-time-scale", "DemoBackend=1000/1", "-o", path("scaled.html")}),
              IsOk());
  const nlohmann::json plain = embedded_data(read_text(path("plain.html")));
  const nlohmann::json scaled = embedded_data(read_text(path("scaled.html")));
  ASSERT_EQ(plain["ops"].size(), scaled["ops"].size());
  std::map<std::string, double> plain_mean;
  for (const auto& op : plain["ops"]) plain_mean[op["label"]] = op["mean"];
  std::size_t delegated = 0;
  for (const auto& op : scaled["ops"]) {
    if (op["backend"] != "DemoBackend") continue;
    ++delegated;
    EXPECT_GT(op["mean"].get<double>(), plain_mean.at(op["label"])) << op["label"];
  }
  EXPECT_GT(delegated, 0u);
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "--delegate-time-scale", "DemoBackend=4/0", "-o",
                      path("x.html")}),
              ErrorIs(Error::kInvalidArgument, {"BACKEND=NUM/DEN"}));
}

TEST_F(ReportCliTest, ClearErrors) {
  EXPECT_THAT(
      report({"--etdump", path("m.etdp"), "--debug-data", path("m.bin"), "-o", path("x.html")}),
      ErrorIs(Error::kInvalidArgument, {"--debug-data needs --etrecord"}));
  EXPECT_THAT(report({"--etdump", path("missing.etdp"), "-o", path("x.html")}),
              ErrorIs(Error::kAccessFailed, {"missing.etdp"}));
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "-o", path("no/such/dir/x.html")}),
              ErrorIs(Error::kAccessFailed, {"x.html: cannot write"}));
  EXPECT_FALSE(std::filesystem::exists(path("x.html")));
}

TEST_F(ReportCliTest, CompareAddsThePerLayerComparisonWithAnotherProgram) {
  // The same model on the portable kernels: its three ops joined by name
  // with the delegate's fused rows and tan.
  glassbox({"lower", "--model", "demo", "--backend", "portable", "-o", path("p.gbx"), "--etrecord",
            path("p.etrecord")});
  glassbox({"run", path("p.gbx"), "--etdump", path("p.etdp"), "--iterations", "2"});
  ASSERT_THAT(
      report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "--compare",
              path("p.etdp"), "--compare-etrecord", path("p.etrecord"), "-o", path("c.html")}),
      IsOk());
  const nlohmann::json data = embedded_data(read_text(path("c.html")));
  ASSERT_TRUE(data.is_object());
  const nlohmann::json& compare = data["compare"];
  EXPECT_EQ(compare["join"], "names");
  EXPECT_EQ(compare["name_b"], path("p.etdp"));
  std::vector<std::string> labels;
  for (const nlohmann::json& row : compare["rows"]) {
    labels.push_back(row["label"]);
    EXPECT_EQ(row["backend_a"], "DemoBackend");
    EXPECT_EQ(row["backend_b"], "");  // portable kernels
    EXPECT_TRUE(row["a"].is_number() && row["b"].is_number());
  }
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"conv2d+relu", "conv2d_1+relu_1", "tan"}));
  EXPECT_TRUE(compare["only_a"].empty());
  EXPECT_TRUE(compare["only_b"].empty());
  // The graph needs only --etrecord; the page without --compare has no comparison.
  EXPECT_EQ(data["graph"]["nodes"].size(), 5u);
  ASSERT_THAT(
      report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "-o", path("nc.html")}),
      IsOk());
  EXPECT_FALSE(embedded_data(read_text(path("nc.html"))).contains("compare"));
}

TEST_F(ReportCliTest, CompareNeedsBothFilesAndAnETRecord) {
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "--compare",
                      path("old.etdp"), "-o", path("x.html")}),
              ErrorIs(Error::kInvalidArgument, {"--compare and --compare-etrecord go together"}));
  EXPECT_THAT(report({"--etdump", path("m.etdp"), "--compare", path("old.etdp"),
                      "--compare-etrecord", path("m.etrecord"), "-o", path("x.html")}),
              ErrorIs(Error::kInvalidArgument, {"--compare needs --etrecord"}));
  // A dump of another program than its ETRecord's is refused, naming it.
  EXPECT_THAT(
      report({"--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "--compare",
              path("old.etdp"), "--compare-etrecord", path("p.etrecord"), "-o", path("x.html")}),
      ErrorIs(Error::kMismatch, {"old.etdp"}));
  EXPECT_FALSE(std::filesystem::exists(path("x.html")));
}

TEST_F(ReportCliTest, DemoWritesItsReport) {
  glassbox({"demo", "--out", path("demo"), "--iterations", "2"});
  const nlohmann::json data = embedded_data(read_text(path("demo/demo.html")));
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data["summary"]["title"], "ConvReLUTanModel");
  EXPECT_EQ(data["ops"].size(), 3u);
}

}  // namespace
}  // namespace glassbox::cli

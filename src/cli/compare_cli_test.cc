// `glassbox compare` on real programs: tiny_cnn lowered to XNNPACK and to
// the portable kernels (joined by name), the int8 qdq_conv_relu against its
// float twin (joined by structure), and the files it refuses.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/cli/cli_test_util.h"

namespace glassbox::cli {
namespace {

const std::string kOnnx = std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/";

class CompareCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_compare_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    lower_and_run("tiny_cnn.onnx", "xnnpack", "tiny_cnn.input.npy", "cnn_x");
    lower_and_run("tiny_cnn.onnx", "portable", "tiny_cnn.input.npy", "cnn_p");
    lower_and_run("quant/qdq_conv_relu.onnx", "portable", "quant/qdq_conv_relu.input.npy", "int8");
    lower_and_run("quant/qdq_conv_relu_float.onnx", "portable", "quant/qdq_conv_relu.input.npy",
                  "float");
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }

  // <name>.etrecord and <name>.etdp (three executions) of `model` on `backend`.
  static void lower_and_run(const std::string& model, const std::string& backend,
                            const std::string& input, const std::string& name) {
    const CliResult lowered =
        run_glassbox({"lower", kOnnx + model, "--backend", backend, "-o", path(name + ".gbx"),
                      "--etrecord", path(name + ".etrecord")});
    ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
    const CliResult ran = run_glassbox({"run", path(name + ".gbx"), "--input", kOnnx + input,
                                        "--etdump", path(name + ".etdp"), "--iterations", "3"});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  static CliResult compare(const std::string& a, const std::string& b,
                           std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"compare", path(a + ".etdp"), path(a + ".etrecord"),
                                     path(b + ".etdp"), path(b + ".etrecord")};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_glassbox(args);
  }

  static std::filesystem::path dir_;
};
std::filesystem::path CompareCliTest::dir_;

TEST_F(CompareCliTest, TwoBackendsOfOneModelJoinByName) {
  const CliResult json = compare("cnn_x", "cnn_p", {"--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"join\": \"names\""), std::string::npos) << json.out;
  // The Gemm runs on both sides: one joined row with both times and a ratio.
  const std::size_t gemm = json.out.find("\"/fc/Gemm\"");
  ASSERT_NE(gemm, std::string::npos) << json.out;
  const std::size_t rows = json.out.find("\"rows\"");
  const std::size_t only_a = json.out.find("\"only_a\"");
  EXPECT_LT(rows, gemm);
  EXPECT_LT(gemm, only_a);
  EXPECT_NE(json.out.find("\"backend_a\": \"XnnpackBackend\""), std::string::npos) << json.out;
  const std::string row = json.out.substr(gemm, json.out.find('}', gemm) - gemm);
  EXPECT_NE(row.find("\"mean_ns_b\": "), std::string::npos) << row;
  EXPECT_EQ(row.find("\"ratio\": null"), std::string::npos) << row;

  const CliResult table = compare("cnn_x", "cnn_p");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  for (const char* part : {"ops joined by names", "per op, largest |B - A| first", "B/A",
                           "by module:", "by op type:", "conv2d"}) {
    EXPECT_NE(table.out.find(part), std::string::npos) << part << "\n" << table.out;
  }
}

TEST_F(CompareCliTest, Int8AndItsFloatTwinJoinByStructure) {
  const CliResult json = compare("int8", "float", {"--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"join\": \"structure\""), std::string::npos) << json.out;
  // A's conv and relu with B's differently named twins on one row.
  const std::size_t rows = json.out.find("\"rows\"");
  const std::size_t conv = json.out.find("\"/conv/Conv\"", rows);
  const std::size_t twin = json.out.find("\"/features/features.0/Conv\"", rows);
  const std::size_t only_a = json.out.find("\"only_a\"");
  ASSERT_NE(conv, std::string::npos) << json.out;
  ASSERT_NE(twin, std::string::npos) << json.out;
  EXPECT_LT(twin, only_a);
  // The input's quantize has no float twin: listed apart, A only.
  const std::size_t quantize = json.out.find("QuantizeLinear", only_a);
  EXPECT_NE(quantize, std::string::npos) << json.out;
  EXPECT_LT(quantize, json.out.find("\"only_b\"")) << json.out;
  EXPECT_NE(json.out.find("\"op_type\": \"quantize_linear\""), std::string::npos) << json.out;
}

TEST_F(CompareCliTest, CsvAndOutputFile) {
  const std::string out = path("cmp.csv");
  const CliResult csv = compare("int8", "float", {"--format", "csv", "-o", out});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(csv.out.empty());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("section,op_names,op_names_b,op_types,module,ops,", 0), 0u)
      << text.str();
  for (const char* section : {"\nop,", "\nonly_a,", "\nmodule,", "\ntype,"}) {
    EXPECT_NE(text.str().find(section), std::string::npos) << section << "\n" << text.str();
  }
}

TEST_F(CompareCliTest, BadInputsSayWhatIsWrongInOneLine) {
  // An ETDump given with another program's ETRecord.
  const CliResult swapped = run_glassbox({"compare", path("cnn_x.etdp"), path("cnn_p.etrecord"),
                                          path("cnn_p.etdp"), path("cnn_p.etrecord")});
  EXPECT_EQ(swapped.exit_code, 1);
  EXPECT_EQ(swapped.err, "glassbox: " + path("cnn_x.etdp") + ": not a run of the program of " +
                             path("cnn_p.etrecord") +
                             " (their fingerprints differ): give each ETDump followed by its "
                             "own program's ETRecord\n");
  const CliResult missing = run_glassbox({"compare", path("none.etdp"), path("cnn_x.etrecord"),
                                          path("cnn_p.etdp"), path("cnn_p.etrecord")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("none.etdp"), std::string::npos) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  // A file that is not an ETRecord, named once.
  const CliResult not_record = run_glassbox({"compare", path("cnn_x.etdp"), path("cnn_x.etdp"),
                                             path("cnn_p.etdp"), path("cnn_p.etrecord")});
  EXPECT_EQ(not_record.exit_code, 1);
  EXPECT_EQ(not_record.err, "glassbox: " + path("cnn_x.etdp") +
                                ": not an ETRecord (not a valid zip archive: Not a zip archive)\n");
  // Two different models: neither names nor structure match.
  const CliResult unrelated = compare("cnn_p", "int8");
  EXPECT_EQ(unrelated.exit_code, 1);
  EXPECT_NE(unrelated.err.find("not of one source model"), std::string::npos) << unrelated.err;
  EXPECT_EQ(std::count(unrelated.err.begin(), unrelated.err.end(), '\n'), 1) << unrelated.err;
  // Usage: three files, an unknown format, the output over an input.
  EXPECT_EQ(
      run_glassbox({"compare", path("cnn_x.etdp"), path("cnn_x.etrecord"), path("cnn_p.etdp")})
          .exit_code,
      2);
  EXPECT_EQ(compare("cnn_x", "cnn_p", {"--format", "chrome"}).exit_code, 2);
  EXPECT_EQ(compare("cnn_x", "cnn_p", {"-o", path("cnn_p.etdp")}).exit_code, 2);
}

TEST_F(CompareCliTest, HelpExplainsTheJoin) {
  const CliResult help = run_glassbox({"compare", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* part : {"A.etdp A.etrecord B.etdp B.etrecord", "else by\nstructure", "--format",
                           "docs/inspector.md"}) {
    EXPECT_NE(help.out.find(part), std::string::npos) << part << "\n" << help.out;
  }
}

}  // namespace
}  // namespace glassbox::cli

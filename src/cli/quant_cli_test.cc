// Int8 models on the command line: lower --float-model / --keep-float and
// inspect --view quant, on the QDQ test models of testdata/onnx/quant, with
// their usage errors (exit 2) and refusals (exit 1, one line).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "src/cli/cli_test_util.h"

namespace glassbox::cli {
namespace {

const std::string kQuant = std::string(GLASSBOX_TESTDATA_DIR) + "/onnx/quant/";

class QuantCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_quant_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }

  // lower + run (intermediates) of a test model; extra lower arguments.
  static void lower_and_run(const std::string& model, std::vector<std::string> extra = {}) {
    std::vector<std::string> lower = {"lower",
                                      kQuant + model + ".onnx",
                                      "--backend",
                                      "portable",
                                      "-o",
                                      path("m.gbx"),
                                      "--etrecord",
                                      path("m.etrecord"),
                                      "--reference-inputs",
                                      kQuant + model + ".input.npy"};
    lower.insert(lower.end(), extra.begin(), extra.end());
    const CliResult lowered = run_glassbox(lower);
    ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
    const CliResult ran = run_glassbox({"run", path("m.gbx"), "--etdump", path("m.etdp"), "--input",
                                        kQuant + model + ".input.npy", "--debug-level",
                                        "intermediates", "--debug-data", path("m.bin")});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  static CliResult quant_view(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"inspect",     "--etdump",         path("m.etdp"),
                                     "--etrecord",  path("m.etrecord"), "--debug-data",
                                     path("m.bin"), "--view",           "quant"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_glassbox(args);
  }

  static std::filesystem::path dir_;
};
std::filesystem::path QuantCliTest::dir_;

TEST_F(QuantCliTest, TheQuantViewListsEveryQuantizedOpWorstFirst) {
  lower_and_run("qdq_conv_relu");
  const CliResult table = quant_view();
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("isolated dB"), std::string::npos) << table.out;
  const CliResult json = quant_view({"--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const char* field : {"\"sqnr_db\"", "\"quant_sqnr_db\"", "\"kernel_sqnr_db\"",
                            "\"isolated_sqnr_db\"", "\"max_error_steps\"", "\"clipped_fraction\"",
                            "\"scale\"", "\"zero_point\"", "\"op_names\""}) {
    EXPECT_NE(json.out.find(field), std::string::npos) << field;
  }
  // The conv and its fused relu are one row.
  EXPECT_NE(json.out.find("\"conv2d\",\n        \"relu\""), std::string::npos) << json.out;
}

TEST_F(QuantCliTest, KeepFloatLeavesTheNamedOpUnquantized) {
  lower_and_run("qdq_cnn_small");
  const CliResult before = quant_view({"--format", "csv"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("/pw/Conv/Conv"), std::string::npos);
  lower_and_run("qdq_cnn_small", {"--keep-float", "/pw/Conv/Conv"});
  const CliResult after = quant_view({"--format", "csv"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out.find("/pw/Conv/Conv"), std::string::npos) << after.out;
}

TEST_F(QuantCliTest, LowerCountsInt8AndFloatOperators) {
  const CliResult lowered = run_glassbox(
      {"lower", kQuant + "qdq_cnn_small.onnx", "--backend", "portable", "-o", path("c.gbx")});
  ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_NE(lowered.out.find("int8:         18 quantized operators (output int8), 0 float"),
            std::string::npos)
      << lowered.out;
  const CliResult kept = run_glassbox({"lower", kQuant + "qdq_cnn_small.onnx", "--backend",
                                       "portable", "-o", path("c.gbx"), "--keep-float", "fc"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.out.find("17 quantized operators (output int8), 1 float"), std::string::npos)
      << kept.out;
}

TEST_F(QuantCliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(run_glassbox({"lower", kQuant + "qdq_conv_relu.onnx", "-o", path("u.gbx"),
                          "--float-model", kQuant + "qdq_conv_relu.onnx"})
                .exit_code,
            2);  // --float-model without reference inputs
  EXPECT_EQ(run_glassbox({"inspect", "--etdump", path("m.etdp"), "--view", "quant"}).exit_code,
            2);  // no --etrecord, no --debug-data
  EXPECT_EQ(
      run_glassbox({"inspect", "--etdump", path("m.etdp"), "--float-etdump", path("x")}).exit_code,
      2);  // --float-etdump outside the quant view
}

TEST_F(QuantCliTest, RefusalsNameTheCulprit) {
  const CliResult unknown =
      run_glassbox({"lower", kQuant + "qdq_conv_relu.onnx", "--backend", "portable", "-o",
                    path("k.gbx"), "--keep-float", "/no/such/op"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("'/no/such/op' names no operator"), std::string::npos) << unknown.err;
  EXPECT_FALSE(std::filesystem::exists(path("k.gbx")));
  // A float "twin" of another structure is refused, naming the operator.
  const CliResult twin = run_glassbox(
      {"lower", kQuant + "qdq_conv_relu.onnx", "--backend", "portable", "-o", path("t.gbx"),
       "--etrecord", path("t.etrecord"), "--reference-inputs", kQuant + "qdq_conv_relu.input.npy",
       "--float-model", kQuant + "qdq_cnn_small.onnx"});
  EXPECT_EQ(twin.exit_code, 1);
  EXPECT_NE(twin.err.find("does not align"), std::string::npos) << twin.err;
  EXPECT_NE(twin.err.find("qdq_cnn_small.onnx"), std::string::npos) << twin.err;
  EXPECT_FALSE(std::filesystem::exists(path("t.gbx")));
}

}  // namespace
}  // namespace glassbox::cli

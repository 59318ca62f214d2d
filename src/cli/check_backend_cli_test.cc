// `glassbox check-backend`: exit codes (0 all passed, 1 a rule failed, 2
// usage), both formats, -o written whole, and ExecuTorch's artifacts.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "src/cli/cli_test_util.h"

namespace glassbox::cli {
namespace {

using ::testing::HasSubstr;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CheckBackendCliTest, ABuiltInBackendPassesWithExitZero) {
  const CliResult result = run_glassbox({"check-backend", "--backend", "xnnpack"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("PASS  log_mode.posttime"));
  EXPECT_THAT(result.out, HasSubstr("INFO  hooks.cost"));
  EXPECT_THAT(result.out, HasSubstr("conformance: every rule passed\n"));
}

#ifdef GLASSBOX_ETDUMP_FIXTURE_DIR
const std::string kExecuTorchDump =
    std::string(GLASSBOX_ETDUMP_FIXTURE_DIR) + "/executorch_style.etdp";
const std::string kIntIds = std::string(GLASSBOX_TESTDATA_DIR) + "/executorch/int_ids.etrecord";

TEST(CheckBackendCliTest, ExecuTorchArtifactsMissingAnIdentifierFailWithExitOne) {
  // executorch_style.etdp logs "Fancy Fusion", which int_ids.etrecord's
  // map lacks (testdata/executorch/README.md).
  const CliResult result =
      run_glassbox({"check-backend", "--etdump", kExecuTorchDump, "--etrecord", kIntIds});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("FAIL  coverage.logged_in_map  \"Fancy Fusion\" logged at "
                                    "instruction 1 is not in the map"));
  EXPECT_EQ(result.err, "");
}

TEST(CheckBackendCliTest, JsonGoesToTheOutputFileWhole) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("glassbox_check_backend_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path report = dir / "report.json";
  const CliResult result = run_glassbox({"check-backend", "--etdump", kExecuTorchDump, "--etrecord",
                                         kIntIds, "--format", "json", "-o", report.string()});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(result.out, "");
  const std::string text = read_text(report);
  EXPECT_THAT(text, HasSubstr("\"passed\": false"));
  EXPECT_THAT(text, HasSubstr("\"rule\": \"coverage.logged_in_map\""));
  // Only the report: no temporary left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}
#endif

TEST(CheckBackendCliTest, UsageErrorsExitTwoWithOneLine) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check-backend"},
        std::vector<std::string>{"check-backend", "--backend", "demo", "--etdump", "x.etdp",
                                 "--etrecord", "x.etrecord"},
        std::vector<std::string>{"check-backend", "--etdump", "x.etdp"},
        std::vector<std::string>{"check-backend", "--backend", "no_such_backend"},
        std::vector<std::string>{"check-backend", "--backend", "demo", "--format", "csv"},
        std::vector<std::string>{"check-backend", "--backend", "demo", "--tolerance", "-1"}}) {
    const CliResult result = run_glassbox(args);
    EXPECT_EQ(result.exit_code, 2) << args.back() << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr("glassbox: "));
  }
}

TEST(CheckBackendCliTest, AnUnreadableDumpExitsOneNamingIt) {
  const CliResult result = run_glassbox({"check-backend", "--etdump", "/nonexistent/r.etdp",
                                         "--etrecord", "/nonexistent/m.etrecord"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("/nonexistent/r.etdp"));
}

}  // namespace
}  // namespace glassbox::cli

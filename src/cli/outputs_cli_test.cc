// Nothing lost and true exit codes, through run_cli(): a failed command
// leaves existing files as they were and no new ones; an output naming an
// input is refused; usage errors exit 2 and input errors exit 1.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/cli/cli_test_util.h"

namespace glassbox::cli {
namespace {

using ::testing::HasSubstr;

CliResult glassbox(std::vector<std::string> args) { return run_glassbox(std::move(args)); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class OutputsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("outputs_cli_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    const CliResult lowered = glassbox({"lower", "--backend", "demo", "-o", path("m.gbx"),
                                        "--etrecord", path("m.etrecord"), "--reference-seed", "3"});
    ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
  }
  // Per process: builds of other trees may run the same test at once.
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  std::filesystem::path dir_;
};

TEST_F(OutputsCliTest, AFailedRunLeavesEveryExistingOutputAsItWas) {
  const CliResult good =
      glassbox({"run", path("m.gbx"), "--etdump", path("m.etdp"), "--debug-level", "intermediates",
                "--debug-data", path("m.bin"), "--seed", "3"});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const std::string etdump = slurp(path("m.etdp"));
  const std::string debug_data = slurp(path("m.bin"));
  ASSERT_FALSE(debug_data.empty());
  const std::vector<std::string> before = files();
  std::ofstream(path("bad.npy")) << "not a numpy file";
  const CliResult bad =
      glassbox({"run", path("m.gbx"), "--etdump", path("m.etdp"), "--debug-level", "intermediates",
                "--debug-data", path("m.bin"), "--input", path("bad.npy"), "-o", path("out.npy")});
  EXPECT_EQ(bad.exit_code, kExitBadInput) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("bad.npy"));
  EXPECT_EQ(slurp(path("m.etdp")), etdump);
  EXPECT_EQ(slurp(path("m.bin")), debug_data) << "was truncated to 0 bytes before";
  std::vector<std::string> after = before;
  after.push_back("bad.npy");
  std::sort(after.begin(), after.end());
  EXPECT_EQ(files(), after) << "no temporary or new file is left";
}

// A write error (a file-size limit here, as a full disk would give) names
// the user's file, not the hidden temporary it was being written as. The
// limit is set in a child process; its messages come back through a pipe.
TEST_F(OutputsCliTest, WriteErrorsNameTheOutputNotItsTemporary) {
  ASSERT_EQ(glassbox({"run", path("m.gbx"), "--etdump", path("m.etdp")}).exit_code, 0);
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"big.gbx", {"lower", "--backend", "demo", "-o", path("big.gbx")}},
      {"big.etdp", {"run", path("m.gbx"), "--etdump", path("big.etdp")}},
      {"big.txt",
       {"inspect", "--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "-o",
        path("big.txt")}},
      {"big.html",
       {"report", "--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"), "-o",
        path("big.html")}}};
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::signal(SIGXFSZ, SIG_IGN);  // A write past the limit then fails with EFBIG.
    const rlimit small{64, 64};
    if (::setrlimit(RLIMIT_FSIZE, &small) != 0) ::_exit(1);
    std::string report;
    for (const auto& [output, args] : commands) {
      const CliResult r = run_glassbox(args);
      report += std::to_string(r.exit_code) + " " + r.err;
    }
    const bool sent =
        ::write(pipe_fds[1], report.data(), report.size()) == static_cast<ssize_t>(report.size());
    ::_exit(sent ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string report;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) report.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << report;
  std::istringstream lines(report);
  std::string line;
  for (const auto& [output, args] : commands) {
    ASSERT_TRUE(std::getline(lines, line)) << report;
    EXPECT_THAT(line, ::testing::StartsWith("1 glassbox: ")) << args.front();
    EXPECT_THAT(line, HasSubstr(path(output))) << line;
    EXPECT_THAT(line, ::testing::Not(HasSubstr(".partial"))) << line;
  }
  EXPECT_FALSE(std::getline(lines, line)) << "one line per command: " << report;
  for (const std::string& name : files()) {
    EXPECT_EQ(name.find(".partial"), std::string::npos) << name;
  }
}

TEST_F(OutputsCliTest, ProfilingLevelNoneWritesOneEmptyBlockPerExecution) {
  const std::map<std::string, std::string> levels = {
      {"all", ""}, {"method", "1 event,"}, {"none", "0 events,"}};
  for (const auto& [level, per_run] : levels) {
    SCOPED_TRACE(level);
    const std::string dump = path(level + ".etdp");
    const CliResult r = glassbox(
        {"run", path("m.gbx"), "--etdump", dump, "--iterations", "2", "--profiling-level", level});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const CliResult shown = glassbox({"etdump", "show", dump});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_THAT(shown.out, HasSubstr("run 2 \"Execute\""));
    if (!per_run.empty()) {
      EXPECT_THAT(shown.out, HasSubstr("run 1 \"Execute\": " + per_run));
      EXPECT_THAT(shown.out, HasSubstr("run 2 \"Execute\": " + per_run));
    }
    EXPECT_EQ(shown.out.find("Method::execute") == std::string::npos, level == "none");
    EXPECT_EQ(shown.out.find("DELEGATE_CALL") == std::string::npos, level != "all");
  }
}

TEST_F(OutputsCliTest, AFailedLowerWritesNeitherProgramNorETRecord) {
  std::ofstream(path("ref.npy")) << "garbage";
  const CliResult r = glassbox({"lower", "--backend", "demo", "-o", path("new.gbx"), "--etrecord",
                                path("new.etrecord"), "--reference-inputs", path("ref.npy")});
  EXPECT_EQ(r.exit_code, kExitBadInput) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("new.gbx")));
  EXPECT_FALSE(std::filesystem::exists(path("new.etrecord")));
}

TEST_F(OutputsCliTest, AnOutputThatIsAnInputIsRefusedBeforeAnythingIsWritten) {
  const std::string program = slurp(path("m.gbx"));
  const CliResult run = glassbox({"run", path("m.gbx"), "--etdump", path("m.gbx")});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("both an input and an output"));
  EXPECT_EQ(slurp(path("m.gbx")), program);
  // Spelled another way, the same file.
  const CliResult lower = glassbox(
      {"lower", path("m.gbx"), "-o", (dir_ / "." / "m.gbx").string(), "--backend", "portable"});
  EXPECT_EQ(lower.exit_code, kExitUsage);
  EXPECT_EQ(slurp(path("m.gbx")), program);
  ASSERT_EQ(glassbox({"run", path("m.gbx"), "--etdump", path("m.etdp")}).exit_code, 0);
  const std::string etdump = slurp(path("m.etdp"));
  const CliResult inspect = glassbox({"inspect", "--etdump", path("m.etdp"), "-o", path("m.etdp")});
  EXPECT_EQ(inspect.exit_code, kExitUsage);
  EXPECT_EQ(slurp(path("m.etdp")), etdump);
  const CliResult expect = glassbox({"run", path("m.gbx"), "--etdump", path("e.etdp"), "--expect",
                                     path("y.npy"), "-o", path("y.npy")});
  EXPECT_EQ(expect.exit_code, kExitUsage) << "compared the output with itself before";
}

TEST_F(OutputsCliTest, ExitCodesSayWhoseFaultItIs) {
  // A missing input file is the input's fault, for every command.
  EXPECT_EQ(glassbox({"run", path("missing.gbx"), "--etdump", path("x.etdp")}).exit_code,
            kExitBadInput);
  EXPECT_EQ(glassbox({"lower", path("missing.onnx"), "-o", path("x.gbx")}).exit_code,
            kExitBadInput);
  EXPECT_EQ(glassbox({"inspect", "--etdump", path("missing.etdp")}).exit_code, kExitBadInput);
  // Content the command cannot use is the input's fault too.
  std::ofstream(path("junk.onnx")) << "not a model";
  EXPECT_EQ(glassbox({"lower", path("junk.onnx"), "-o", path("x.gbx")}).exit_code, kExitBadInput);
  // The command line's own mistakes are usage errors.
  const CliResult nan = glassbox({"run", path("m.gbx"), "--etdump", path("x.etdp"), "--expect",
                                  path("y.npy"), "--tolerance", "nan"});
  EXPECT_EQ(nan.exit_code, kExitUsage);
  EXPECT_THAT(nan.err, HasSubstr("--tolerance"));
  EXPECT_EQ(glassbox({"run", path("m.gbx"), "--etdump", path("x.etdp"), "--rtol", "-1"}).exit_code,
            kExitUsage);
  EXPECT_EQ(
      glassbox({"lower", "--backend", "portable", "--perturb", "1", "-o", path("x.gbx")}).exit_code,
      kExitUsage);
  // A fault on an identifier no delegate has would hit nothing: refused by
  // the exporter's check, nothing written.
  const CliResult lost =
      glassbox({"lower", "--backend", "demo", "--perturb", "77", "-o", path("x.gbx")});
  EXPECT_NE(lost.exit_code, 0);
  EXPECT_THAT(lost.err, HasSubstr("--perturb 77: no delegate operator has this identifier"));
  EXPECT_EQ(glassbox({"inspect", "--etdump", path("m.etdp"), "--numeric"}).exit_code, kExitUsage);
  EXPECT_FALSE(std::filesystem::exists(path("x.gbx")));
  EXPECT_FALSE(std::filesystem::exists(path("x.etdp")));
}

// Malformed option values are the command line's mistake (exit 2), found
// before any file is read or written; they exited 1 before.
TEST_F(OutputsCliTest, MalformedOptionValuesAreUsageErrors) {
  const std::vector<std::string> run = {"run",          path("m.gbx"),   "--etdump",
                                        path("x.etdp"), "--debug-level", "intermediates"};
  for (const std::vector<std::string>& capture : {std::vector<std::string>{"--capture-ids", "9:2"},
                                                  {"--capture-ids", "-5:3"},
                                                  {"--capture-ids", "5"},
                                                  {"--capture-names", ""}}) {
    std::vector<std::string> args = run;
    args.insert(args.end(), capture.begin(), capture.end());
    const CliResult r = glassbox(args);
    EXPECT_EQ(r.exit_code, kExitUsage) << capture[0] << " " << capture[1] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(capture[0]));
  }
  for (const char* pattern : {"{", "{}", "{a}/{a}", "runs/*.etdp"}) {
    for (const std::string command : {"inspect", "export"}) {
      const CliResult r =
          glassbox({command, "--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"),
                    "--tag-from-path", pattern, "-o", path("x.csv")});
      EXPECT_EQ(r.exit_code, kExitUsage) << command << " " << pattern << ": " << r.err;
      EXPECT_THAT(r.err, HasSubstr("--tag-from-path"));
    }
  }
  // A NaN threshold failed nothing, so --fail-on-exceed never fired.
  const CliResult inspect = glassbox({"inspect", "--etdump", path("m.etdp"), "--etrecord",
                                      path("m.etrecord"), "--numeric", "--debug-data",
                                      path("m.bin"), "--threshold", "nan", "--fail-on-exceed"});
  EXPECT_EQ(inspect.exit_code, kExitUsage) << inspect.err;
  EXPECT_THAT(inspect.err, HasSubstr("--threshold"));
  const CliResult report =
      glassbox({"report", "--etdump", path("m.etdp"), "--etrecord", path("m.etrecord"),
                "--debug-data", path("m.bin"), "--threshold", "nan", "-o", path("x.html")});
  EXPECT_EQ(report.exit_code, kExitUsage) << report.err;
  EXPECT_THAT(report.err, HasSubstr("--threshold"));
  EXPECT_FALSE(std::filesystem::exists(path("x.etdp")));
  EXPECT_FALSE(std::filesystem::exists(path("x.csv")));
  EXPECT_FALSE(std::filesystem::exists(path("x.html")));
}

// An .npy input is recognised by its extension in any case, or by its magic
// bytes whatever its name (not read as raw float32 bytes).
TEST_F(OutputsCliTest, NpyInputsAreRecognisedByExtensionCaseOrMagic) {
  ASSERT_EQ(glassbox({"run", path("m.gbx"), "--etdump", path("a.etdp"), "--seed", "3", "-o",
                      path("x.npy")})
                .exit_code,
            0);
  std::filesystem::copy_file(path("x.npy"), path("X.NPY"));
  std::filesystem::copy_file(path("x.npy"), path("x.input"));
  // Output 0 is not input 0's shape: read as .npy, the shapes are named;
  // read as raw float32 bytes, the byte count would be.
  for (const char* name : {"X.NPY", "x.input"}) {
    const CliResult r =
        glassbox({"run", path("m.gbx"), "--etdump", path("c.etdp"), "--input", path(name)});
    EXPECT_EQ(r.exit_code, kExitBadInput) << name;
    EXPECT_THAT(r.err, HasSubstr("does not match input 0")) << name;
  }
}

TEST_F(OutputsCliTest, NumericNeedsTheRunsOwnDebugDataAndCanFailTheCommand) {
  ASSERT_EQ(glassbox({"lower", "--backend", "demo", "--perturb", "3", "-o", path("f.gbx"),
                      "--etrecord", path("f.etrecord"), "--reference-seed", "3"})
                .exit_code,
            0);
  const CliResult ran = glassbox({"run", path("f.gbx"), "--etdump", path("f.etdp"), "--debug-level",
                                  "intermediates", "--debug-data", path("f.bin"), "--seed", "3"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const std::vector<std::string> numeric = {"inspect",      "--etdump",         path("f.etdp"),
                                            "--etrecord",   path("f.etrecord"), "--numeric",
                                            "--debug-data", path("f.bin")};
  const CliResult shown = glassbox(numeric);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr("first failure"));
  std::vector<std::string> failing = numeric;
  failing.push_back("--fail-on-exceed");
  const CliResult failed = glassbox(failing);
  EXPECT_EQ(failed.exit_code, kExitBadInput);
  EXPECT_THAT(failed.out, HasSubstr("first failure")) << "the report is still printed";
  // A truncated debug-data file is an error naming it, not "no operator
  // exceeds the threshold".
  const std::string data = slurp(path("f.bin"));
  std::ofstream(path("short.bin"), std::ios::binary) << data.substr(0, data.size() / 3);
  std::vector<std::string> truncated = numeric;
  truncated.back() = path("short.bin");
  const CliResult cut = glassbox(truncated);
  EXPECT_EQ(cut.exit_code, kExitBadInput) << cut.out;
  EXPECT_THAT(cut.err, HasSubstr("short.bin"));
}

}  // namespace
}  // namespace glassbox::cli

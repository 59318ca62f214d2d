// `glassbox inspect` over many dumps and `glassbox export`, end to end:
// the demo program lowered and run a few times with the real commands,
// plus a damaged dump and a dump of another program.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "glassbox/inspector/export_rows.h"
#include "src/cli/cli_test_util.h"
#include "src/cli/run_cli.h"

namespace glassbox::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class FleetCliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("glassbox_fleet_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "runs" / "pixel");
    fs::create_directories(dir_ / "runs" / "iphone");
    for (const char* ids : {"int", "string"}) {
      const std::string stem = path(ids);
      ASSERT_EQ(run_glassbox({"lower", "--model", "demo", "-o", stem + ".gbx", "--etrecord",
                              stem + ".etrecord", "--ids", ids})
                    .exit_code,
                0);
    }
    // Two dumps per device, 2 and 3 executions.
    int iterations = 2;
    for (const char* device : {"pixel", "iphone"}) {
      for (const char* name : {"a.etdp", "b.etdp"}) {
        ASSERT_EQ(run_glassbox({"run", path("int.gbx"), "--etdump",
                                (dir_ / "runs" / device / name).string(), "--iterations",
                                std::to_string(iterations++ % 2 + 2)})
                      .exit_code,
                  0);
      }
    }
    ASSERT_EQ(run_glassbox({"run", path("string.gbx"), "--etdump", path("other.etdp")}).exit_code,
              0);
    std::ofstream(path("damaged.etdp")) << "not an etdump";
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }
  static std::string runs() { return path("runs/*/*.etdp"); }
  static fs::path dir_;
};
fs::path FleetCliTest::dir_;

TEST_F(FleetCliTest, PoolsTheSamplesOfEveryDump) {
  const CliResult r = run_glassbox(
      {"inspect", "--etdump", runs(), "--etrecord", path("int.etrecord"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  // 2 + 3 + 2 + 3 executions, one sample each per op.
  EXPECT_EQ(doc["runs"]["executions"], 10);
  for (const nlohmann::json& row : doc["rows"]) EXPECT_EQ(row["count"], 10) << row["label"];
  EXPECT_NE(r.err.find("used 4 dumps, skipped 0"), std::string::npos) << r.err;
}

TEST_F(FleetCliTest, TheResultDoesNotDependOnTheThreads) {
  std::vector<std::string> args = {
      "inspect",  "--etdump", runs(),  "--etrecord", path("int.etrecord"),
      "--format", "csv",      "--jobs"};
  args.push_back("1");
  const CliResult one = run_glassbox(args);
  args.back() = "3";
  const CliResult three = run_glassbox(args);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, three.out);
}

TEST_F(FleetCliTest, GroupsByATagFromThePath) {
  const CliResult r = run_glassbox(
      {"inspect", "--etdump", runs(), "--etrecord", path("int.etrecord"), "--format", "csv",
       "--tag-from-path", "runs/{device}/*.etdp", "--group-by", "device", "--skip-first", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("device,", 0), 0u) << r.out;
  // Sorted by value; per device (2-1) + (3-1) executions used.
  EXPECT_NE(r.out.find("\niphone,"), std::string::npos);
  EXPECT_LT(r.out.find("\niphone,"), r.out.find("\npixel,"));
  EXPECT_NE(r.out.find(",3,3,"), std::string::npos) << r.out;
}

TEST_F(FleetCliTest, SidecarTagsJoinThePathTags) {
  std::ofstream(path("runs/pixel/a.etdp.json")) << R"({"app_version": "2.1"})";
  const std::string out = path("tagged.ndjson");
  const CliResult r =
      run_glassbox({"export", "--etdump", runs(), "--etrecord", path("int.etrecord"), "--rows",
                    "ops", "--tag-from-path", "runs/{device}/*.etdp", "-o", out});
  fs::remove(path("runs/pixel/a.etdp.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(out);
  EXPECT_NE(text.find(R"("tags":{"app_version":"2.1","device":"pixel"})"), std::string::npos);
  EXPECT_NE(text.find(R"("tags":{"device":"iphone"})"), std::string::npos);
}

TEST_F(FleetCliTest, ExportsOneOpRowPerExecutionInPathOrder) {
  const std::string out = path("ops.csv");
  const CliResult r =
      run_glassbox({"export", "--etdump", runs(), "--etrecord", path("int.etrecord"), "--rows",
                    "ops", "--format", "csv", "-o", out, "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(out);
  EXPECT_EQ(text.rfind("schema_version,dump,tags,run,op,", 0), 0u);
  // 3 op rows (conv+relu fused twice, tan) per execution, 10 executions.
  EXPECT_EQ(lines(text), 1u + 3 * 10);
  EXPECT_LT(text.find("runs/iphone/a.etdp"), text.find("runs/iphone/b.etdp"));
  EXPECT_LT(text.find("runs/iphone/b.etdp"), text.find("runs/pixel/a.etdp"));
}

TEST_F(FleetCliTest, ExportsEveryEventAsOneJsonLine) {
  const std::string out = path("events.ndjson");
  const CliResult r = run_glassbox({"export", "--etdump", path("runs/pixel"), "--etrecord",
                                    path("int.etrecord"), "--rows", "events", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream text(read_text(out));
  std::string line;
  std::size_t rows = 0, delegated = 0;
  while (std::getline(text, line)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    EXPECT_EQ(row["schema_version"], inspector::kExportSchemaVersion);
    delegated += row["delegated"].get<bool>() && !row["op_names"].empty();
    ++rows;
  }
  EXPECT_GT(rows, 0u);
  EXPECT_GT(delegated, 0u);
}

// A backend counting its own ticks: the rows of its delegate events are
// scaled and say so in time_scale; every other row is as without it.
TEST_F(FleetCliTest, ExportAppliesADelegateTimeScaleAndNamesIt) {
  std::vector<std::vector<nlohmann::json>> exports;
  for (const bool scaled : {false, true}) {
    const std::string out = path(scaled ? "scaled.ndjson" : "unscaled.ndjson");
    std::vector<std::string> args = {"export",
                                     "--etdump",
                                     path("runs/pixel/a.etdp"),
                                     "--etrecord",
                                     path("int.etrecord"),
                                     "--rows",
                                     "events",
                                     "-o",
                                     out};
    if (scaled) args.insert(args.end(), {"--delegate-time-scale", "DemoBackend=1000/1"});
    const CliResult r = run_glassbox(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream text(read_text(out));
    std::vector<nlohmann::json>& rows = exports.emplace_back();
    for (std::string line; std::getline(text, line);) rows.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(exports[0].size(), exports[1].size());
  std::size_t delegate_rows = 0;
  for (std::size_t i = 0; i < exports[0].size(); ++i) {
    const nlohmann::json &before = exports[0][i], &after = exports[1][i];
    ASSERT_EQ(before["event"], after["event"]);
    EXPECT_EQ(before["time_scale"], "clock");
    if (before["role"] == "delegate") {
      ++delegate_rows;
      EXPECT_EQ(after["time_scale"], "option");
      EXPECT_NE(after["duration_ns"], before["duration_ns"]);
    } else {
      EXPECT_EQ(after["time_scale"], "clock");
      EXPECT_EQ(after["duration_ns"], before["duration_ns"]);
    }
  }
  EXPECT_GT(delegate_rows, 0u);
  const CliResult bad =
      run_glassbox({"export", "--etdump", runs(), "--etrecord", path("int.etrecord"), "--rows",
                    "ops", "-o", path("never.csv"), "--delegate-time-scale", "DemoBackend=4/0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_FALSE(fs::exists(path("never.csv")));
}

TEST_F(FleetCliTest, SkipsDamagedDumpsAndOtherProgramsByName) {
  const CliResult r = run_glassbox({"inspect", "--etdump", runs(), path("damaged.etdp"),
                                    path("other.etdp"), "--etrecord", path("int.etrecord")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("skipped " + path("damaged.etdp") + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("skipped " + path("other.etdp") + ": "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fingerprint"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("used 4 dumps, skipped 2"), std::string::npos) << r.err;
}

TEST_F(FleetCliTest, StrictMakesABadDumpFatalAndLeavesNoOutput) {
  const std::string out = path("strict.ndjson");
  const CliResult r =
      run_glassbox({"export", "--etdump", runs(), path("damaged.etdp"), "--etrecord",
                    path("int.etrecord"), "--rows", "ops", "-o", out, "--strict"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_NE(r.err.find(path("damaged.etdp")), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find("strict.ndjson."), std::string::npos)
        << "temporary file left: " << e.path();
  }
}

TEST_F(FleetCliTest, OneLineForEachBadInput) {
  struct Case {
    std::string value;
    std::string fragment;
  };
  fs::create_directories(dir_ / "empty");
  for (const Case& c : {Case{path("nothing/*.etdp"), "matches no ETDump file"},
                        Case{path("empty"), "holds no *.etdp file"},
                        Case{path("missing.etdp"), "no such file or folder"}}) {
    const CliResult r =
        run_glassbox({"inspect", "--etdump", c.value, runs(), "--etrecord", path("int.etrecord")});
    EXPECT_EQ(r.exit_code, kExitBadInput) << c.value;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
  }
}

// -o onto a dump that a folder or glob matched, not a value given, would
// overwrite an input: refused as for a value given, by file identity (so
// also through a symlink or a ../ path), before anything is read.
TEST_F(FleetCliTest, AnOutputOntoADumpAFolderOrGlobMatchedIsRefused) {
  const std::string dump = path("runs/pixel/a.etdp");
  const std::string before = read_text(dump);
  fs::create_symlink(dump, path("link_to_a.etdp"));
  for (const std::string& out :
       {dump, path("runs/iphone/../pixel/a.etdp"), path("link_to_a.etdp")}) {
    for (const std::string& etdump : {runs(), path("runs/pixel")}) {
      for (const char* command : {"export", "inspect"}) {
        std::vector<std::string> args = {
            command, "--etdump", etdump, "--etrecord", path("int.etrecord"), "-o", out};
        if (std::string(command) == "export") args.insert(args.end(), {"--rows", "ops"});
        const CliResult r = run_glassbox(args);
        EXPECT_EQ(r.exit_code, kExitUsage) << command << " " << etdump << " -o " << out;
        EXPECT_NE(r.err.find("is both an input and an output"), std::string::npos) << r.err;
        EXPECT_EQ(lines(r.err), 1u) << r.err;
      }
    }
  }
  fs::remove(path("link_to_a.etdp"));
  EXPECT_EQ(read_text(dump), before);
  EXPECT_TRUE(fs::is_regular_file(dump));
}

// Runs `args` in a child process after `prepare` (in the child), calls
// `watch` with the child's pid, and returns how the child ended: its exit
// code, or 128 + the signal that killed it. The child's stderr goes to
// `err_file`.
int run_in_child(const std::vector<std::string>& args, const std::function<void()>& prepare,
                 const std::function<void(pid_t)>& watch, const std::string& err_file) {
  const pid_t child = ::fork();
  if (child == 0) {
    prepare();
    const CliResult r = run_glassbox(args);
    std::ofstream(err_file) << r.err;
    ::_exit(r.exit_code);
  }
  watch(child);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// --jobs above what the process may start threw std::system_error out of
// std::thread: std::terminate (exit 134), the partial output left behind.
// Here the child may start no thread at all (RLIMIT_NPROC 1; root is exempt,
// so it first becomes nobody): the export runs on its main thread.
TEST_F(FleetCliTest, JobsAboveTheThreadLimitRunOnTheThreadsThereAre) {
  const fs::path out_dir = dir_ / "nproc";
  fs::create_directories(out_dir);
  fs::permissions(out_dir, fs::perms::all);
  const std::vector<std::string> args = {"export",
                                         "--etdump",
                                         runs(),
                                         "--etrecord",
                                         path("int.etrecord"),
                                         "--rows",
                                         "ops",
                                         "--format",
                                         "csv",
                                         "--jobs",
                                         "8",
                                         "-o",
                                         (out_dir / "ops.csv").string()};
  const int code = run_in_child(
      args,
      [] {
        if (::geteuid() == 0 && ::setresuid(65534, 65534, 65534) != 0) ::_exit(100);
        const rlimit one_process{1, 1};
        if (::setrlimit(RLIMIT_NPROC, &one_process) != 0) ::_exit(101);
      },
      [](pid_t) {}, (out_dir / "err.txt").string());
  if (code == 100 || code == 101) GTEST_SKIP() << "cannot limit the child's threads";
  EXPECT_EQ(code, 0) << read_text(out_dir / "err.txt");
  std::vector<std::string> threaded = args;
  threaded.back() = path("threaded.csv");
  ASSERT_EQ(run_glassbox(threaded).exit_code, 0);
  EXPECT_EQ(read_text(out_dir / "ops.csv"), read_text(path("threaded.csv")));
  EXPECT_EQ(files_in(out_dir), (std::vector<std::string>{"err.txt", "ops.csv"}))
      << "no partial file";
  fs::remove_all(out_dir);
}

// Ctrl-C or SIGTERM during an export stops it, removes the partial output
// (the default action killed the process and left it) and exits 130.
TEST_F(FleetCliTest, AnInterruptedExportLeavesNoPartialFile) {
  // Enough dumps (links to one) that the export is still running when the
  // signal comes.
  fs::create_directories(dir_ / "many");
  for (int i = 0; i < 2000; ++i) {
    fs::create_hard_link(path("runs/pixel/a.etdp"), dir_ / "many" / (std::to_string(i) + ".etdp"));
  }
  const fs::path out_dir = dir_ / "interrupted";
  fs::create_directories(out_dir);
  for (const int signal : {SIGINT, SIGTERM}) {
    bool signalled = false;
    const int code = run_in_child(
        {"export", "--etdump", path("many"), "--etrecord", path("int.etrecord"), "--rows", "events",
         "--jobs", "1", "-o", (out_dir / "events.ndjson").string()},
        [] {},
        [&](pid_t child) {
          // Once the partial output exists, the export is under way.
          for (int waited_ms = 0; waited_ms < 60'000 && files_in(out_dir).empty(); ++waited_ms) {
            if (::waitpid(child, nullptr, WNOHANG) != 0) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          signalled = ::kill(child, signal) == 0;
        },
        path("interrupted.err"));
    ASSERT_TRUE(signalled) << "the export ended before it could be interrupted";
    EXPECT_EQ(code, kExitInterrupted) << signal;
    const std::string err = read_text(path("interrupted.err"));
    EXPECT_EQ(lines(err), 1u) << err;
    EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
    EXPECT_EQ(files_in(out_dir), std::vector<std::string>{}) << "partial output left";
  }
  fs::remove_all(dir_ / "many");
  fs::remove_all(out_dir);
}

TEST_F(FleetCliTest, AllDumpsSkippedIsAnError) {
  const CliResult r = run_glassbox({"inspect", "--etdump", path("damaged.etdp"), path("other.etdp"),
                                    "--etrecord", path("int.etrecord")});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_NE(r.err.find("no usable ETDump"), std::string::npos) << r.err;
}

TEST_F(FleetCliTest, OneDumpModesRefuseSeveralDumps) {
  const CliResult r =
      run_glassbox({"inspect", "--etdump", path("runs/pixel/a.etdp"), path("runs/pixel/b.etdp"),
                    "--baseline", path("runs/pixel/a.etdp")});
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_NE(r.err.find("read one ETDump"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace glassbox::cli

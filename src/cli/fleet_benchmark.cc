// Many dumps through the real commands, in-process: MB/s of ETDump input
// for `glassbox export` and `glassbox inspect` on 2 threads (--jobs 2), and
// peak memory of `inspect` over 10 to 10,000 dumps. Inputs are copies of
// dumps of the demo program written by `glassbox run`, in a temporary
// folder made once.

#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "src/cli/run_cli.h"

namespace glassbox::cli {
namespace {

namespace fs = std::filesystem;

int glassbox(std::vector<std::string> args) {
  args.insert(args.begin(), "glassbox");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  return run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
}

class Inputs {
 public:
  static Inputs& get() {
    static Inputs inputs;
    return inputs;
  }
  std::string etrecord() const { return (dir_ / "m.etrecord").string(); }

  // A folder of `count` copies of a dump of `iterations` executions, and
  // its total size in bytes.
  std::pair<std::string, std::uint64_t> dumps(int count, int iterations) {
    const fs::path folder = dir_ / ("d" + std::to_string(count) + "x" + std::to_string(iterations));
    const fs::path one = dir_ / ("t" + std::to_string(iterations) + ".etdp");
    if (!fs::exists(one)) {
      glassbox({"run", (dir_ / "m.gbx").string(), "--etdump", one.string(), "--iterations",
                std::to_string(iterations)});
    }
    if (!fs::exists(folder)) {
      fs::create_directories(folder);
      for (int i = 0; i < count; ++i) {
        fs::copy_file(one, folder / ("d" + std::to_string(100000 + i) + ".etdp"));
      }
    }
    return {folder.string(), static_cast<std::uint64_t>(count) * fs::file_size(one)};
  }

 private:
  Inputs()
      : dir_(fs::temp_directory_path() / ("glassbox_fleet_bench_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
    glassbox(
        {"lower", "--model", "demo", "-o", (dir_ / "m.gbx").string(), "--etrecord", etrecord()});
  }
  ~Inputs() { fs::remove_all(dir_); }
  fs::path dir_;
};

// 64 dumps of 200 executions each (input_mb says how much in all).
constexpr int kThroughputDumps = 64;
constexpr int kThroughputIterations = 200;

// Arguments: rows and format (0 ops rows in NDJSON, 1 events rows in
// NDJSON, 2 events rows in CSV), then 0 to write a new file (the previous
// output is removed, untimed) or 1 to replace the previous output: ext4
// then flushes the new file to disk at the rename (auto_da_alloc), a cost
// of the file system's policy that shows apart this way.
void BM_FleetExport2Threads(benchmark::State& state) {
  auto [folder, bytes] = Inputs::get().dumps(kThroughputDumps, kThroughputIterations);
  const bool csv = state.range(0) == 2;
  const bool replace = state.range(1) == 1;
  const std::string out = folder + (csv ? ".csv" : ".ndjson");
  for (auto _ : state) {
    if (!replace) {
      state.PauseTiming();
      std::error_code ignored;
      fs::remove(out, ignored);
      state.ResumeTiming();
    }
    if (glassbox({"export", "--etdump", folder, "--etrecord", Inputs::get().etrecord(), "--rows",
                  state.range(0) == 0 ? "ops" : "events", "--format", csv ? "csv" : "ndjson", "-o",
                  out, "--jobs", "2"}) != 0) {
      state.SkipWithError("export failed");
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["input_mb"] = static_cast<double>(bytes) / 1e6;
}

void BM_FleetInspect2Threads(benchmark::State& state) {
  auto [folder, bytes] = Inputs::get().dumps(kThroughputDumps, kThroughputIterations);
  for (auto _ : state) {
    if (glassbox({"inspect", "--etdump", folder, "--etrecord", Inputs::get().etrecord(), "--format",
                  "json", "--jobs", "2"}) != 0) {
      state.SkipWithError("inspect failed");
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["input_mb"] = static_cast<double>(bytes) / 1e6;
}

// Resident pages now (/proc/self/statm), in bytes.
double resident_bytes() {
  long size = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

// How much the peak resident memory of a fresh child process grows while
// it inspects: the child starts as a copy of this process, so its peak
// (getrusage maxrss) minus its resident size at the start is what the
// command added, whatever ran in this process before.
double peak_growth_mb(const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    const double start = resident_bytes();
    const int code = glassbox(args);
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const double growth = code == 0 ? static_cast<double>(usage.ru_maxrss) * 1024.0 - start : -1;
    if (::write(fds[1], &growth, sizeof growth) != sizeof growth) ::_exit(1);
    ::_exit(0);
  }
  ::close(fds[1]);
  double growth = -1;
  if (::read(fds[0], &growth, sizeof growth) != sizeof growth) growth = -1;
  ::close(fds[0]);
  ::waitpid(pid, nullptr, 0);
  return growth / 1e6;
}

// Peak memory of inspecting N one-execution dumps, measured in a child
// process (above); the time is the child's, fork included.
void BM_FleetInspectPeakMemory(benchmark::State& state) {
  auto [folder, bytes] = Inputs::get().dumps(static_cast<int>(state.range(0)), 1);
  double growth = 0;
  for (auto _ : state) {
    growth = peak_growth_mb({"inspect", "--etdump", folder, "--etrecord", Inputs::get().etrecord(),
                             "--format", "csv", "--jobs", "2"});
    if (growth < 0) state.SkipWithError("inspect failed");
  }
  state.counters["peak_growth_mb"] = growth;
  state.counters["input_mb"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_FleetInspectPeakMemory)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

// After the memory figures: the child processes there start as copies of
// this one, and a heap grown by these runs would hide their growth.
BENCHMARK(BM_FleetExport2Threads)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_FleetInspect2Threads)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace glassbox::cli

// Whole-model cost of profiling on real programs, measured so that it can
// be trusted on a busy machine: one loaded method executes in rounds, once
// per mode in each round (no tracer; ETDumpGen at profiling level none,
// method and all), so drift in the machine's load reaches every mode
// alike. The order of the modes rotates from round to round, so that no
// mode always runs after the same one. Each mode's median over the rounds
// is reported, and its overhead as the median of its per-round ratios to
// the no-tracer execution of the same round (a ratio of the two medians
// let drift between rounds through: level none read -1.4% to +1.8%).
// Small models get more rounds (each mode executes for about a second in
// all): a 0.4 ms encoder's median over 60 rounds moved by +-3% between runs.
//
// Programs: every *.gbx in the folder $GLASSBOX_OVERHEAD_PROGRAMS (for the
// zoo: `glassbox lower M.onnx --backend xnnpack -o DIR/M.gbx`); without it
// this program registers nothing.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runner/loaded_program.h"
#include "glassbox/runtime/method.h"

namespace glassbox::runner {
namespace {

constexpr int kMinRounds = 60;
constexpr int kMaxRounds = 5000;
constexpr double kSecondsPerMode = 1.0;

struct Mode {
  const char* name;
  bool traced;
  runtime::ProfilingLevel level;
};
constexpr Mode kModes[] = {{"no_tracer", false, runtime::ProfilingLevel::kNone},
                           {"none", true, runtime::ProfilingLevel::kNone},
                           {"method", true, runtime::ProfilingLevel::kMethodOnly},
                           {"all", true, runtime::ProfilingLevel::kAllEvents}};
constexpr std::size_t kNumModes = sizeof(kModes) / sizeof(kModes[0]);

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void run(benchmark::State& state, const std::string& path) {
  StatusOr<LoadedProgram> program = LoadedProgram::load_file(path);
  // The events' clock is `glassbox run`'s default, the TSC;
  // GLASSBOX_OVERHEAD_CLOCK=steady measures with `--clock steady`.
  etdump::ETDumpGenOptions options;
  const char* clock = std::getenv("GLASSBOX_OVERHEAD_CLOCK");
  const bool steady = clock != nullptr && std::string_view(clock) == "steady";
  options.clock = steady ? Clock::steady() : Clock::tsc();
  etdump::ETDumpGen gen(options);
  backends::RunSettings settings;
  settings.threads = 1;
  // GLASSBOX_OVERHEAD_DELEGATE_PROFILING=posttime|realtime: every
  // delegate's logging mode, as `glassbox run --delegate-profiling`.
  if (const char* mode = std::getenv("GLASSBOX_OVERHEAD_DELEGATE_PROFILING")) {
    settings.log_mode = runtime::delegate_log_mode_named(mode);
  }
  StatusOr<LoadedMethod> loaded = program.ok() ? program->load_method(&gen, settings)
                                               : StatusOr<LoadedMethod>(program.status());
  if (!loaded.ok()) {
    state.SkipWithError(loaded.status().message().c_str());
    return;
  }
  runtime::Method& method = loaded->method();
  for (std::size_t i = 0; i < method.num_inputs(); ++i) {
    const runtime::Tensor& t = method.input(i);
    if (t.dtype != ScalarType::kFloat) continue;  // ids and masks stay zero
    const std::vector<float> x(static_cast<std::size_t>(t.numel()), 0.5f);
    (void)method.set_input(i, x.data(), t.nbytes);
  }
  auto timed_execute = [&](std::size_t m, double* ms) {
    method.set_event_tracer(kModes[m].traced ? &gen : nullptr);
    gen.set_profiling_level(kModes[m].level);
    const auto start = std::chrono::steady_clock::now();
    const Status s = loaded->execute();
    const auto end = std::chrono::steady_clock::now();
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      return false;
    }
    *ms = std::chrono::duration<double, std::milli>(end - start).count();
    return true;
  };
  std::vector<double> ms[kNumModes];
  for (auto _ : state) {
    // Recorded executions first: the fastest of them sizes the rounds (the
    // first is slow, caches cold), and `glassbox run` reserves the storage
    // of later executions after its first, as here.
    double fastest_ms = 1e300;
    for (int warmup = 0; warmup < 5; ++warmup) {
      double t = 0;
      if (!timed_execute(kNumModes - 1, &t)) return;
      fastest_ms = std::min(fastest_ms, t);
    }
    const int rounds =
        static_cast<int>(std::clamp(kSecondsPerMode * 1000 / std::max(fastest_ms, 1e-3),
                                    double{kMinRounds}, double{kMaxRounds}));
    // Three traced modes a round, none recording more than `all` does.
    gen.reserve_like_last_block(3 * static_cast<std::size_t>(rounds));
    for (int round = 0; round < rounds; ++round) {
      for (std::size_t k = 0; k < kNumModes; ++k) {
        const std::size_t m = (k + static_cast<std::size_t>(round)) % kNumModes;
        double t = 0;
        if (!timed_execute(m, &t)) return;
        ms[m].push_back(t);
      }
    }
    state.counters["rounds"] = rounds;
  }
  for (std::size_t m = 0; m < kNumModes; ++m) {
    state.counters[std::string(kModes[m].name) + "_ms"] = median(ms[m]);
    if (m == 0) continue;
    // Paired within each round (the modes of a round run back to back), so
    // that the machine's drift between rounds cancels; the median of the
    // rounds' ratios then ignores the rounds a neighbour's burst hit.
    std::vector<double> ratios(ms[m].size());
    for (std::size_t r = 0; r < ratios.size(); ++r) ratios[r] = ms[m][r] / ms[0][r];
    state.counters[std::string(kModes[m].name) + "_overhead_pct"] = 100 * (median(ratios) - 1);
  }
}

const bool registered = [] {
  const char* dir = std::getenv("GLASSBOX_OVERHEAD_PROGRAMS");
  if (dir == nullptr) return false;
  std::vector<std::filesystem::path> programs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".gbx") programs.push_back(entry.path());
  }
  std::sort(programs.begin(), programs.end());
  for (const auto& p : programs) {
    benchmark::RegisterBenchmark(("BM_ProfilingOverhead/" + p.stem().string()).c_str(), run,
                                 p.string())
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
}  // namespace glassbox::runner

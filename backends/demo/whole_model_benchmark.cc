// Whole-model cost of tracing: the same program executed with no tracer,
// with ETDumpGen recording every event, and with ETDumpGen at method-only
// level. Built twice by `make bench`: normally, and with tracing compiled
// out (GLASSBOX_ENABLE_TRACING=OFF), where the same benchmark names carry
// the "compiled_out" mode. scripts/benchmarks_to_markdown.py reports each
// as a ratio to the null-tracer run of the same model.
//
// Models: the demo model (4x3x64x64, one demo delegate call) and a
// larger CNN on portable kernels (about 20 instructions).

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "backends/demo/runtime/demo_runtime.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/config.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"

namespace glassbox::backends::demo {
namespace {

using aot::GraphBuilder;
using aot::ValueId;

std::vector<float> random_values(std::size_t n, std::mt19937& rng, float scale) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A small ResNet-like CNN: stem conv, four conv/bn/relu stages with a
// residual add each, global pool, linear.
aot::Graph larger_cnn() {
  std::mt19937 rng(5);
  GraphBuilder b;
  ValueId x = b.input("image", ScalarType::kFloat, {1, 3, 112, 112});
  auto conv = [&](ValueId in, std::int64_t cin, std::int64_t cout, std::int64_t stride,
                  const std::string& name) {
    auto scope = b.module(name, "Conv2d");
    const ValueId w =
        b.constant(name + ".weight", {cout, cin, 3, 3},
                   random_values(static_cast<std::size_t>(cout * cin * 9), rng, 0.1f));
    const ValueId bias = b.constant(name + ".bias", {cout},
                                    random_values(static_cast<std::size_t>(cout), rng, 0.1f));
    return b.conv2d(in, w, bias, {.stride = {stride, stride}, .padding = {1, 1}});
  };
  x = b.relu(conv(x, 3, 32, 2, "stem"));
  std::int64_t channels = 32;
  for (int stage = 0; stage < 4; ++stage) {
    const std::string name = "layer" + std::to_string(stage + 1);
    auto scope = b.module(name, "BasicBlock");
    const ValueId y = b.relu(conv(x, channels, channels, 1, name + ".conv1"));
    x = b.relu(b.add(conv(y, channels, channels, 1, name + ".conv2"), x));
  }
  x = b.flatten(b.global_avg_pool2d(x), 1, -1);
  const ValueId w = b.constant("fc.weight", {10, channels},
                               random_values(static_cast<std::size_t>(10 * channels), rng, 0.1f));
  const ValueId bias = b.constant("fc.bias", {10}, random_values(10, rng, 0.1f));
  b.output(b.linear(x, w, bias));
  return std::move(b.build()).value();
}

std::vector<std::uint8_t> program_for(const std::string& model) {
  static DemoBackend backend;
  exporter::Recipe recipe;
  aot::Graph graph;
  if (model == "demo") {
    graph = std::move(build_conv_relu_tan_model()).value();
    recipe.partitioners.push_back(make_demo_partitioner(backend));
  } else {
    graph = larger_cnn();
  }
  return std::move(exporter::export_model(std::move(graph), recipe)).value().buffer();
}

enum class Mode { kNullTracer, kAllEvents, kMethodOnly };

void run(benchmark::State& state, const std::string& model, Mode mode) {
  (void)register_demo_backend_runtime();
  static const std::vector<std::uint8_t> demo = program_for("demo");
  static const std::vector<std::uint8_t> cnn = program_for("cnn");
  const std::vector<std::uint8_t>& bytes = model == "demo" ? demo : cnn;
  Result<runtime::Program> program = runtime::Program::load(bytes);
  etdump::ETDumpGen gen;
  gen.set_profiling_level(mode == Mode::kMethodOnly ? runtime::ProfilingLevel::kMethodOnly
                                                    : runtime::ProfilingLevel::kAllEvents);
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method = runtime::Method::load(
      *program, "forward", &memory, &temp, mode == Mode::kNullTracer ? nullptr : &gen);
  if (!program.ok() || !method.ok()) {
    state.SkipWithError("cannot load the program");
    return;
  }
  std::mt19937 rng(1);
  const runtime::Tensor& in = method->input(0);
  const std::vector<float> x = random_values(static_cast<std::size_t>(in.numel()), rng, 1.f);
  (void)method->set_input(0, x.data(), x.size() * sizeof(float));
  (void)method->execute();  // warm up caches and the temp allocator
  for (auto _ : state) {
    if (method->execute() != Error::kOk) state.SkipWithError("execute failed");
  }
  state.counters["events"] = static_cast<double>(gen.num_events());
  state.SetLabel(kTracingEnabled ? "" : "tracing compiled out");
}

void BM_WholeModel_demo_NullTracer(benchmark::State& s) { run(s, "demo", Mode::kNullTracer); }
void BM_WholeModel_demo_AllEvents(benchmark::State& s) { run(s, "demo", Mode::kAllEvents); }
void BM_WholeModel_demo_MethodOnly(benchmark::State& s) { run(s, "demo", Mode::kMethodOnly); }
void BM_WholeModel_cnn_NullTracer(benchmark::State& s) { run(s, "cnn", Mode::kNullTracer); }
void BM_WholeModel_cnn_AllEvents(benchmark::State& s) { run(s, "cnn", Mode::kAllEvents); }
void BM_WholeModel_cnn_MethodOnly(benchmark::State& s) { run(s, "cnn", Mode::kMethodOnly); }

BENCHMARK(BM_WholeModel_demo_NullTracer)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WholeModel_demo_AllEvents)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WholeModel_demo_MethodOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WholeModel_cnn_NullTracer)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WholeModel_cnn_AllEvents)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WholeModel_cnn_MethodOnly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace glassbox::backends::demo

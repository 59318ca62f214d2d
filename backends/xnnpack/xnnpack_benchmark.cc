// Whole-model speed of the XNNPACK delegate against the portable kernels,
// and the cost of its per-operator profiling. One benchmark per
//   model x {portable, xnnpack 1 thread, xnnpack 2 threads}
//         x {no tracer, ETDumpGen real-time events, ETDumpGen post-time events}
// ("no tracer" is profiling off). Models: ResNet-like (ResNet-18 layout,
// half width, 112x112) and MobileNet-like (xnnpack_test_models.h); ONNX
// zoo models are not used (none on this machine).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "backends/xnnpack/testing/xnnpack_test_models.h"
#include "backends/xnnpack/testing/xnnpack_test_runner.h"
#include "glassbox/etdump/etdump_gen.h"

namespace glassbox::backends::xnnpack {
namespace {

enum class Tracing { kOff, kRealTime, kPostTime };

aot::Graph graph_for(const std::string& model) {
  if (model == "resnet_like") {
    return std::move(build_resnet_like({.batch = 1, .image_size = 112, .base_channels = 32}))
        .value();
  }
  return std::move(build_mobile_like(1, 112)).value();
}

void run(benchmark::State& state, const std::string& model, int threads, Tracing tracing) {
  std::vector<aot::CompileSpec> specs = {aot::CompileSpec::from_string(
      runtime::kProfilingSpecKey, tracing == Tracing::kPostTime ? "posttime" : "realtime")};
  if (threads > 0) {
    specs.push_back(
        aot::CompileSpec::from_string(runtime::kThreadsSpecKey, std::to_string(threads)));
  }
  auto exported = testing::export_graph(graph_for(model), threads > 0, specs);
  if (!exported.ok() || register_xnnpack_backend_runtime() != Error::kOk) {
    state.SkipWithError("cannot export the model");
    return;
  }
  Result<runtime::Program> program = runtime::Program::load(exported->buffer());
  etdump::ETDumpGen gen;
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method = runtime::Method::load(*program, "forward", &memory, &temp,
                                                         tracing == Tracing::kOff ? nullptr : &gen);
  if (!program.ok() || !method.ok()) {
    state.SkipWithError("cannot load the program");
    return;
  }
  const std::vector<float> x =
      testing::random_values(static_cast<std::size_t>(method->input(0).numel()), 1);
  (void)method->set_input(0, x.data(), x.size() * sizeof(float));
  (void)method->execute();  // warm up: caches, the temp allocator, pool threads
  for (auto _ : state) {
    if (method->execute() != Error::kOk) state.SkipWithError("execute failed");
  }
  state.counters["events"] = static_cast<double>(gen.num_events());
}

const bool kRegistered = [] {
  for (const char* model : {"resnet_like", "mobile_like"}) {
    for (int threads : {0, 1, 2}) {
      for (Tracing tracing : {Tracing::kOff, Tracing::kRealTime, Tracing::kPostTime}) {
        if (threads == 0 && tracing == Tracing::kPostTime) continue;  // no delegate events
        const std::string name =
            std::string("BM_") + model + "/" +
            (threads == 0 ? "portable" : "xnnpack_t" + std::to_string(threads)) + "/" +
            (tracing == Tracing::kOff        ? "profiling_off"
             : tracing == Tracing::kRealTime ? "realtime"
                                             : "posttime");
        benchmark::RegisterBenchmark(name.c_str(),
                                     [=](benchmark::State& s) { run(s, model, threads, tracing); })
            ->Unit(benchmark::kMillisecond)
            ->MinTime(1.0)
            ->UseRealTime();
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace glassbox::backends::xnnpack

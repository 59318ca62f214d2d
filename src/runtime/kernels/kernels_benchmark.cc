#include <benchmark/benchmark.h>

#include <vector>

#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/gemm.h"

namespace glassbox::runtime::kernels {
namespace {

// Inputs only need to be finite and non-denormal; a constant fill keeps the
// benchmark independent of any RNG.
std::vector<float> filled(std::int64_t n, float v) {
  return std::vector<float>(static_cast<std::size_t>(n), v);
}

// FLOPs counted as 2 per multiply-add (the usual convention); the counter
// is a rate, so it prints as GFLOP/s.
void set_flops(benchmark::State& state, double flops_per_iter) {
  state.counters["GFLOP"] = benchmark::Counter(
      flops_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void run_conv(benchmark::State& state, Shape4 in, Shape4 w, Conv2dParams p) {
  const Shape4 out = *conv2d_output_shape(in, w, p);
  const auto x = filled(in.numel(), 0.5f);
  const auto wt = filled(w.numel(), 0.25f);
  const auto bias = filled(w.n, 0.1f);
  auto y = filled(out.numel(), 0.0f);
  std::vector<float> scratch(conv2d_scratch_bytes(in, w, p) / sizeof(float));
  for (auto _ : state) {
    Error e = conv2d(x.data(), in, wt.data(), w, bias.data(), p, y.data(),
                     scratch);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * static_cast<double>(out.numel()) *
                       static_cast<double>(w.c * w.h * w.w));
}

void BM_Conv2d3x3_64to64_56(benchmark::State& state) {
  Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  run_conv(state, {1, 64, 56, 56}, {64, 64, 3, 3}, p);
}
BENCHMARK(BM_Conv2d3x3_64to64_56)->Unit(benchmark::kMillisecond);

void BM_Conv2d1x1_64to256_56(benchmark::State& state) {
  run_conv(state, {1, 64, 56, 56}, {256, 64, 1, 1}, Conv2dParams{});
}
BENCHMARK(BM_Conv2d1x1_64to256_56)->Unit(benchmark::kMillisecond);

void BM_Depthwise3x3_128_56(benchmark::State& state) {
  Conv2dParams p;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.groups = 128;
  run_conv(state, {1, 128, 56, 56}, {128, 1, 3, 3}, p);
}
BENCHMARK(BM_Depthwise3x3_128_56)->Unit(benchmark::kMillisecond);

// A classifier head: [batch, 512] x [1000, 512]^T + bias.
void BM_Linear512x1000(benchmark::State& state) {
  const std::int64_t m = state.range(0);
  const std::int64_t k = 512;
  const std::int64_t n = 1000;
  const auto x = filled(m * k, 0.5f);
  const auto w = filled(n * k, 0.25f);
  const auto bias = filled(n, 0.1f);
  auto y = filled(m * n, 0.0f);
  std::vector<float> scratch(linear_scratch_bytes(m, n, k) / sizeof(float));
  for (auto _ : state) {
    Error e = linear(x.data(), m, k, w.data(), n, bias.data(), y.data(),
                     scratch);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * static_cast<double>(m * n * k));
}
BENCHMARK(BM_Linear512x1000)->Arg(1)->Arg(4)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace glassbox::runtime::kernels

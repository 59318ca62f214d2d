#include <benchmark/benchmark.h>

#include <vector>

#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "glassbox/runtime/kernels/gemm.h"
#include "glassbox/runtime/kernels/layer_norm.h"
#include "glassbox/runtime/kernels/normalization.h"

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
  state.counters["GFLOP"] =
      benchmark::Counter(flops_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void run_conv(benchmark::State& state, Shape4 in, Shape4 w, Conv2dParams p) {
  const Shape4 out = *conv2d_output_shape(in, w, p);
  const auto x = filled(in.numel(), 0.5f);
  const auto wt = filled(w.numel(), 0.25f);
  const auto bias = filled(w.n, 0.1f);
  auto y = filled(out.numel(), 0.0f);
  std::vector<float> scratch(conv2d_scratch_bytes(in, w, p) / sizeof(float));
  for (auto _ : state) {
    Error e = conv2d(x.data(), in, wt.data(), w, bias.data(), p, y.data(), scratch);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * static_cast<double>(out.numel()) * static_cast<double>(w.c * w.h * w.w));
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
    Error e = linear(x.data(), m, k, w.data(), n, bias.data(), y.data(), scratch);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * static_cast<double>(m * n * k));
}
BENCHMARK(BM_Linear512x1000)->Arg(1)->Arg(4)->Arg(64)->Unit(benchmark::kMicrosecond);

// ---- Transformer kernels at ViT-B/16 sizes (197 tokens, 12 heads of 64).

// Bytes read plus written per iteration, reported as GB/s: the memory-bound
// kernels are judged against bandwidth, not FLOPs.
void set_bytes(benchmark::State& state, double bytes_per_iter) {
  state.counters["GB"] =
      benchmark::Counter(bytes_per_iter * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void run_batched_matmul(benchmark::State& state, std::vector<std::int64_t> a_shape,
                        std::vector<std::int64_t> b_shape) {
  const std::vector<std::int64_t> out_shape{a_shape[0], a_shape[1], b_shape[2]};
  const auto a = filled(a_shape[0] * a_shape[1] * a_shape[2], 0.5f);
  const auto b = filled(b_shape[0] * b_shape[1] * b_shape[2], 0.25f);
  auto y = filled(out_shape[0] * out_shape[1] * out_shape[2], 0.0f);
  std::vector<float> scratch(matmul_scratch_bytes(a_shape, b_shape) / sizeof(float));
  for (auto _ : state) {
    Error e = matmul(a.data(), a_shape, b.data(), b_shape, y.data(), scratch);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * static_cast<double>(a_shape[0] * a_shape[1] * a_shape[2] * b_shape[2]));
}

// Attention scores: Q [12, 197, 64] x K^T [12, 64, 197].
void BM_AttentionScores(benchmark::State& state) {
  run_batched_matmul(state, {12, 197, 64}, {12, 64, 197});
}
BENCHMARK(BM_AttentionScores)->Unit(benchmark::kMillisecond);

// Attention context: P [12, 197, 197] x V [12, 197, 64].
void BM_AttentionContext(benchmark::State& state) {
  run_batched_matmul(state, {12, 197, 197}, {12, 197, 64});
}
BENCHMARK(BM_AttentionContext)->Unit(benchmark::kMillisecond);

void BM_SoftmaxAttention(benchmark::State& state) {
  const std::vector<std::int64_t> shape{1, 12, 197, 197};
  const std::int64_t n = 12 * 197 * 197;
  const auto x = filled(n, 0.5f);
  auto y = filled(n, 0.0f);
  for (auto _ : state) {
    Error e = softmax(x.data(), shape, 3, y.data());
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2.0 * 4.0 * static_cast<double>(n));
}
BENCHMARK(BM_SoftmaxAttention)->Unit(benchmark::kMicrosecond);

void BM_LayerNorm197x768(benchmark::State& state) {
  const std::int64_t rows = 197, cols = 768;
  const auto x = filled(rows * cols, 0.5f);
  const auto scale = filled(cols, 1.0f);
  const auto bias = filled(cols, 0.0f);
  auto y = filled(rows * cols, 0.0f);
  for (auto _ : state) {
    Error e = layer_norm(x.data(), rows, cols, scale.data(), bias.data(), 1e-6f, y.data());
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2.0 * 4.0 * static_cast<double>(rows * cols));
}
BENCHMARK(BM_LayerNorm197x768)->Unit(benchmark::kMicrosecond);

// The MLP activation of ViT-B: 197 x 3072 values through erf (the
// GELU PyTorch exports below opset 20) and through the fused gelu.
void BM_Erf197x3072(benchmark::State& state) {
  const std::int64_t n = 197 * 3072;
  const auto x = filled(n, 0.5f);
  auto y = filled(n, 0.0f);
  for (auto _ : state) {
    Error e = erf(x.data(), y.data(), n);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2.0 * 4.0 * static_cast<double>(n));
}
BENCHMARK(BM_Erf197x3072)->Unit(benchmark::kMicrosecond);

void BM_GeluErf197x3072(benchmark::State& state) {
  const std::int64_t n = 197 * 3072;
  const auto x = filled(n, 0.5f);
  auto y = filled(n, 0.0f);
  for (auto _ : state) {
    Error e = gelu_erf(x.data(), y.data(), n);
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2.0 * 4.0 * static_cast<double>(n));
}
BENCHMARK(BM_GeluErf197x3072)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace glassbox::runtime::kernels

// The memory-bound portable kernels (pooling, element-wise, concat,
// transpose), each beside a memcpy of the same number of bytes in the same
// run: the memcpy is the floor a kernel that only moves data can approach.
// Both report bytes read plus bytes written per second; the docs table
// pairs "<case>/kernel" with "<case>/memcpy" by name.

#include <benchmark/benchmark.h>

#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/pooling.h"
#include "glassbox/runtime/kernels/shape_ops.h"

namespace glassbox::runtime::kernels {
namespace {

using Dims64 = std::vector<std::int64_t>;

std::int64_t numel(const Dims64& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

// Finite, non-denormal values that differ, so max pooling has real choices.
std::vector<float> filled(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 251) * 0.01f - 1.0f;
  return v;
}

// A case: how many floats it reads and writes, and one call of the kernel.
struct Case {
  std::string name;
  std::int64_t floats_read;
  std::int64_t floats_written;
  std::function<Error()> run;
};

void run_kernel(benchmark::State& state, const Case& c) {
  for (auto _ : state) {
    Error e = c.run();
    benchmark::DoNotOptimize(e);
    benchmark::ClobberMemory();
    if (e != Error::kOk) {
      state.SkipWithError("kernel failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * (c.floats_read + c.floats_written) * 4);
}

// Copies half the case's traffic, so it reads and writes as many bytes as
// the kernel does in total.
void run_memcpy(benchmark::State& state, const Case& c) {
  const std::int64_t floats = (c.floats_read + c.floats_written) / 2;
  const std::vector<float> src = filled(floats);
  std::vector<float> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * sizeof(float));
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * floats * 2 * 4);
}

// Buffers live as long as the process: the cases are registered once.
struct Buffers {
  std::vector<std::vector<float>> all;
  std::deque<Dims64> shapes;  // a deque: references stay valid as it grows
  float* make(std::int64_t n) {
    all.push_back(filled(n));
    return all.back().data();
  }
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

Case pool_case(const char* name, bool is_max, Shape4 in, Pool2dParams p) {
  const Shape4 out = *pool2d_output_shape(in, p);
  const float* x = buffers().make(in.numel());
  float* y = buffers().make(out.numel());
  return {name, in.numel(), out.numel(),
          [=] { return is_max ? max_pool2d(x, in, p, y) : avg_pool2d(x, in, p, y); }};
}

Pool2dParams window(std::int64_t k, std::int64_t s, std::int64_t pad, bool ceil_mode) {
  Pool2dParams p;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = s;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.ceil_mode = ceil_mode;
  return p;
}

Case binary_case(const char* name, BinaryOp op, Dims64 a_shape, Dims64 b_shape) {
  const float* a = buffers().make(numel(a_shape));
  const float* b = buffers().make(numel(b_shape));
  float* y = buffers().make(numel(a_shape));
  const std::int64_t n = numel(a_shape);
  return {name, n + numel(b_shape), n, [=] { return binary(op, a, a_shape, b, b_shape, y); }};
}

Case unary_case(const char* name, std::int64_t n, Error (*op)(const float*, float*, std::int64_t)) {
  const float* x = buffers().make(n);
  float* y = buffers().make(n);
  return {name, n, n, [=] { return op(x, y, n); }};
}

Case concat_case(const char* name, const std::vector<Dims64>& shapes, std::int64_t axis) {
  std::vector<ConstTensor> inputs;
  std::int64_t total = 0;
  for (const Dims64& s : shapes) {
    const Dims64& kept = buffers().shapes.emplace_back(s);
    inputs.push_back({buffers().make(numel(s)), {kept.data(), kept.size()}});
    total += numel(s);
  }
  float* y = buffers().make(total);
  return {name, total, total, [=] { return concat({inputs.data(), inputs.size()}, axis, y); }};
}

Case transpose_case(const char* name, Dims64 shape, Dims64 perm) {
  const float* x = buffers().make(numel(shape));
  float* y = buffers().make(numel(shape));
  return {name, numel(shape), numel(shape), [=] { return transpose(x, shape, perm, y); }};
}

Error hardsigmoid_default(const float* x, float* y, std::int64_t n) {
  return hardsigmoid(x, y, n, 1.0f / 6.0f, 0.5f);
}

std::vector<Case> cases() {
  return {
      // squeezenet1_1's first pool and googlenet's, ceil_mode like theirs.
      pool_case("MaxPool3x3s2Ceil_64x111x111", true, {1, 64, 111, 111}, window(3, 2, 0, true)),
      pool_case("MaxPool3x3s2Ceil_64x112x112", true, {1, 64, 112, 112}, window(3, 2, 0, true)),
      // googlenet's inception pool branch: stride 1, padded.
      pool_case("MaxPool3x3s1Pad1_192x28x28", true, {1, 192, 28, 28}, window(3, 1, 1, true)),
      pool_case("AvgPool3x3s1Pad1_64x56x56", false, {1, 64, 56, 56}, window(3, 1, 1, false)),
      pool_case("AvgPool2x2s2_128x56x56", false, {1, 128, 56, 56}, window(2, 2, 0, false)),
      binary_case("AddSameShape_64x56x56", BinaryOp::kAdd, {1, 64, 56, 56}, {1, 64, 56, 56}),
      binary_case("MulPerChannel_64x56x56", BinaryOp::kMul, {1, 64, 56, 56}, {1, 64, 1, 1}),
      binary_case("AddRowBroadcast_197x768", BinaryOp::kAdd, {1, 197, 768}, {768}),
      unary_case("Relu_64x56x56", 64 * 56 * 56, relu),
      unary_case("HardSigmoid_64x56x56", 64 * 56 * 56, hardsigmoid_default),
      unary_case("HardSwish_64x56x56", 64 * 56 * 56, hardswish),
      concat_case("ConcatChannels4_28x28",
                  {{1, 64, 28, 28}, {1, 128, 28, 28}, {1, 32, 28, 28}, {1, 32, 28, 28}}, 1),
      transpose_case("TransposeNCHWtoNHWC_64x56x56", {1, 64, 56, 56}, {0, 2, 3, 1}),
      transpose_case("TransposeNHWCtoNCHW_56x56x64", {1, 56, 56, 64}, {0, 3, 1, 2}),
      transpose_case("ChannelShuffle_2x58x28x28", {1, 2, 58, 28, 28}, {0, 2, 1, 3, 4}),
  };
}

const bool registered = [] {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("BM_Bandwidth/" + c.name + "/kernel").c_str(), run_kernel, c)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("BM_Bandwidth/" + c.name + "/memcpy").c_str(), run_memcpy, c)
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace glassbox::runtime::kernels

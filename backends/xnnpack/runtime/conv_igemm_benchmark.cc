// The delegate's own convolution kernel (conv_igemm.h) against XNNPACK
// 2022's convolution operator on the same weights, input and output, one
// thread: squeezenet1_1's and mobilenet_v2's convolutions that issue 33's
// 1-thread rows depend on. BM_conv/<shape>/xnnpack and .../conv_igemm;
// the counter GFLOPS is 2 x multiply-adds per second.

#include <benchmark/benchmark.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/xnnpack/runtime/conv_igemm.h"

namespace glassbox::backends::xnnpack {
namespace {

struct Shape {
  const char* name;
  std::uint32_t hw, in_c, out_c, kernel, stride, pad;  // XNNPACK's parameters are 32-bit
};

constexpr Shape kShapes[] = {
    {"squeezenet_classifier_13x13_512to1000", 13, 512, 1000, 1, 1, 0},
    {"squeezenet_expand3x3_55x55_16to64", 55, 16, 64, 3, 1, 1},
    {"squeezenet_expand3x3_13x13_64to256", 13, 64, 256, 3, 1, 1},
    {"squeezenet_conv1_224_3to64_s2", 224, 3, 64, 3, 2, 0},
    {"mobilenet_project_56x56_144to24", 56, 144, 24, 1, 1, 0},
    {"mobilenet_project_7x7_960to320", 7, 960, 320, 1, 1, 0},
    {"squeezenet_squeeze_55x55_128to16", 55, 128, 16, 1, 1, 0},
    {"mobilenet_expand_112x112_16to96", 112, 16, 96, 1, 1, 0},
};

ConvGeometry geometry_of(const Shape& s) {
  ConvGeometry g;
  g.in_h = g.in_w = s.hw;
  g.in_c = s.in_c;
  g.out_c = s.out_c;
  g.kernel_h = g.kernel_w = s.kernel;
  g.stride_h = g.stride_w = s.stride;
  g.pad_top = g.pad_left = s.pad;
  g.out_h = g.out_w = (s.hw + 2 * s.pad - s.kernel) / s.stride + 1;
  g.out_pixel_stride = s.out_c;
  g.output_min = 0.0f;  // a fused ReLU, as in both models
  return g;
}

std::vector<float> random_floats(std::size_t count) {
  std::vector<float> v(count);
  for (float& x : v) x = static_cast<float>(std::rand()) / static_cast<float>(RAND_MAX) - 0.5f;
  return v;
}

void run(benchmark::State& state, const Shape& s, bool own) {
  const ConvGeometry g = geometry_of(s);
  if (own && !conv_igemm_available()) {
    state.SkipWithError("no AVX-512F on this CPU");
    return;
  }
  const auto input = random_floats(g.in_h * g.in_w * g.in_c + 16);
  const auto kernel = random_floats(g.out_c * g.kernel_h * g.kernel_w * g.in_c);
  const auto bias = random_floats(g.out_c);
  std::vector<float> output(g.out_h * g.out_w * g.out_c + 16);
  if (own) {
    std::vector<float> packed(conv_igemm_packed_floats(g) + 16);
    float* aligned = packed.data();
    while (reinterpret_cast<std::uintptr_t>(aligned) % 64 != 0) ++aligned;
    conv_igemm_pack(g, kernel.data(), bias.data(), aligned);
    std::vector<const float*> indirection(conv_igemm_indirection_size(g));
    const std::vector<float> zeros(g.in_c, 0.0f);
    if (!indirection.empty())
      conv_igemm_indirect(g, input.data(), zeros.data(), indirection.data());
    const ConvIgemm conv{g, aligned, indirection.empty() ? nullptr : indirection.data(),
                         input.data(), output.data()};
    for (auto _ : state) conv_igemm_run(conv);
  } else {
    xnn_operator_t op = nullptr;
    if (xnn_initialize(nullptr) != xnn_status_success ||
        xnn_create_convolution2d_nhwc_f32(s.pad, s.pad, s.pad, s.pad, s.kernel, s.kernel, s.stride,
                                          s.stride, 1, 1, 1, s.in_c, s.out_c, s.in_c, s.out_c,
                                          kernel.data(), bias.data(), 0.0f, INFINITY, 0,
                                          &op) != xnn_status_success ||
        xnn_setup_convolution2d_nhwc_f32(op, 1, s.hw, s.hw, input.data(), output.data(), nullptr) !=
            xnn_status_success) {
      state.SkipWithError("XNNPACK refused the convolution");
      return;
    }
    for (auto _ : state) xnn_run_operator(op, nullptr);
    xnn_delete_operator(op);
  }
  const double flops =
      2.0 * static_cast<double>(g.out_h * g.out_w * s.out_c * s.kernel * s.kernel * s.in_c);
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  for (const Shape& s : kShapes) {
    for (const bool own : {false, true}) {
      const std::string name =
          std::string("BM_conv/") + s.name + (own ? "/conv_igemm" : "/xnnpack");
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&s, own](benchmark::State& st) { run(st, s, own); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
  return true;
}();

}  // namespace
}  // namespace glassbox::backends::xnnpack

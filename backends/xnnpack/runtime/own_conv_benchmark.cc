// The delegate's own convolution kernels (conv_igemm.h, dwconv_nhwc.h)
// against XNNPACK 2022's convolution operator on the same weights, inputs
// and outputs, one thread: squeezenet1_1's and mobilenet_v2's convolutions,
// which issue 33's 1-thread rows depend on. BM_conv/<shape>/{xnnpack,
// conv_igemm} and BM_dwconv/<shape>/{xnnpack,dwconv_nhwc}; the counter
// GFLOPS is 2 x multiply-adds per second. Each iteration reads and writes
// the next of eight input/output pairs, so the tensors come from memory as
// inside a model (one pair stays in cache, and hid the cost of masked
// stores that miss it).

#include <benchmark/benchmark.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/xnnpack/runtime/conv_igemm.h"
#include "backends/xnnpack/runtime/dwconv_nhwc.h"
#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::backends::xnnpack {
namespace {

constexpr std::size_t kPairs = 8;

struct Shape {
  const char* name;
  std::uint32_t hw, in_c, out_c, kernel, stride, pad;  // XNNPACK's parameters are 32-bit
  bool depthwise;                                      // in_c == out_c groups of one channel
};

constexpr Shape kShapes[] = {
    {"squeezenet_classifier_13x13_512to1000", 13, 512, 1000, 1, 1, 0, false},
    {"squeezenet_expand3x3_55x55_16to64", 55, 16, 64, 3, 1, 1, false},
    {"squeezenet_expand3x3_13x13_64to256", 13, 64, 256, 3, 1, 1, false},
    {"squeezenet_conv1_224_3to64_s2", 224, 3, 64, 3, 2, 0, false},
    {"squeezenet_squeeze_55x55_128to16", 55, 128, 16, 1, 1, 0, false},
    {"mobilenet_expand_112x112_16to96", 112, 16, 96, 1, 1, 0, false},
    {"mobilenet_project_56x56_144to24", 56, 144, 24, 1, 1, 0, false},
    {"mobilenet_project_7x7_960to320", 7, 960, 320, 1, 1, 0, false},
    {"mobilenet_dw_112x112_32", 112, 32, 32, 3, 1, 1, true},
    {"mobilenet_dw_112x112_96_s2", 112, 96, 96, 3, 2, 1, true},
    {"mobilenet_dw_56x56_144", 56, 144, 144, 3, 1, 1, true},
    {"mobilenet_dw_14x14_576", 14, 576, 576, 3, 1, 1, true},
};

std::uint32_t out_size(const Shape& s) { return (s.hw + 2 * s.pad - s.kernel) / s.stride + 1; }

// Eight inputs and outputs of the shape, and its weights.
struct Tensors {
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<float> kernel, bias;

  explicit Tensors(const Shape& s) {
    const std::size_t out_hw = out_size(s);
    for (std::size_t i = 0; i < kPairs; ++i) {
      inputs.push_back(runtime::kernels::testing::random_floats(
          std::size_t{s.hw} * s.hw * s.in_c + 16, static_cast<std::uint32_t>(i), -0.5f, 0.5f));
      outputs.emplace_back(out_hw * out_hw * s.out_c + 16);
    }
    kernel = runtime::kernels::testing::random_floats(
        std::size_t{s.out_c} * s.kernel * s.kernel * (s.depthwise ? 1 : s.in_c), 100, -0.5f, 0.5f);
    bias = runtime::kernels::testing::random_floats(s.out_c, 200, -0.5f, 0.5f);
  }
};

void run_conv_igemm(benchmark::State& state, const Shape& s, Tensors& t) {
  ConvGeometry g;
  g.in_h = g.in_w = s.hw;
  g.in_c = s.in_c;
  g.out_c = s.out_c;
  g.kernel_h = g.kernel_w = s.kernel;
  g.stride_h = g.stride_w = s.stride;
  g.pad_top = g.pad_left = s.pad;
  g.out_h = g.out_w = out_size(s);
  g.out_pixel_stride = s.out_c;
  g.output_min = 0.0f;  // a fused ReLU, as in both models
  std::vector<float> packed(conv_igemm_packed_floats(g) + 16);
  float* aligned = packed.data();
  while (reinterpret_cast<std::uintptr_t>(aligned) % 64 != 0) ++aligned;
  conv_igemm_pack(g, t.kernel.data(), t.bias.data(), aligned);
  const std::vector<float> zeros(g.in_c, 0.0f);
  std::vector<std::vector<const float*>> indirection(kPairs);
  std::vector<ConvIgemm> convs;
  for (std::size_t i = 0; i < kPairs; ++i) {
    indirection[i].resize(conv_igemm_indirection_size(g));
    if (!indirection[i].empty()) {
      conv_igemm_indirect(g, t.inputs[i].data(), zeros.data(), indirection[i].data());
    }
    convs.push_back(ConvIgemm{g, aligned, indirection[i].empty() ? nullptr : indirection[i].data(),
                              t.inputs[i].data(), t.outputs[i].data()});
  }
  std::size_t i = 0;
  for (auto _ : state) conv_igemm_run(convs[i++ % kPairs]);
}

void run_dwconv(benchmark::State& state, const Shape& s, Tensors& t) {
  DwConvGeometry g;
  g.in_h = g.in_w = s.hw;
  g.channels = s.in_c;
  g.kernel_h = g.kernel_w = s.kernel;
  g.stride_h = g.stride_w = s.stride;
  g.pad_top = g.pad_left = s.pad;
  g.out_h = g.out_w = out_size(s);
  g.out_pixel_stride = s.out_c;
  g.output_min = 0.0f;
  g.output_max = 6.0f;  // ReLU6, as in mobilenet_v2
  std::vector<float> packed(dwconv_nhwc_packed_floats(g));
  dwconv_nhwc_pack(g, t.kernel.data(), t.bias.data(), packed.data());
  std::size_t i = 0;
  for (auto _ : state) {
    const std::size_t pair = i++ % kPairs;
    dwconv_nhwc_run(g, packed.data(), t.inputs[pair].data(), t.outputs[pair].data(), 0, g.out_h);
  }
}

void run_xnnpack(benchmark::State& state, const Shape& s, Tensors& t) {
  const std::uint32_t groups = s.depthwise ? s.in_c : 1;
  const float max = s.depthwise ? 6.0f : INFINITY;
  std::vector<xnn_operator_t> ops(kPairs, nullptr);
  bool ok = xnn_initialize(nullptr) == xnn_status_success;
  for (std::size_t i = 0; ok && i < kPairs; ++i) {
    ok = xnn_create_convolution2d_nhwc_f32(
             s.pad, s.pad, s.pad, s.pad, s.kernel, s.kernel, s.stride, s.stride, 1, 1, groups,
             s.in_c / groups, s.out_c / groups, s.in_c, s.out_c, t.kernel.data(), t.bias.data(),
             0.0f, max, 0, &ops[i]) == xnn_status_success &&
         xnn_setup_convolution2d_nhwc_f32(ops[i], 1, s.hw, s.hw, t.inputs[i].data(),
                                          t.outputs[i].data(), nullptr) == xnn_status_success;
  }
  std::size_t i = 0;
  if (ok) {
    for (auto _ : state) xnn_run_operator(ops[i++ % kPairs], nullptr);
  } else {
    state.SkipWithError("XNNPACK refused the convolution");
  }
  for (xnn_operator_t op : ops) {
    if (op != nullptr) xnn_delete_operator(op);
  }
}

void run(benchmark::State& state, const Shape& s, bool own) {
  if (own && !(s.depthwise ? dwconv_nhwc_available() : conv_igemm_available())) {
    state.SkipWithError("no AVX-512F on this CPU");
    return;
  }
  Tensors t(s);
  if (!own) {
    run_xnnpack(state, s, t);
  } else if (s.depthwise) {
    run_dwconv(state, s, t);
  } else {
    run_conv_igemm(state, s, t);
  }
  const double out_hw = out_size(s);
  const double flops = 2.0 * out_hw * out_hw * s.out_c * s.kernel * s.kernel *
                       (s.depthwise ? 1.0 : static_cast<double>(s.in_c));
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  for (const Shape& s : kShapes) {
    for (const bool own : {false, true}) {
      const std::string name = std::string(s.depthwise ? "BM_dwconv/" : "BM_conv/") + s.name +
                               (own ? (s.depthwise ? "/dwconv_nhwc" : "/conv_igemm") : "/xnnpack");
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

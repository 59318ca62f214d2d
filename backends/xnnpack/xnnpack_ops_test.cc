// Per-operator tests: each case is a tiny graph exported twice, once on
// the portable kernels and once through the XNNPACK partitioner; both run
// on the same random inputs and must agree within kTolerance, and the
// delegate's per-operator events must map to every source op.
//
// kTolerance = 1e-4 in max |x - p| / (1 + |p|): XNNPACK reassociates sums
// (blocked GEMM, other tile sizes than ours), folds batch norm into the
// weights (one rounding instead of two), and uses polynomial sigmoid / exp;
// each moves results by a few ulp to ~1e-6 here, so 1e-4 flags real bugs
// (a wrong layout or padding is off by O(1)) without flaking.

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "backends/xnnpack/testing/xnnpack_test_runner.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::GraphBuilder;
using aot::ValueId;

constexpr double kTolerance = 1e-4;

struct OpCase {
  std::string name;
  std::function<void(GraphBuilder&)> build;
};

// gtest prints a failing case by its name, not its bytes.
void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

// conv() puts its output in NHWC inside the delegate.
using backends::testing::batch_norm;
using backends::testing::conv;
using backends::testing::image;
using backends::testing::weights;

using Attrs = aot::AttributeMap;
using Ints = std::vector<std::int64_t>;

// Squeezenet's fire module on `x` (6 channels): a 1x1 squeeze to 4, then
// a 1x1 expand to 5 and a 3x3 expand to 3, each with its relu,
// concatenated over channels.
ValueId fire_module(GraphBuilder& b, ValueId x) {
  const ValueId squeeze = b.relu(conv(b, x, 6, 4, {}, 1));
  return b.concat({b.relu(conv(b, squeeze, 4, 5, {}, 1)), b.relu(conv(b, squeeze, 4, 3))}, 1);
}

ValueId unary(GraphBuilder& b, std::string_view op, ValueId x, Attrs attrs = {}) {
  return b.op(op, {x}, std::move(attrs));
}

// Interpolation attributes of a linear resize to `sizes`.
Attrs linear_resize(Ints sizes, const char* coordinates) {
  return {{"sizes", std::move(sizes)},
          {"mode", std::string("linear")},
          {"coordinate_transformation_mode", std::string(coordinates)},
          {"nearest_mode", std::string("floor")}};
}

Attrs conv_transpose_attrs(Ints stride, Ints padding, Ints output_padding, std::int64_t groups,
                           Ints dilation = {1, 1}) {
  return {{"stride", std::move(stride)},
          {"padding", std::move(padding)},
          {"output_padding", std::move(output_padding)},
          {"dilation", std::move(dilation)},
          {"groups", groups}};
}

// Format 1.1's operators: elementwise, binary, data movement, deconvolution
// and means, each in logical order and, where layout matters, after a conv
// (NHWC inside the delegate).
std::vector<OpCase> cases_1_1() {
  return {
      {"abs", [](GraphBuilder& b) { b.output(unary(b, "abs", image(b))); }},
      {"neg_nhwc", [](GraphBuilder& b) { b.output(unary(b, "neg", conv(b, image(b), 4, 8))); }},
      {"floor_ceil",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {3, 17});
         ValueId x2 = b.add(x, b.add(x, x));  // [-3, 3]: several integers crossed
         b.output(b.add(unary(b, "floor", x2), unary(b, "ceil", x2)));
       }},
      {"round_half_even",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {3, 17});
         b.output(unary(b, "round", b.add(x, b.add(x, x))));
       }},
      {"sqrt_of_abs",
       [](GraphBuilder& b) { b.output(unary(b, "sqrt", unary(b, "abs", image(b)))); }},
      {"pow2_square",
       [](GraphBuilder& b) {
         b.output(b.op("pow", {conv(b, image(b), 4, 8), b.constant("two", {}, {2.f})}, {}));
       }},
      {"elu_nhwc",
       [](GraphBuilder& b) {
         b.output(unary(b, "elu", conv(b, image(b), 4, 8), {{"alpha", 0.7}}));
       }},
      {"leaky_relu",
       [](GraphBuilder& b) {
         b.output(unary(b, "leaky_relu", image(b), {{"alpha", 0.1}}));
       }},
      {"max_broadcast_lower_rank",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 4});
         b.output(b.op("max", {x, b.input("y", ScalarType::kFloat, {4})}, {}));
       }},
      {"min_nhwc",
       [](GraphBuilder& b) {
         ValueId x = image(b);
         b.output(b.op("min", {conv(b, x, 4, 4), x}, {}));
       }},
      {"prelu_per_channel_nhwc",
       [](GraphBuilder& b) {
         b.output(b.op("prelu", {conv(b, image(b), 4, 8), weights(b, "slope", {8, 1, 1})}, {}));
       }},
      {"prelu_last_axis",
       [](GraphBuilder& b) {
         b.output(
             b.op("prelu", {b.input("x", ScalarType::kFloat, {3, 5}), weights(b, "s", {5})}, {}));
       }},
      {"prelu_scalar_slope",
       [](GraphBuilder& b) {
         b.output(b.op("prelu", {conv(b, image(b), 4, 8), weights(b, "s", {1})}, {}));
       }},
      {"pad_constant_logical",
       [](GraphBuilder& b) {
         b.output(b.op("pad", {b.input("x", ScalarType::kFloat, {2, 3, 5})},
                       {{"pads", Ints{0, 1, 2, 1, 0, 3}},
                        {"mode", std::string("constant")},
                        {"value", 0.5}}));
       }},
      {"pad_constant_nhwc_then_conv",
       [](GraphBuilder& b) {
         ValueId p = b.op("pad", {conv(b, image(b), 4, 8)},
                          {{"pads", Ints{0, 1, 2, 0, 0, 2, 1, 3}},
                           {"mode", std::string("constant")},
                           {"value", -0.25}});
         b.output(conv(b, p, 11, 4));  // C: 8 + 1 + 2
       }},
      {"depth_to_space_dcr",
       [](GraphBuilder& b) {
         b.output(b.op("depth_to_space", {conv(b, image(b), 4, 12)},
                       {{"blocksize", std::int64_t{2}}, {"mode", std::string("DCR")}}));
       }},
      {"resize_half_pixel_up",
       [](GraphBuilder& b) {
         b.output(b.op("resize", {conv(b, image(b), 4, 8)},
                       linear_resize({2, 8, 18, 13}, "half_pixel")));
       }},
      {"resize_pytorch_half_pixel_down",
       [](GraphBuilder& b) {
         b.output(b.op("resize", {image(b)}, linear_resize({2, 4, 5, 4}, "pytorch_half_pixel")));
       }},
      {"resize_align_corners",
       [](GraphBuilder& b) {
         b.output(b.op("resize", {image(b)}, linear_resize({2, 4, 16, 7}, "align_corners")));
       }},
      {"conv_transpose_stride2_pad_adjust_relu",
       [](GraphBuilder& b) {
         ValueId y = b.op("conv_transpose2d",
                          {image(b), weights(b, "w", {4, 6, 3, 3}), weights(b, "b", {6})},
                          conv_transpose_attrs({2, 2}, {1, 0, 1, 2}, {1, 0}, 1));
         b.output(b.relu(y));
       }},
      {"conv_transpose_grouped_dilated_no_bias",
       [](GraphBuilder& b) {
         b.output(b.op("conv_transpose2d", {conv(b, image(b), 4, 6), weights(b, "w", {6, 2, 2, 3})},
                       conv_transpose_attrs({1, 2}, {0, 1, 0, 0}, {0, 1}, 3, {2, 1})));
       }},
      {"mean_last_axis",
       [](GraphBuilder& b) {
         b.output(b.op("reduce_mean", {b.input("x", ScalarType::kFloat, {2, 3, 10})},
                       {{"axes", Ints{-1}}, {"keepdims", std::int64_t{0}}}));
       }},
      {"mean_last_axis_keepdims_nhwc",
       [](GraphBuilder& b) {
         b.output(b.op("reduce_mean", {conv(b, image(b), 4, 8)},
                       {{"axes", Ints{3}}, {"keepdims", std::int64_t{1}}}));
       }},
      {"mean_hw",
       [](GraphBuilder& b) {
         b.output(b.op("reduce_mean", {conv(b, image(b), 4, 8)},
                       {{"axes", Ints{2, 3}}, {"keepdims", std::int64_t{0}}}));
       }},
      {"mean_hw_keepdims",
       [](GraphBuilder& b) {
         b.output(b.op("reduce_mean", {image(b)},
                       {{"axes", Ints{-1, -2}}, {"keepdims", std::int64_t{1}}}));
       }},
  };
}

// Format 1.2: constant operands of the binary ops and concat, in logical
// order and against NHWC tensors (a [C, 1, 1] constant becomes [1, 1, 1, C]),
// and hardsigmoid (two operators on constant scalars).
std::vector<OpCase> cases_1_2() {
  return {
      {"add_per_channel_constant_nhwc_relu",
       [](GraphBuilder& b) {
         b.output(b.relu(b.add(conv(b, image(b), 4, 8), weights(b, "k", {8, 1, 1}))));
       }},
      {"mul_full_constant_nhwc",
       [](GraphBuilder& b) {
         b.output(b.mul(weights(b, "k", {1, 8, 9, 9}), conv(b, image(b), 4, 8)));
       }},
      {"sub_from_scalar_constant",
       [](GraphBuilder& b) { b.output(b.sub(b.constant("one", {}, {1.f}), image(b))); }},
      {"div_scalar_constant_nhwc",
       [](GraphBuilder& b) {
         b.output(b.div(conv(b, image(b), 4, 8), b.constant("s", {1}, {1.4142135f})));
       }},
      {"max_min_constants_broadcast_both_ways",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 1, 5});
         ValueId y = b.op("max", {x, weights(b, "lo", {3, 1})}, {});
         b.output(b.op("min", {weights(b, "hi", {5}), y}, {}));
       }},
      {"gelu_constants_shared",
       [](GraphBuilder& b) {
         // x * 0.5 * (1 + x / sqrt(2)), with the 1 used twice: stored once.
         ValueId x = b.input("x", ScalarType::kFloat, {3, 7});
         ValueId one = b.constant("one", {}, {1.f});
         ValueId t = b.add(b.div(x, b.constant("sqrt2", {}, {1.4142135f})), one);
         b.output(b.mul(b.mul(x, b.constant("half", {}, {0.5f})), b.add(t, one)));
       }},
      {"layer_norm_decomposed",
       [](GraphBuilder& b) {
         const Attrs last{{"axes", Ints{-1}}, {"keepdims", std::int64_t{1}}};
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 8});
         ValueId d = b.sub(x, b.op("reduce_mean", {x}, last));
         ValueId var =
             b.op("reduce_mean", {b.op("pow", {d, b.constant("two", {}, {2.f})}, {})}, last);
         ValueId norm = b.div(d, unary(b, "sqrt", b.add(var, b.constant("eps", {}, {1e-5f}))));
         b.output(b.add(b.mul(norm, weights(b, "gamma", {8})), weights(b, "beta", {8})));
       }},
      {"hardsigmoid_crossing_both_bounds",
       [](GraphBuilder& b) {
         b.output(b.hardsigmoid(b.input("x", ScalarType::kFloat, {4, 33}), 0.8, 0.5));
       }},
      {"hardsigmoid_squeeze_excite_nhwc",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 8);
         ValueId s = conv(b, b.global_avg_pool2d(x), 8, 8, {}, 1);
         b.output(b.mul(x, b.hardsigmoid(s, 1.0 / 6.0, 0.5)));
       }},
      {"hardsigmoid_then_clamp_nhwc",
       [](GraphBuilder& b) {
         b.output(b.clamp(b.hardsigmoid(conv(b, image(b), 4, 8), 0.5, 0.5), 0.2, 0.7));
       }},
      {"concat_constant_token",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {1, 4, 6});
         b.output(b.concat({weights(b, "cls", {1, 1, 6}), x}, 1));
       }},
      {"concat_constant_nhwc",
       [](GraphBuilder& b) {
         b.output(b.concat({conv(b, image(b), 4, 3), weights(b, "k", {2, 2, 9, 9})}, 1));
       }},
  };
}

// Format 1.4's operators, run by Glassbox's kernels inside the delegate:
// alone, after a conv (NHWC inside the delegate, so converted first), and
// together as one attention head.
std::vector<OpCase> cases_1_4() {
  const auto layer_norm = [](GraphBuilder& b, ValueId x, std::int64_t c, bool bias) {
    std::vector<ValueId> in = {x, weights(b, "gamma", {c})};
    if (bias) in.push_back(weights(b, "beta", {c}));
    return b.op("layer_norm", in, Attrs{{"axis", std::int64_t{-1}}, {"eps", 1e-5}});
  };
  return {
      {"transpose_3d",
       [](GraphBuilder& b) {
         b.output(b.transpose(b.input("x", ScalarType::kFloat, {2, 5, 7}), {2, 0, 1}));
       }},
      {"transpose_heads_4d",
       [](GraphBuilder& b) {
         b.output(b.transpose(b.input("x", ScalarType::kFloat, {1, 6, 4, 8}), {0, 2, 1, 3}));
       }},
      {"transpose_after_conv_nhwc",
       [](GraphBuilder& b) {
         b.output(b.transpose(conv(b, image(b), 4, 8), {0, 3, 1, 2}));
       }},
      {"batch_matmul_2d",
       [](GraphBuilder& b) {
         b.output(b.matmul(b.input("a", ScalarType::kFloat, {9, 16}),
                           b.input("b", ScalarType::kFloat, {16, 5})));
       }},
      {"batch_matmul_4d",
       [](GraphBuilder& b) {
         b.output(b.matmul(b.input("a", ScalarType::kFloat, {2, 3, 7, 8}),
                           b.input("b", ScalarType::kFloat, {2, 3, 8, 6})));
       }},
      {"layer_norm_with_bias",
       [layer_norm](GraphBuilder& b) {
         b.output(layer_norm(b, b.input("x", ScalarType::kFloat, {2, 5, 24}), 24, true));
       }},
      {"layer_norm_without_bias",
       [layer_norm](GraphBuilder& b) {
         b.output(layer_norm(b, b.input("x", ScalarType::kFloat, {7, 16}), 16, false));
       }},
      {"erf", [](GraphBuilder& b) { b.output(unary(b, "erf", image(b))); }},
      {"erf_nhwc", [](GraphBuilder& b) { b.output(unary(b, "erf", conv(b, image(b), 4, 8))); }},
      {"attention_head",
       [layer_norm](GraphBuilder& b) {
         // [1, 6, 8] tokens, 2 heads of 4: softmax(Q K^T / 2) V, then a
         // layer norm, all in one delegate.
         ValueId x = layer_norm(b, b.input("x", ScalarType::kFloat, {1, 6, 8}), 8, true);
         ValueId q = b.transpose(b.reshape(x, {1, 6, 2, 4}), {0, 2, 1, 3});
         ValueId k = b.transpose(b.reshape(x, {1, 6, 2, 4}), {0, 2, 3, 1});
         ValueId scores = b.div(b.matmul(q, k), b.constant("scale", {}, {2.f}));
         ValueId heads = b.matmul(b.softmax(scores, -1), q);
         b.output(b.reshape(b.transpose(heads, {0, 2, 1, 3}), {1, 6, 8}));
       }},
  };
}

std::vector<OpCase> cases_1_0();

// A conv3d of `x` ([N, cin, D, H, W]) to `cout` channels with a
// [kd, k, k] kernel: stride, padding (int[3] or int[6]), groups.
ValueId conv3d(GraphBuilder& b, ValueId x, std::int64_t cin, std::int64_t cout, Ints kernel,
               Ints stride, Ints padding, std::int64_t groups = 1, Ints dilation = {1, 1, 1}) {
  static int count = 0;
  const std::string name = "c3d" + std::to_string(count++);
  return b.op("conv3d",
              {x, weights(b, name + ".w", {cout, cin / groups, kernel[0], kernel[1], kernel[2]}),
               weights(b, name + ".b", {cout})},
              {{"stride", std::move(stride)},
               {"padding", std::move(padding)},
               {"dilation", std::move(dilation)},
               {"groups", groups}});
}

ValueId clip(GraphBuilder& b, std::int64_t n, std::int64_t c, std::int64_t d, std::int64_t h,
             std::int64_t w) {
  return b.input("clip", ScalarType::kFloat, {n, c, d, h, w});
}

// Format 1.8: 3-D convolutions (a 2-D convolution per temporal tap) on
// NDHWC slots, batch 2: temporal stride 1 and 2 (the frames gathered by
// phase), temporal padding 0, 1 and more than the kernel reaches (no tap
// covers every output frame), r3d_18's stem and downsample shapes, groups,
// a folded batch norm, relu and relu6 fused; the mean over D, H, W; a
// residual block as one delegate.
std::vector<OpCase> cases_1_8() {
  return {
      {"conv3d_3x3x3_stride1_pad1_relu",
       [](GraphBuilder& b) {
         b.output(b.relu(conv3d(b, clip(b, 2, 3, 5, 6, 7), 3, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1})));
       }},
      {"conv3d_3x3x3_stride2_pad1_relu",
       [](GraphBuilder& b) {
         b.output(b.relu(conv3d(b, clip(b, 2, 3, 7, 6, 6), 3, 5, {3, 3, 3}, {2, 2, 2}, {1, 1, 1})));
       }},
      {"conv3d_3x3x3_stride2_wide_relu",
       [](GraphBuilder& b) {
         // Over 16 output channels: conv_igemm.h's kernel where the CPU has
         // AVX-512, XNNPACK's elsewhere.
         b.output(
             b.relu(conv3d(b, clip(b, 2, 16, 5, 6, 6), 16, 40, {3, 3, 3}, {2, 2, 2}, {1, 1, 1})));
       }},
      {"conv3d_3x3x3_time_pad0",
       [](GraphBuilder& b) {
         b.output(b.relu(
             conv3d(b, clip(b, 2, 3, 6, 5, 5), 3, 4, {3, 3, 3}, {1, 1, 1}, {0, 1, 1, 0, 1, 1})));
       }},
      {"conv3d_1x1x1_stride2_downsample",
       [](GraphBuilder& b) {
         b.output(conv3d(b, clip(b, 2, 4, 5, 6, 6), 4, 6, {1, 1, 1}, {2, 2, 2}, {0, 0, 0}));
       }},
      {"conv3d_1x1x1_time_pad1_stride2",
       [](GraphBuilder& b) {
         // Output frame 0 reads the padding: bias only.
         b.output(
             conv3d(b, clip(b, 2, 4, 5, 3, 3), 4, 3, {1, 1, 1}, {2, 1, 1}, {1, 0, 0, 0, 0, 0}));
       }},
      {"conv3d_3x7x7_spatial_stride2_stem",
       [](GraphBuilder& b) {
         b.output(
             b.relu(conv3d(b, clip(b, 2, 3, 4, 13, 13), 3, 24, {3, 7, 7}, {1, 2, 2}, {1, 3, 3})));
       }},
      {"conv3d_time_pad_beyond_kernel_relu6",
       [](GraphBuilder& b) {
         // D 2, pads 2 and 1: no tap reads a frame for every output frame.
         b.output(b.clamp(
             conv3d(b, clip(b, 2, 3, 2, 5, 5), 3, 4, {3, 3, 3}, {1, 1, 1}, {2, 1, 1, 1, 1, 1}), 0,
             6));
       }},
      {"conv3d_grouped_time_dilated_stride2_batch_norm_relu",
       [](GraphBuilder& b) {
         const ValueId y =
             conv3d(b, clip(b, 2, 4, 9, 5, 5), 4, 6, {3, 3, 3}, {2, 1, 1}, {2, 1, 1}, 2, {2, 1, 1});
         b.output(b.relu(batch_norm(b, y, 6)));
       }},
      {"conv3d_then_mean_dhw",
       [](GraphBuilder& b) {
         const ValueId y = conv3d(b, clip(b, 2, 3, 4, 5, 5), 3, 6, {3, 3, 3}, {1, 1, 1}, {1, 1, 1});
         b.output(b.op("reduce_mean", {b.relu(y)},
                       {{"axes", Ints{2, 3, 4}}, {"keepdims", std::int64_t{0}}}));
       }},
      {"mean_dhw_keepdims",
       [](GraphBuilder& b) {
         b.output(b.op("reduce_mean", {clip(b, 2, 3, 4, 5, 6)},
                       {{"axes", Ints{-1, -2, -3}}, {"keepdims", std::int64_t{1}}}));
       }},
      {"conv3d_residual_block",
       [](GraphBuilder& b) {
         // r3d_18's basic block: conv, relu, conv, + x, relu, in NDHWC
         // from the first conv to the last relu.
         const ValueId x = clip(b, 2, 4, 4, 6, 6);
         const ValueId h = b.relu(conv3d(b, x, 4, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}));
         const ValueId y = conv3d(b, h, 4, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1});
         b.output(b.relu(b.add(y, x)));
       }},
  };
}

std::vector<OpCase> cases() {
  std::vector<OpCase> all = cases_1_0();
  for (OpCase& c : cases_1_1()) all.push_back(std::move(c));
  for (OpCase& c : cases_1_2()) all.push_back(std::move(c));
  for (OpCase& c : cases_1_4()) all.push_back(std::move(c));
  for (OpCase& c : cases_1_8()) all.push_back(std::move(c));
  return all;
}

std::vector<OpCase> cases_1_0() {
  return {
      {"conv3x3", [](GraphBuilder& b) { b.output(conv(b, image(b), 4, 8)); }},
      {"conv_stride2_dilation2_asymmetric_pad",
       [](GraphBuilder& b) {
         ValueId x = image(b, 4, 12);
         ValueId w = weights(b, "w", {6, 4, 3, 3});
         b.output(b.op("conv2d", {x, w},
                       {{"stride", std::vector<std::int64_t>{2, 1}},
                        {"padding", std::vector<std::int64_t>{0, 1, 2, 3}},
                        {"dilation", std::vector<std::int64_t>{2, 2}},
                        {"groups", std::int64_t{1}}}));
       }},
      {"conv1x1_no_bias",
       [](GraphBuilder& b) {
         b.output(b.conv2d(image(b), weights(b, "w", {5, 4, 1, 1}), std::nullopt, {}));
       }},
      {"depthwise",
       [](GraphBuilder& b) {
         b.output(conv(b, image(b), 4, 4, {.padding = {1, 1}, .groups = 4}));
       }},
      // On AVX-512 CPUs the delegate's own depthwise kernel
      // (dwconv_nhwc.h): two whole vectors and a masked one, rows of four
      // pixels and single ones at the edges, stride 2, ReLU6.
      {"depthwise_40_channels_s2_relu6",
       [](GraphBuilder& b) {
         b.output(b.relu6(conv(b, image(b, 40, 13), 40, 40,
                               {.stride = {2, 2}, .padding = {1, 1}, .groups = 40})));
       }},
      {"depthwise_multiplier2",
       [](GraphBuilder& b) {
         b.output(conv(b, image(b), 4, 8, {.padding = {1, 1}, .groups = 4}));
       }},
      {"grouped",
       [](GraphBuilder& b) {
         b.output(conv(b, image(b), 4, 6, {.padding = {1, 1}, .groups = 2}));
       }},
      {"conv_bn_relu",
       [](GraphBuilder& b) { b.output(b.relu(batch_norm(b, conv(b, image(b), 4, 8), 8))); }},
      {"conv_relu6", [](GraphBuilder& b) { b.output(b.relu6(conv(b, image(b), 4, 8))); }},
      {"linear_relu",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {3, 20});
         b.output(b.relu(b.linear(x, weights(b, "w", {7, 20}), weights(b, "b", {7}))));
       }},
      // On AVX-512 CPUs the delegate's own convolution (conv_igemm.h):
      // a fully connected layer as a 1x1 GEMM over 10 rows (one tile), 50
      // outputs (a block and a masked one), ReLU6 fused; a strided 3x3 with
      // padding through the indirection buffer, 40 channels, two images.
      {"linear_40_to_50_rank3_relu6",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 5, 40});
         b.output(b.relu6(b.linear(x, weights(b, "w", {50, 40}), weights(b, "b", {50}))));
       }},
      {"conv_3x3_s2_to_40_channels",
       [](GraphBuilder& b) {
         b.output(conv(b, image(b, 6, 11), 6, 40, {.stride = {2, 2}, .padding = {1, 1}}));
       }},
      {"linear_rank3_no_bias",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 20});
         b.output(b.linear(x, weights(b, "w", {7, 20}), std::nullopt));
       }},
      {"matmul_constant",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {4, 6});
         b.output(b.matmul(x, weights(b, "w", {6, 5})));
       }},
      {"matmul_bias_add",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {4, 6});
         b.output(b.add(b.matmul(x, weights(b, "w", {6, 5})), weights(b, "bias", {5})));
       }},
      {"matmul_rank3_bias_first_relu",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 6});
         b.output(
             b.relu(b.add(weights(b, "bias", {1, 1, 5}), b.matmul(x, weights(b, "w", {6, 5})))));
       }},
      {"linear_bias_plus_bias_add",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {3, 20});
         ValueId y = b.linear(x, weights(b, "w", {7, 20}), weights(b, "b", {7}));
         b.output(b.add(y, weights(b, "extra", {1, 7})));
       }},
      // 300 -> 480 channels, 576 KB of weights: on AVX-512 CPUs the
      // delegate's own convolution (conv_igemm.h: 15 blocks of 32 channels
      // in two groups), elsewhere on one thread two XNNPACK operators of
      // 432 and 48 channels (channel_blocks.h), each writing its channels of
      // the one output.
      {"conv_1x1_in_channel_blocks_relu",
       [](GraphBuilder& b) { b.output(b.relu(conv(b, image(b, 300, 4), 300, 480, {}, 1))); }},
      // Without padding, on AVX-512 CPUs the delegate's own max pool
      // (max_pool_nhwc.h): 70 channels, a full step of 64 and a masked
      // one; an uneven window and strides, a fused relu, two images.
      {"max_pool_unpadded_70_channels_relu",
       [](GraphBuilder& b) {
         b.output(
             b.relu(b.max_pool2d(conv(b, image(b, 4, 11), 4, 70),
                                 {.kernel = {3, 2}, .stride = std::array<std::int64_t, 2>{2, 1}})));
       }},
      {"max_pool_3x3_s2_p1",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(
             image(b),
             {.kernel = {3, 3}, .stride = std::array<std::int64_t, 2>{2, 2}, .padding = {1, 1}}));
       }},
      {"max_pool_after_conv",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(conv(b, image(b), 4, 8), {.kernel = {2, 2}}));
       }},
      {"avg_pool_2x2",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(image(b, 4, 8), {.kernel = {2, 2}}));
       }},
      {"avg_pool_pad_excluded",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(image(b), {.kernel = {3, 3},
                                          .stride = std::array<std::int64_t, 2>{1, 1},
                                          .padding = {1, 1},
                                          .count_include_pad = false}));
       }},
      // Ceil mode: XNNPACK gets the extra last window as bottom / right
      // padding, left out of the max and of the average's divisor.
      {"max_pool_ceil_mode",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(
             conv(b, image(b, 4, 8), 4, 8),
             {.kernel = {3, 3}, .stride = std::array<std::int64_t, 2>{2, 2}, .ceil_mode = true}));
       }},
      {"max_pool_ceil_mode_padded",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(image(b, 4, 8), {.kernel = {3, 3},
                                                .stride = std::array<std::int64_t, 2>{2, 2},
                                                .padding = {1, 1},
                                                .ceil_mode = true}));
       }},
      {"max_pool_asymmetric_padding_ceil_mode",
       [](GraphBuilder& b) {
         b.output(b.op("max_pool2d", {image(b, 3, 10)},
                       aot::AttributeMap{{"kernel", Ints{3, 2}},
                                         {"stride", Ints{2, 3}},
                                         {"padding", Ints{0, 1, 1, 0}},
                                         {"ceil_mode", std::int64_t{1}}}));
       }},
      {"avg_pool_ceil_mode",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(
             image(b, 4, 8),
             {.kernel = {3, 3}, .stride = std::array<std::int64_t, 2>{2, 2}, .ceil_mode = true}));
       }},
      {"avg_pool_ceil_mode_pad_excluded",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(image(b, 4, 8), {.kernel = {3, 3},
                                                .stride = std::array<std::int64_t, 2>{2, 2},
                                                .padding = {1, 1},
                                                .ceil_mode = true,
                                                .count_include_pad = false}));
       }},
      {"avg_pool_1x1_identity",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(conv(b, image(b), 4, 8), {.kernel = {1, 1}}));
       }},
      // ShuffleNet's channel split and shuffle: slices and the reshape /
      // transpose / reshape pattern, all inside one NHWC delegate.
      {"slice_channels_and_shuffle",
       [](GraphBuilder& b) {
         const ValueId x = conv(b, image(b, 4, 6), 4, 8);
         const auto half = [&](std::int64_t start) {
           return b.op("slice", {x},
                       aot::AttributeMap{{"starts", Ints{0, start, 0, 0}},
                                         {"steps", Ints{1, 1, 1, 1}},
                                         {"shape", Ints{2, 4, 6, 6}}});
         };
         const ValueId both = b.concat({half(0), b.relu(conv(b, half(4), 4, 4))}, 1);
         const ValueId groups = b.transpose(b.reshape(both, {2, 2, 4, 6, 6}), {0, 2, 1, 3, 4});
         b.output(b.reshape(groups, {2, 8, 6, 6}));
       }},
      {"slice_last_axis_logical",
       [](GraphBuilder& b) {
         b.output(b.op(
             "slice", {b.input("x", ScalarType::kFloat, {3, 5, 7})},
             aot::AttributeMap{
                 {"starts", Ints{0, 0, 2}}, {"steps", Ints{1, 1, 1}}, {"shape", Ints{3, 5, 4}}}));
       }},
      // swin_t's patch merging: x[:, i::2, j::2, :] of [B, H, W, C], four
      // strided slices concatenated; and one after an NHWC convolution,
      // read back in logical order.
      {"strided_slices_patch_merging",
       [](GraphBuilder& b) {
         const ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 6, 4, 3}));
         std::vector<ValueId> parts;
         for (const auto& [i, j] : {std::pair{0, 0}, {1, 0}, {0, 1}, {1, 1}}) {
           parts.push_back(b.op("slice", {x},
                                aot::AttributeMap{{"starts", Ints{0, i, j, 0}},
                                                  {"steps", Ints{1, 2, 2, 1}},
                                                  {"shape", Ints{2, 3, 2, 3}}}));
         }
         b.output(b.relu(b.concat(parts, 3)));
       }},
      {"strided_slice_after_conv",
       [](GraphBuilder& b) {
         b.output(b.relu(b.op("slice", {conv(b, image(b, 4, 7), 4, 6)},
                              aot::AttributeMap{{"starts", Ints{0, 1, 0, 2}},
                                                {"steps", Ints{1, 3, 2, 2}},
                                                {"shape", Ints{2, 2, 4, 3}}})));
       }},
      {"global_avg_pool",
       [](GraphBuilder& b) { b.output(b.global_avg_pool2d(conv(b, image(b), 4, 8))); }},
      {"add_nhwc",
       [](GraphBuilder& b) {
         ValueId x = image(b);
         b.output(b.relu(b.add(conv(b, x, 4, 4), x)));
       }},
      {"sub_mul_div_same_shape",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {3, 5});
         ValueId y = b.input("y", ScalarType::kFloat, {3, 5});
         b.output(b.div(b.mul(b.sub(x, y), x), b.add(b.sigmoid(y), b.sigmoid(x))));
       }},
      {"mul_broadcast_squeeze_excite",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 8);
         b.output(b.mul(x, b.sigmoid(b.global_avg_pool2d(x))));
       }},
      {"add_broadcast_lower_rank",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 4});
         ValueId y = b.input("y", ScalarType::kFloat, {4});
         b.output(b.add(x, y));
       }},
      {"clamp_hardswish_sigmoid",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {4, 33});
         b.output(b.sigmoid(b.hardswish(b.clamp(x, -0.7, 0.4))));
       }},
      {"relu_standalone",
       [](GraphBuilder& b) {
         b.output(b.relu(b.input("x", ScalarType::kFloat, {2, 3, 5, 5})));
       }},
      {"softmax_last_axis",
       [](GraphBuilder& b) {
         b.output(b.softmax(b.input("x", ScalarType::kFloat, {3, 17}), -1));
       }},
      {"flatten_after_conv",
       [](GraphBuilder& b) { b.output(b.flatten(conv(b, image(b), 4, 8), 1, -1)); }},
      {"reshape",
       [](GraphBuilder& b) {
         b.output(b.reshape(conv(b, image(b), 4, 8), {2, -1, 9}));
       }},
      {"concat_channels_nhwc",
       [](GraphBuilder& b) {
         ValueId x = image(b);
         b.output(b.concat({conv(b, x, 4, 3), conv(b, x, 4, 5), x}, 1));
       }},
      // DenseNet's pre-activation: a batch norm after a concat, no
      // convolution to fold it into (a depthwise 1x1 convolution, the relu
      // after it fused).
      {"batch_norm_after_concat",
       [](GraphBuilder& b) {
         ValueId x = image(b);
         b.output(b.relu(batch_norm(b, b.concat({conv(b, x, 4, 3), conv(b, x, 4, 5)}, 1), 8)));
       }},
      // Squeezenet's fire module: both expand convolutions write their
      // channels of the concatenation in place (concat_in_place.h).
      {"fire_module", [](GraphBuilder& b) { b.output(fire_module(b, image(b, 6, 7))); }},
      {"concat_last_axis",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3});
         ValueId y = b.input("y", ScalarType::kFloat, {2, 4});
         b.output(b.concat({x, y}, -1));
       }},
      {"output_back_to_nchw",
       [](GraphBuilder& b) {
         b.output(conv(b, image(b), 4, 8, {.stride = {2, 2}}));
       }},
      // 1-D convolutions and pools (a raw-audio classifier's layers): the
      // 2-D operator of height 1 over NHWC [N, 1, L, C], a chain of them
      // with no conversion between.
      {"conv1d_batch_norm_relu_max_pool1d",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {2, 4, 40});
         const ValueId y =
             b.op("conv1d", {x, weights(b, "k1.w", {8, 4, 5}), weights(b, "k1.b", {8})},
                  {{"stride", std::vector<std::int64_t>{2}},
                   {"padding", std::vector<std::int64_t>{2}},
                   {"dilation", std::vector<std::int64_t>{1}},
                   {"groups", std::int64_t{1}}});
         b.output(b.op("max_pool1d", {b.relu(batch_norm(b, y, 8))},
                       {{"kernel", std::vector<std::int64_t>{3}},
                        {"stride", std::vector<std::int64_t>{2}},
                        {"padding", std::vector<std::int64_t>{1}}}));
       }},
      {"grouped_dilated_conv1d_then_avg_pool1d_then_mean",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {2, 6, 31});
         const ValueId y = b.op("conv1d", {x, weights(b, "k2.w", {6, 2, 3})},
                                {{"stride", std::vector<std::int64_t>{1}},
                                 {"padding", std::vector<std::int64_t>{3, 1}},
                                 {"dilation", std::vector<std::int64_t>{2}},
                                 {"groups", std::int64_t{3}}});
         const ValueId p = b.op("avg_pool1d", {y},
                                {{"kernel", std::vector<std::int64_t>{4}},
                                 {"stride", std::vector<std::int64_t>{3}},
                                 {"padding", std::vector<std::int64_t>{1, 2}},
                                 {"count_include_pad", std::int64_t{0}}});
         b.output(b.op("reduce_mean", {p},
                       {{"axes", std::vector<std::int64_t>{-1}}, {"keepdims", std::int64_t{0}}}));
       }},
  };
}

class XnnpackOpTest : public ::testing::TestWithParam<OpCase> {};

INSTANTIATE_TEST_SUITE_P(Ops, XnnpackOpTest, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST_P(XnnpackOpTest, MatchesPortableKernels) {
  GraphBuilder b;
  GetParam().build(b);
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(*graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = testing::export_graph(*graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();

  // Every node of these graphs is one XNNPACK takes: one delegate, nothing else.
  const auto& instructions = delegated->instruction_id_to_num_outs_map().at("forward");
  EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  EXPECT_EQ(instructions.size(), 1u);

  std::string error;
  etdump::ETDumpGen tracer;
  const std::vector<float> x = testing::run_once(delegated->buffer(), &tracer, &error);
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<float> p = testing::run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(x.size(), p.size());
  EXPECT_LT(testing::max_relative_error(x, p), kTolerance);

  // The operators' events map to every source op (fused ones included).
  const aot::DebugHandleMap& map =
      *delegated->delegate_map().at("forward").begin()->second.delegate_map;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), "ops");
  ASSERT_TRUE(dump.ok()) << dump.message();
  const backends::testing::LoggedDelegateEvents logged =
      backends::testing::logged_delegate_events(*dump, map);
  EXPECT_EQ(logged.unmapped, 0u) << "events logged with identifiers the map lacks";
  std::set<DebugHandle> source_ops;
  for (const aot::Node& node : graph->nodes) source_ops.insert(node.debug_handle);
  EXPECT_EQ(logged.handles, source_ops);
}

// x[:, i] with one constant index (how ViT picks its class token): a slice
// (and, for a 0-d index, a copy dropping the dim) in the delegate, equal to
// the portable kernels; any other index stays portable with its reason.
TEST(XnnpackGatherTest, OneConstantIndexIsASlice) {
  for (const bool zero_d : {true, false}) {
    SCOPED_TRACE(zero_d ? "0-d index" : "1-element index");
    aot::Graph graph = backends::testing::class_token_gather(zero_d, -5);  // row 2
    ASSERT_EQ(xnnpack_partition_report(graph), (std::vector<std::string>{"", ""}));
    StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(graph, true);
    StatusOr<exporter::ExecutorchProgramManager> portable = testing::export_graph(graph, false);
    ASSERT_TRUE(delegated.ok()) << delegated.message();
    ASSERT_TRUE(portable.ok()) << portable.message();
    EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
    std::string error;
    const std::vector<float> d = testing::run_once(delegated->buffer(), nullptr, &error);
    ASSERT_TRUE(error.empty()) << error;
    const std::vector<float> p = testing::run_once(portable->buffer(), nullptr, &error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(d.size(), 2u * 8u);
    EXPECT_EQ(d, p);

    aot::Value& index = backends::testing::index_value(graph);
    index.int_data = {7};
    EXPECT_EQ(xnnpack_partition_report(graph)[1], "gather index out of range");
    index.int_data = {0, 1};
    EXPECT_EQ(xnnpack_partition_report(graph)[1], "gather of other than one constant index");
  }
}

// An expand convolution written into its channels of the concatenation
// (concat_in_place.h) still logs its own output for numeric debugging:
// gathered from the concatenation's pixel stride, equal to its slice of
// the concatenation's logged output. Batch 2, so the stride crosses
// images too.
TEST(XnnpackConcatInPlaceTest, ExpandOutputsLogTheirOwnChannels) {
  GraphBuilder b;
  b.output(b.relu(fire_module(b, image(b, 6, 7))));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  StatusOr<exporter::ExecutorchProgramManager> delegated = testing::export_graph(*graph, true);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  std::vector<std::uint8_t> debug_data(1 << 20);
  Result<etdump::BufferDataSink> sink = etdump::BufferDataSink::create(debug_data);
  ASSERT_TRUE(sink.ok());
  etdump::ETDumpGen tracer;
  tracer.set_data_sink(&*sink);
  tracer.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  std::string error;
  (void)testing::run_once(delegated->buffer(), &tracer, &error);
  ASSERT_TRUE(error.empty()) << error;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), "fire");
  ASSERT_TRUE(dump.ok()) << dump.message();

  // Logged delegate outputs in order: squeeze (6 -> 4 channels), the two
  // expands (5 and 3 channels), the concatenation (8), the relu.
  std::vector<std::vector<double>> values;
  std::vector<std::vector<std::int64_t>> sizes;
  for (const etdump::Event& e : dump->runs.back().events) {
    const etdump::DebugEvent* d = e.debug();
    if (d == nullptr || !d->value.tensor.has_value()) continue;
    StatusOr<std::vector<double>> v = etdump::read_tensor_values(*d->value.tensor, debug_data);
    ASSERT_TRUE(v.ok()) << v.message();
    values.push_back(*v);
    sizes.push_back(d->value.tensor->sizes);
  }
  // Logged in order: the input's layout conversion, the squeeze (4
  // channels), the expands (5 and 3), the concatenation (8), then the
  // relu, the conversion back and the method's output (8 each).
  std::size_t first_expand = 0;
  while (first_expand < sizes.size() && sizes[first_expand][1] != 5) ++first_expand;
  ASSERT_LT(first_expand + 2, values.size());
  const std::size_t concat = first_expand + 2;
  ASSERT_EQ(sizes[concat], (std::vector<std::int64_t>{2, 8, 7, 7}));
  const std::vector<std::int64_t> expand_channels = {5, 3};
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<double>& expand = values[concat - 2 + k];
    ASSERT_EQ(sizes[concat - 2 + k], (std::vector<std::int64_t>{2, expand_channels[k], 7, 7}));
    for (std::int64_t n = 0; n < 2; ++n) {
      for (std::int64_t c = 0; c < expand_channels[k]; ++c) {
        for (std::int64_t p = 0; p < 49; ++p) {
          const std::int64_t channel = c + (k == 0 ? 0 : expand_channels[0]);
          ASSERT_EQ(expand[static_cast<std::size_t>((n * expand_channels[k] + c) * 49 + p)],
                    values[concat][static_cast<std::size_t>((n * 8 + channel) * 49 + p)])
              << "expand " << k << " n " << n << " c " << c << " pixel " << p;
        }
      }
    }
  }
}

// Threads change the work split, never the result beyond rounding.
TEST(XnnpackThreadsTest, TwoThreadsMatchOne) {
  GraphBuilder b;
  b.output(b.relu(batch_norm(b, conv(b, image(b, 8, 16), 8, 16), 16)));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  std::string error;
  std::vector<std::vector<float>> outputs;
  for (const char* threads : {"1", "2"}) {
    auto program = testing::export_graph(
        *graph, true, {aot::CompileSpec::from_string(runtime::kThreadsSpecKey, threads)});
    ASSERT_TRUE(program.ok()) << program.message();
    outputs.push_back(testing::run_once(program->buffer(), nullptr, &error));
    ASSERT_TRUE(error.empty()) << error;
  }
  EXPECT_LT(testing::max_relative_error(outputs[0], outputs[1]), kTolerance);
}

// The graph `b` built, one delegate on 2, 3 and 1 threads, matches the
// portable kernels each time. The splits first: a run right after another
// of the same plan could find a row it failed to write still holding the
// right value.
void expect_threads_match_portable(GraphBuilder& b) {
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  std::string error;
  auto portable = testing::export_graph(*graph, false);
  ASSERT_TRUE(portable.ok()) << portable.message();
  const std::vector<float> want = testing::run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  for (const char* threads : {"2", "3", "1"}) {
    auto program = testing::export_graph(
        *graph, true, {aot::CompileSpec::from_string(runtime::kThreadsSpecKey, threads)});
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_EQ(program->instruction_id_to_num_outs_map().at("forward").size(), 1u);
    const std::vector<float> got = testing::run_once(program->buffer(), nullptr, &error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(got.size(), want.size());
    EXPECT_LT(testing::max_relative_error(got, want), kTolerance) << threads << " threads";
  }
}

// A conv3d's taps on the pool (conv_igemm's shares, XNNPACK's adds) match
// the portable kernels on 2 and 3 threads as on 1.
TEST(XnnpackThreadsTest, Conv3dOnThePoolMatchesPortable) {
  GraphBuilder b;
  const ValueId x = clip(b, 1, 16, 4, 9, 9);
  b.output(b.relu(b.add(conv3d(b, x, 16, 32, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}),
                        conv3d(b, x, 16, 32, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}))));
  expect_threads_match_portable(b);
}

// Our own kernels split over the pool once their work passes 64K: erf and
// layer norm by rows, attention's matmul by batches (2 batches on 2
// threads) or by rows (2 batches on 3 threads; 1 batch on 2). Every split
// matches the portable kernels.
class XnnpackOwnKernelThreadsTest : public ::testing::TestWithParam<std::vector<std::int64_t>> {};

TEST_P(XnnpackOwnKernelThreadsTest, SplitsMatchPortable) {
  const std::vector<std::int64_t>& shape = GetParam();
  GraphBuilder b;
  const ValueId x = b.input("x", ScalarType::kFloat, shape);
  const ValueId e = b.op("erf", {x}, {});
  const std::int64_t cols = shape.back();
  const ValueId ln = b.op("layer_norm", {e, weights(b, "ln.s", {cols}), weights(b, "ln.b", {cols})},
                          {{"axis", std::int64_t{-1}}, {"eps", 1e-5}});
  b.output(b.matmul(ln, b.transpose(ln, {0, 2, 1})));
  expect_threads_match_portable(b);
}

INSTANTIATE_TEST_SUITE_P(Shapes, XnnpackOwnKernelThreadsTest,
                         ::testing::Values(std::vector<std::int64_t>{2, 130, 256},
                                           std::vector<std::int64_t>{1, 260, 256}));

}  // namespace
}  // namespace glassbox::backends::xnnpack

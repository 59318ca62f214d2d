// Per-operator tests of the oneDNN delegate: each case is a tiny graph
// exported twice, once on the portable kernels and once through the oneDNN
// partitioner; both run on the same random inputs and must agree within
// kTolerance, every node must be delegated, and the delegate's events
// must map to every source op (fused ones included).
//
// kTolerance = 1e-4 in max |x - p| / (1 + |p|): oneDNN reassociates sums
// (blocked GEMM), folds batch norm into the weights and uses polynomial
// exp / erf; each moves results by a few ulp to ~1e-6 here, so 1e-4 flags
// real bugs (a wrong format, padding or post-op is off by O(1)).

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "backends/common/testing/delegate_test_helpers.h"
#include "backends/onednn/aot/onednn_backend.h"
#include "backends/onednn/aot/onednn_partitioner.h"
#include "backends/onednn/runtime/onednn_runtime.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"

namespace glassbox::backends::onednn {
namespace {

using aot::GraphBuilder;
using aot::ValueId;

constexpr double kTolerance = 1e-4;

StatusOr<exporter::ExecutorchProgramManager> export_graph(
    aot::Graph graph, bool delegated, std::vector<aot::CompileSpec> specs = {}) {
  static OnednnBackend backend;
  exporter::Recipe recipe;
  if (delegated) {
    recipe.partitioners.push_back(make_onednn_partitioner(backend));
    recipe.compile_specs = std::move(specs);
  }
  return exporter::export_model(std::move(graph), recipe);
}

using testing::batch_norm;
using testing::conv;
using testing::image;
using testing::max_relative_error;
using testing::weights;

// Output 0 of one run on seeded random inputs; empty with `*error` set on
// failure.
std::vector<float> run_once(const std::vector<std::uint8_t>& bytes, runtime::EventTracer* tracer,
                            std::string* error) {
  if (register_onednn_backend_runtime() != Error::kOk) {
    *error = "cannot register the runtime half";
    return {};
  }
  return testing::run_program_once(bytes, tracer, error);
}

struct OpCase {
  std::string name;
  std::function<void(GraphBuilder&)> build;
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

// regnet_y's squeeze-excite: x a grouped convolution's output, which
// oneDNN leaves in channel blocks (aBcd8b on AVX-512 here); the scale, from
// 1x1 convolutions, one value per image and channel. oneDNN runs that
// multiply on its reference kernel; the delegate on ours
// (blocked_channel_binary.h).
ValueId regnet_y_squeeze_excite(GraphBuilder& b, std::int64_t hw) {
  const ValueId stem = b.relu(conv(b, image(b, 4, hw), 4, 48, {}, 1));
  const ValueId x = b.relu(conv(b, stem, 48, 48, {.padding = {1, 1}, .groups = 6}));
  const ValueId s =
      b.sigmoid(conv(b, b.relu(conv(b, b.global_avg_pool2d(x), 48, 12, {}, 1)), 12, 48, {}, 1));
  return b.relu(conv(b, b.mul(x, s), 48, 48, {}, 1));
}

std::vector<OpCase> cases() {
  return {
      {"conv_bias_relu", [](GraphBuilder& b) { b.output(b.relu(conv(b, image(b), 4, 16))); }},
      {"conv_bn_relu",
       [](GraphBuilder& b) { b.output(b.relu(batch_norm(b, conv(b, image(b), 4, 16), 16))); }},
      {"conv_strided_depthwise",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 16);
         b.output(conv(b, x, 16, 16, {.stride = {2, 2}, .padding = {1, 1}, .groups = 16}));
       }},
      {"grouped_conv_after_conv",
       [](GraphBuilder& b) {
         ValueId x = b.relu(conv(b, image(b, 4, 14), 4, 64));
         b.output(conv(b, x, 64, 64, {.padding = {1, 1}, .groups = 4}));
       }},
      {"conv_silu_is_a_swish_post_op",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 16);
         b.output(b.mul(x, b.sigmoid(x)));
       }},
      {"residual_sum_relu",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 16);
         ValueId y = batch_norm(b, conv(b, b.relu(x), 16, 16), 16);
         b.output(b.relu(b.add(y, x)));
       }},
      // The sum is added in the residual's buffer only when nothing reads
      // the residual afterwards; these two read it again.
      {"residual_read_after_the_sum",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 16);
         ValueId y = batch_norm(b, conv(b, b.relu(x), 16, 16), 16);
         b.output(b.mul(b.relu(b.add(y, x)), x));
       }},
      {"residual_is_also_a_delegate_output",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 16);
         ValueId y = batch_norm(b, conv(b, b.relu(x), 16, 16), 16);
         b.output(x);  // output 0, the one compared
         b.output(b.relu(b.add(y, x)));
       }},
      {"max_pool_ceil_mode",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(conv(b, image(b, 4, 10), 4, 8),
                               {.kernel = {3, 3}, .stride = {{2, 2}}, .ceil_mode = true}));
       }},
      // Over the NHWC a convolution leaves (our kernel, nhwc_max_pool.h):
      // 80 channels are a block of 64 and a remainder.
      {"max_pool_over_nhwc_stride_1_padded",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(conv(b, image(b, 4, 9), 4, 80),
                               {.kernel = {3, 3}, .stride = {{1, 1}}, .padding = {1, 1}}));
       }},
      {"max_pool_over_nhwc_ceil_mode",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(conv(b, image(b, 4, 12), 4, 64),
                               {.kernel = {3, 3}, .stride = {{2, 2}}, .ceil_mode = true}));
       }},
      {"max_pool_padded_plain",
       [](GraphBuilder& b) {
         b.output(
             b.max_pool2d(image(b), {.kernel = {3, 3}, .stride = {{2, 2}}, .padding = {1, 1}}));
       }},
      {"avg_pool_ceil_exclude_pad",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(conv(b, image(b, 4, 10), 4, 8), {.kernel = {3, 3},
                                                                .stride = {{2, 2}},
                                                                .padding = {1, 1},
                                                                .ceil_mode = true,
                                                                .count_include_pad = false}));
       }},
      {"avg_pool_include_pad",
       [](GraphBuilder& b) {
         b.output(
             b.avg_pool2d(image(b), {.kernel = {3, 3}, .stride = {{1, 1}}, .padding = {1, 1}}));
       }},
      {"mean_over_h_and_w_kept",
       [](GraphBuilder& b) {
         b.output(b.op("reduce_mean", {conv(b, image(b), 4, 16)},
                       {{"axes", std::vector<std::int64_t>{2, 3}}, {"keepdims", std::int64_t{1}}}));
       }},
      {"mean_over_h_and_w_dropped",
       [](GraphBuilder& b) {
         b.output(
             b.op("reduce_mean", {conv(b, image(b), 4, 16)},
                  {{"axes", std::vector<std::int64_t>{-1, -2}}, {"keepdims", std::int64_t{0}}}));
       }},
      {"global_avg_pool_flatten_linear",
       [](GraphBuilder& b) {
         ValueId x = b.flatten(b.global_avg_pool2d(conv(b, image(b), 4, 16)), 1, -1);
         b.output(b.relu(b.linear(x, weights(b, "fc.w", {10, 16}), weights(b, "fc.b", {10}))));
       }},
      {"matmul_bias_add",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 8});
         b.output(b.add(b.matmul(x, weights(b, "m.w", {8, 5})), weights(b, "m.b", {5})));
       }},
      {"hardsigmoid_mul_squeeze_excite",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 8);
         ValueId s = conv(b, b.global_avg_pool2d(x), 8, 8, {}, 1);
         b.output(b.mul(x, b.hardsigmoid(s, 1.0 / 6, 0.5)));
       }},
      {"hardswish_as_onnx_13_writes_it",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 8);
         b.output(b.mul(x, b.hardsigmoid(x, 1.0 / 6, 0.5)));
       }},
      {"eltwise_chain",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {4, 33});
         b.output(b.sigmoid(b.hardswish(b.clamp(x, -0.7, 0.4))));
       }},
      {"gelu_tanh_exp",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {4, 33});
         ValueId g = b.op("gelu", {x}, {{"approximate", std::string("none")}});
         b.output(b.op("exp", {b.op("tanh", {g}, {})}, {}));
       }},
      {"binary_broadcast_constant",
       [](GraphBuilder& b) {
         ValueId x = conv(b, image(b), 4, 8);
         b.output(b.sub(b.div(x, weights(b, "k", {8, 1, 1})), weights(b, "k2", {1})));
       }},
      // swin_t's shifted-window mask: a broadcast along a middle dim,
      // which oneDNN runs on its jit kernel only with the dims merged
      // (the binary kernels' broadcast_walk).
      {"window_mask_add",
       [](GraphBuilder& b) {
         ValueId attn = b.relu(b.input("attn", ScalarType::kFloat, {1, 4, 3, 5, 5}));
         ValueId mask = b.relu(b.input("mask", ScalarType::kFloat, {1, 4, 1, 5, 5}));
         b.output(b.add(attn, mask));
       }},
      // regnet_y's squeeze-excite: the scale multiplies a channel-blocked
      // output (see SqueezeExciteOverBlockedChannelsAvoidsTheReferenceKernel).
      {"squeeze_excite_blocked_channels",
       [](GraphBuilder& b) { b.output(regnet_y_squeeze_excite(b, 6)); }},
      {"softmax_after_conv",
       [](GraphBuilder& b) { b.output(b.softmax(conv(b, image(b), 4, 8), 1)); }},
      // Squeezenet's fire module: a channel concat of two convolutions'
      // NHWC outputs, on our kernel (nhwc_concat.h).
      {"fire_module",
       [](GraphBuilder& b) {
         const ValueId squeeze = b.relu(conv(b, image(b, 6, 7), 6, 4));
         b.output(b.concat({b.relu(conv(b, squeeze, 4, 5)), b.relu(conv(b, squeeze, 4, 3))}, 1));
       }},
      {"concat_channels",
       [](GraphBuilder& b) {
         ValueId x = image(b);
         b.output(b.concat({conv(b, x, 4, 3), conv(b, x, 4, 5), b.relu(x)}, 1));
       }},
      {"layer_norm_last_axis",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 5, 16});
         b.output(b.op("layer_norm", {x, weights(b, "ln.s", {16}), weights(b, "ln.b", {16})},
                       {{"axis", std::int64_t{-1}}, {"eps", 1e-5}}));
       }},
      {"attention_scores_and_context",
       [](GraphBuilder& b) {
         // [batch, heads, tokens, head_dim]: softmax(Q K^T) V, K^T by a
         // transpose, as the exporters write attention.
         ValueId q = b.input("q", ScalarType::kFloat, {2, 3, 5, 8});
         ValueId k = b.input("k", ScalarType::kFloat, {2, 3, 5, 8});
         ValueId v = b.input("v", ScalarType::kFloat, {2, 3, 5, 8});
         ValueId scores = b.matmul(q, b.transpose(k, {0, 1, 3, 2}));
         b.output(b.matmul(b.softmax(scores, -1), v));
       }},
      {"attention_scores_scaled_by_a_division",
       [](GraphBuilder& b) {
         // (Q K^T) / sqrt(d): the division is the matmul's linear post-op.
         ValueId q = b.input("q", ScalarType::kFloat, {2, 3, 5, 8});
         ValueId k = b.input("k", ScalarType::kFloat, {2, 3, 5, 8});
         ValueId scores = b.matmul(q, b.transpose(k, {0, 1, 3, 2}));
         b.output(b.softmax(b.div(scores, b.constant("sqrt_d", {}, {2.828427f})), -1));
       }},
      {"scalar_affine_chain_after_linear",
       [](GraphBuilder& b) {
         // 0.5 + ((x W + b) * 2 - 1) / 4, each step a linear post-op.
         ValueId x = b.linear(b.input("x", ScalarType::kFloat, {3, 8}), weights(b, "a.w", {6, 8}),
                              weights(b, "a.b", {6}));
         ValueId y = b.sub(b.mul(x, b.constant("two", {}, {2.f})), b.constant("one", {}, {1.f}));
         ValueId z = b.div(y, b.constant("four", {}, {4.f}));
         b.output(b.add(b.constant("half", {}, {0.5f}), z));
       }},
      {"linear_residual_add",
       [](GraphBuilder& b) {
         // x + fc(x), as a transformer block adds its sublayer's output.
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 8}));
         ValueId y = b.linear(x, weights(b, "r.w", {8, 8}), weights(b, "r.b", {8}));
         b.output(b.add(x, y));
       }},
      {"linear_residual_added_in_place",
       [](GraphBuilder& b) {
         // x is dead after the add: the matmul adds into x's buffer.
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 8}));
         ValueId y = b.linear(b.sigmoid(x), weights(b, "r.w", {8, 8}), weights(b, "r.b", {8}));
         b.output(b.add(y, x));
       }},
      {"linear_residual_is_also_a_delegate_output",
       [](GraphBuilder& b) {
         // x is plain, so it leaves the delegate as it is: no later reader,
         // only the output list says its buffer must survive the sum.
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 8}));
         ValueId y = b.linear(b.sigmoid(x), weights(b, "r.w", {8, 8}), weights(b, "r.b", {8}));
         b.output(x);  // output 0, the one compared
         b.output(b.add(y, x));
       }},
      {"linear_residual_viewed_by_a_later_reader",
       [](GraphBuilder& b) {
         // v views x's buffer: reading v after the sum reads x.
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 8}));
         ValueId v = b.reshape(x, {10, 8});
         ValueId y = b.linear(b.sigmoid(x), weights(b, "r.w", {8, 8}), weights(b, "r.b", {8}));
         b.output(b.mul(b.reshape(b.add(y, x), {10, 8}), v));
       }},
      {"linear_residual_read_after_the_sum",
       [](GraphBuilder& b) {
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 8}));
         ValueId y = b.linear(b.sigmoid(x), weights(b, "r.w", {8, 8}), weights(b, "r.b", {8}));
         b.output(b.mul(b.add(y, x), x));
       }},
      {"batch_matmul_broadcasts_batch_dims",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {4, 1, 5, 6});
         ValueId y = b.input("y", ScalarType::kFloat, {3, 6, 7});
         b.output(b.relu(b.matmul(x, y)));
       }},
      {"gelu_as_exported_is_one_eltwise",
       [](GraphBuilder& b) {
         // (x * (erf(x / sqrt 2) + 1)) * 0.5, as torch.onnx writes GELU.
         ValueId x = b.linear(b.input("x", ScalarType::kFloat, {2, 5, 8}),
                              weights(b, "g.w", {6, 8}), weights(b, "g.b", {6}));
         ValueId scaled = b.div(x, b.constant("sqrt2", {}, {1.4142135f}));
         ValueId erf = b.op("erf", {scaled}, {});
         ValueId plus = b.add(erf, b.constant("one", {}, {1.f}));
         b.output(b.mul(b.mul(x, plus), b.constant("half", {}, {0.5f})));
       }},
      {"slice_of_the_last_dim",
       [](GraphBuilder& b) {
         // One third of a fused q/k/v projection, as attention splits it.
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 12}));
         b.output(b.op("slice", {x},
                       {{"starts", std::vector<std::int64_t>{0, 0, 4}},
                        {"steps", std::vector<std::int64_t>{1, 1, 1}},
                        {"shape", std::vector<std::int64_t>{2, 5, 4}}}));
       }},
      {"slice_with_steps",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 5, 12});
         b.output(b.op("slice", {x},
                       {{"starts", std::vector<std::int64_t>{1, 1, 0}},
                        {"steps", std::vector<std::int64_t>{1, 2, 3}},
                        {"shape", std::vector<std::int64_t>{1, 2, 4}}}));
       }},
      {"layer_norm_as_exported_before_opset_17",
       [](GraphBuilder& b) {
         // Nine nodes, one layer normalization.
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 5, 8}));
         const aot::AttributeMap last = {{"axes", std::vector<std::int64_t>{-1}},
                                         {"keepdims", std::int64_t{1}}};
         ValueId d = b.sub(x, b.op("reduce_mean", {x}, last));
         ValueId var =
             b.op("reduce_mean", {b.op("pow", {d, b.constant("two", {}, {2.f})}, {})}, last);
         ValueId norm = b.div(d, b.op("sqrt", {b.add(var, b.constant("eps", {}, {1e-5f}))}, {}));
         b.output(b.add(b.mul(norm, weights(b, "ln.g", {8})), weights(b, "ln.b", {8})));
       }},
      {"concat_with_a_constant_class_token",
       [](GraphBuilder& b) {
         ValueId patches = b.relu(b.input("x", ScalarType::kFloat, {1, 6, 8}));
         b.output(b.concat({weights(b, "cls", {1, 1, 8}), patches}, 1));
       }},
      {"transpose_rank3",
       [](GraphBuilder& b) {
         b.output(b.transpose(b.input("x", ScalarType::kFloat, {2, 3, 4}), {2, 0, 1}));
       }},
      {"transpose_rank6",
       [](GraphBuilder& b) {
         ValueId y = b.input("y", ScalarType::kFloat, {1, 2, 3, 2, 2, 3});
         b.output(b.transpose(b.relu(y), {5, 3, 1, 0, 2, 4}));
       }},
      // A reshape views its input's buffer: the input is read again after
      // the view, and the view is a delegate output.
      {"reshape_views_are_read_beside_their_input",
       [](GraphBuilder& b) {
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 3, 4}));
         ValueId v = b.reshape(x, {6, 4});
         ValueId w = b.reshape(b.sigmoid(x), {6, 4});
         b.output(b.add(b.relu(v), w));
         b.output(v);
       }},
      {"transpose_moving_a_unit_dim_is_a_view",
       [](GraphBuilder& b) {
         ValueId x = b.relu(b.input("x", ScalarType::kFloat, {1, 5, 8}));
         ValueId t = b.transpose(x, {1, 0, 2});
         b.output(b.add(b.sigmoid(t), b.reshape(x, {5, 1, 8})));
         b.output(t);
       }},
      // DenseNet's pre-activation: a batch norm after a concat, no
      // convolution to fold it into (a depthwise 1x1 convolution, with the
      // relu after it as its post-op).
      {"batch_norm_after_concat",
       [](GraphBuilder& b) {
         ValueId x = b.relu(image(b));
         b.output(b.relu(batch_norm(b, b.concat({x, b.sigmoid(x)}, 1), 8)));
       }},
      // avg_pool2d(padding=1) as PyTorch exports it (inception_v3): a pad
      // of zeros, asymmetric here, then a pool without padding; one
      // oneDNN pool counting the padding.
      {"zero_pad_then_avg_pool",
       [](GraphBuilder& b) {
         ValueId x = b.relu(image(b));
         ValueId padded = b.op("pad", {x},
                               {{"pads", std::vector<std::int64_t>{0, 0, 1, 2, 0, 0, 1, 0}},
                                {"mode", std::string("constant")},
                                {"value", 0.0}});
         b.output(b.avg_pool2d(padded, {.kernel = {3, 3}, .stride = {{1, 1}}}));
       }},
      // A Winograd convolution (3x3, 32 channels, 28x28) reading a delegate
      // input: the input's reorder writes the format the Winograd kernel
      // takes.
      {"winograd_convolution_of_a_delegate_input",
       [](GraphBuilder& b) { b.output(b.relu(conv(b, image(b, 32, 28), 32, 32))); }},
      {"reshape_after_conv",
       [](GraphBuilder& b) {
         b.output(b.reshape(conv(b, image(b), 4, 8), {2, -1, 9}));
       }},
      // 1-D convolutions and pools (a raw-audio classifier's layers): each
      // the 2-D primitive over [N, C, 1, L] between two reshapes, all its
      // operators mapped to the node (and the folded batch norm and relu).
      {"conv1d_batch_norm_relu",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {2, 4, 40});
         const ValueId y =
             b.op("conv1d", {x, weights(b, "k1.w", {8, 4, 5}), weights(b, "k1.b", {8})},
                  {{"stride", std::vector<std::int64_t>{2}},
                   {"padding", std::vector<std::int64_t>{2}},
                   {"dilation", std::vector<std::int64_t>{1}},
                   {"groups", std::int64_t{1}}});
         b.output(b.relu(batch_norm(b, y, 8)));
       }},
      {"grouped_dilated_conv1d_asymmetric_padding",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {2, 6, 31});
         b.output(b.op("conv1d", {x, weights(b, "k2.w", {6, 2, 3})},
                       {{"stride", std::vector<std::int64_t>{1}},
                        {"padding", std::vector<std::int64_t>{3, 1}},
                        {"dilation", std::vector<std::int64_t>{2}},
                        {"groups", std::int64_t{3}}}));
       }},
      // The mean over L that ends a 1-D network (its global average pool).
      {"conv1d_then_mean_over_length",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {2, 4, 24});
         const ValueId y = b.relu(b.op("conv1d", {x, weights(b, "k3.w", {6, 4, 3})},
                                       {{"stride", std::vector<std::int64_t>{1}},
                                        {"padding", std::vector<std::int64_t>{1}},
                                        {"dilation", std::vector<std::int64_t>{1}},
                                        {"groups", std::int64_t{1}}}));
         b.output(b.op("reduce_mean", {y},
                       {{"axes", std::vector<std::int64_t>{-1}}, {"keepdims", std::int64_t{0}}}));
       }},
      {"max_pool1d_then_avg_pool1d",
       [](GraphBuilder& b) {
         const ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 4, 33}));
         const ValueId m = b.op("max_pool1d", {x},
                                {{"kernel", std::vector<std::int64_t>{3}},
                                 {"stride", std::vector<std::int64_t>{2}},
                                 {"padding", std::vector<std::int64_t>{1}}});
         b.output(b.op("avg_pool1d", {m},
                       {{"kernel", std::vector<std::int64_t>{4}},
                        {"stride", std::vector<std::int64_t>{3}},
                        {"padding", std::vector<std::int64_t>{1, 2}},
                        {"count_include_pad", std::int64_t{0}}}));
       }},
      // 3-D convolutions and pools (a video network's, r3d_18's): oneDNN's
      // 3-D primitives over [N, C, D, H, W] (format 1.5).
      {"conv3d_stem_then_residual_block",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {1, 3, 4, 14, 14});
         // r3d_18's stem: 3x7x7, stride 1x2x2, padding 1x3x3, batch norm, relu.
         const ValueId stem =
             b.relu(batch_norm(b,
                               b.op("conv3d", {x, weights(b, "s.w", {8, 3, 3, 7, 7})},
                                    {{"stride", std::vector<std::int64_t>{1, 2, 2}},
                                     {"padding", std::vector<std::int64_t>{1, 3, 3}},
                                     {"dilation", std::vector<std::int64_t>{1, 1, 1}},
                                     {"groups", std::int64_t{1}}}),
                               8));
         const auto conv3 = [&](ValueId in, const char* name) {
           return b.op("conv3d",
                       {in, weights(b, std::string(name) + ".w", {8, 8, 3, 3, 3}),
                        weights(b, std::string(name) + ".b", {8})},
                       {{"stride", std::vector<std::int64_t>{1, 1, 1}},
                        {"padding", std::vector<std::int64_t>{1, 1, 1}},
                        {"dilation", std::vector<std::int64_t>{1, 1, 1}},
                        {"groups", std::int64_t{1}}});
         };
         const ValueId y = b.relu(conv3(stem, "c1"));
         b.output(b.relu(b.add(conv3(y, "c2"), stem)));
       }},
      {"depthwise_dilated_conv3d_asymmetric_padding",
       [](GraphBuilder& b) {
         const ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 6, 5, 9, 11}));
         b.output(b.op("conv3d", {x, weights(b, "d.w", {6, 1, 3, 3, 2})},
                       {{"stride", std::vector<std::int64_t>{2, 1, 2}},
                        {"padding", std::vector<std::int64_t>{1, 2, 0, 0, 1, 1}},
                        {"dilation", std::vector<std::int64_t>{1, 2, 1}},
                        {"groups", std::int64_t{6}}}));
       }},
      {"max_pool3d_then_avg_pool3d",
       [](GraphBuilder& b) {
         const ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 4, 7, 9, 10}));
         const ValueId m = b.op("max_pool3d", {x},
                                {{"kernel", std::vector<std::int64_t>{2, 3, 3}},
                                 {"stride", std::vector<std::int64_t>{1, 2, 2}},
                                 {"padding", std::vector<std::int64_t>{0, 1, 1}}});
         b.output(b.op("avg_pool3d", {m},
                       {{"kernel", std::vector<std::int64_t>{2, 2, 3}},
                        {"stride", std::vector<std::int64_t>{2, 2, 1}},
                        {"padding", std::vector<std::int64_t>{1, 0, 1, 0, 1, 1}},
                        {"count_include_pad", std::int64_t{0}}}));
       }},
      {"conv3d_then_mean_over_volume_then_linear",
       [](GraphBuilder& b) {
         const ValueId x = b.input("x", ScalarType::kFloat, {2, 3, 4, 6, 6});
         const ValueId y = b.relu(b.op("conv3d", {x, weights(b, "v.w", {8, 3, 1, 3, 3})},
                                       {{"stride", std::vector<std::int64_t>{1, 1, 1}},
                                        {"padding", std::vector<std::int64_t>{0, 1, 1}},
                                        {"dilation", std::vector<std::int64_t>{1, 1, 1}},
                                        {"groups", std::int64_t{1}}}));
         const ValueId mean =
             b.op("reduce_mean", {y},
                  {{"axes", std::vector<std::int64_t>{2, 3, 4}}, {"keepdims", std::int64_t{0}}});
         b.output(b.linear(mean, weights(b, "fc.w", {5, 8}), weights(b, "fc.b", {5})));
       }},
  };
}

class OnednnOpTest : public ::testing::TestWithParam<OpCase> {};

INSTANTIATE_TEST_SUITE_P(Ops, OnednnOpTest, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST_P(OnednnOpTest, MatchesPortableKernels) {
  GraphBuilder b;
  GetParam().build(b);
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  StatusOr<exporter::ExecutorchProgramManager> delegated = export_graph(*graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = export_graph(*graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();
  EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  EXPECT_EQ(delegated->instruction_id_to_num_outs_map().at("forward").size(), 1u);

  std::string error;
  etdump::ETDumpGen tracer;
  const std::vector<float> x = run_once(delegated->buffer(), &tracer, &error);
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<float> p = run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(x.size(), p.size());
  EXPECT_LT(max_relative_error(x, p), kTolerance);

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
  EXPECT_EQ(logged.identifiers.size(), map.size()) << "a mapped identifier was never logged";
}

// The string identifiers of `graph` lowered whole to oneDNN.
StatusOr<std::set<std::string>> string_identifiers(const aot::Graph& graph) {
  OnednnBackend backend;
  const StatusOr<aot::PreprocessResult> result = backend.preprocess(
      graph, std::vector{aot::CompileSpec::from_string("identifiers", "string")});
  if (!result.ok()) return result.status();
  std::set<std::string> names;
  if (result->debug_handle_map.has_value()) {
    for (const auto& entry : *result->debug_handle_map) {
      names.insert(std::get<std::string>(entry.first));
    }
  }
  return names;
}

// The fused primitives: conv + batch_norm + add (sum) + relu is ONE
// convolution whose identifier maps to all four nodes.
TEST(OnednnFusionTest, ConvBatchNormSumReluIsOnePrimitive) {
  GraphBuilder b;
  ValueId x = conv(b, image(b), 4, 16);
  ValueId y = batch_norm(b, conv(b, x, 16, 16), 16);
  b.output(b.relu(b.add(y, x)));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  StatusOr<std::set<std::string>> lowered = string_identifiers(*graph);
  ASSERT_TRUE(lowered.ok()) << lowered.message();
  const std::set<std::string>& names = *lowered;
  // The first conv's source is a delegate input: a reorder into the
  // format the convolution picks, its own identifier.
  const std::string conv2 = graph->nodes[1].name, bn = graph->nodes[2].name,
                    add = graph->nodes[3].name, relu = graph->nodes[4].name;
  EXPECT_TRUE(names.contains(conv2 + "+" + bn + "+" + add + "+" + relu))
      << ::testing::PrintToString(names);
  EXPECT_TRUE(names.contains(graph->nodes[0].name));
  EXPECT_TRUE(names.contains("x.reorder"));
  // The delegate output leaves a convolution: a reorder back to plain.
  EXPECT_TRUE(names.contains(graph->find_value(graph->outputs[0])->name + ".to_plain"));
  EXPECT_EQ(names.size(), 4u);
}

// The metadata of every delegate event of one run of `graph` lowered whole
// to oneDNN: each primitive's kind and the kernel that ran; only those
// starting with `prefix` when it is given.
std::vector<std::string> delegate_metadata(const aot::Graph& graph, std::string_view prefix = "") {
  StatusOr<exporter::ExecutorchProgramManager> program = export_graph(graph, true);
  EXPECT_TRUE(program.ok()) << program.message();
  if (!program.ok()) return {};
  std::string error;
  etdump::ETDumpGen tracer;
  (void)run_once(program->buffer(), &tracer, &error);
  EXPECT_TRUE(error.empty()) << error;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), "kernels");
  EXPECT_TRUE(dump.ok()) << dump.message();
  if (!dump.ok()) return {};
  std::vector<std::string> out;
  for (const etdump::Event& e : dump->runs.back().events) {
    const etdump::ProfileEvent* pe = e.profile();
    if (pe == nullptr || !pe->delegate_debug_metadata.has_value()) continue;
    std::string metadata(pe->delegate_debug_metadata->begin(), pe->delegate_debug_metadata->end());
    if (metadata.starts_with(prefix)) out.push_back(std::move(metadata));
  }
  return out;
}

// A max pool over the NHWC output of a convolution runs our kernel, named
// in its event's metadata (oneDNN 2.6's own is about 2x slower there).
TEST(OnednnKernelChoiceTest, MaxPoolOverNhwcRunsOurKernel) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "oneDNN picks NHWC with AVX2 and up";
  GraphBuilder b;
  b.output(b.max_pool2d(b.relu(conv(b, image(b, 4, 14), 4, 64)),
                        {.kernel = {3, 3}, .stride = {{2, 2}}, .ceil_mode = true}));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  const std::vector<std::string> pools = delegate_metadata(*graph, "pooling:");
  EXPECT_EQ(pools, std::vector<std::string>{"pooling: glassbox:nhwc_max"});
}

// A concat over the channels of convolutions' NHWC outputs (squeezenet's
// fire module) runs our kernel; one with a plain input runs oneDNN's.
TEST(OnednnKernelChoiceTest, ChannelConcatOverNhwcRunsOurKernel) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "oneDNN picks NHWC with AVX2 and up";
  const auto concats = [](bool with_plain_input) {
    GraphBuilder b;
    const ValueId x = image(b, 6, 7);
    const ValueId squeeze = b.relu(conv(b, x, 6, 4));
    std::vector<ValueId> parts = {b.relu(conv(b, squeeze, 4, 5)), b.relu(conv(b, squeeze, 4, 3))};
    if (with_plain_input) parts.push_back(x);
    b.output(b.concat(parts, 1));
    StatusOr<aot::Graph> graph = b.build();
    EXPECT_TRUE(graph.ok());
    return graph.ok() ? delegate_metadata(*graph, "concat:") : std::vector<std::string>{};
  };
  EXPECT_EQ(concats(false), std::vector<std::string>{"concat: glassbox:nhwc"});
  const std::vector<std::string> mixed = concats(true);
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_NE(mixed[0], "concat: glassbox:nhwc");
}

// A transpose that moves only dims of size 1 leaves the bytes as they are:
// a view, with no copy to run; one that reorders real dims copies.
TEST(OnednnKernelChoiceTest, TransposeOfUnitDimsIsAView) {
  GraphBuilder b;
  ValueId x = b.relu(b.input("x", ScalarType::kFloat, {1, 5, 8}));
  b.output(b.relu(b.transpose(b.transpose(x, {1, 0, 2}), {2, 0, 1})));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  const std::vector<std::string> transposes = delegate_metadata(*graph, "transpose:");
  ASSERT_EQ(transposes.size(), 2u) << ::testing::PrintToString(transposes);
  EXPECT_EQ(transposes[0], "transpose: view");
  EXPECT_NE(transposes[1], "transpose: view");
}

// A grouped convolution reading another convolution's output (whose
// format oneDNN picked, NHWC here) runs on a fast kernel: oneDNN 2.6 has
// only its reference one for that source format, so the delegate reorders
// the source into the format oneDNN prefers (regnet took 40x longer).
TEST(OnednnKernelChoiceTest, GroupedConvolutionAvoidsTheReferenceKernel) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "oneDNN's fast kernels need AVX2";
  GraphBuilder b;
  ValueId x = b.relu(conv(b, image(b, 4, 14), 4, 64, {}, 1));
  b.output(conv(b, x, 64, 64, {.padding = {1, 1}, .groups = 4}));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  std::vector<std::string> convolutions;
  std::size_t layout_changes = 0;
  for (const std::string& metadata : delegate_metadata(*graph)) {
    if (metadata.starts_with("convolution: ")) convolutions.push_back(metadata);
    // Memory-format changes say "layout: ", the prefix the Inspector's
    // ops view gives a row of its own.
    if (metadata.find("->") != std::string::npos) {
      EXPECT_TRUE(metadata.starts_with("layout: ")) << metadata;
      ++layout_changes;
    }
  }
  EXPECT_GE(layout_changes, 1u) << "the plain input is reordered into the convolution's format";
  ASSERT_EQ(convolutions.size(), 2u) << ::testing::PrintToString(convolutions);
  for (const std::string& c : convolutions) EXPECT_FALSE(c.starts_with("convolution: ref")) << c;
}

// The one binary of `b`'s graph, lowered whole to oneDNN, does not run
// oneDNN's reference kernel.
void expect_binary_avoids_reference_kernel(GraphBuilder& b) {
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  const std::vector<std::string> binaries = delegate_metadata(*graph, "binary: ");
  ASSERT_EQ(binaries.size(), 1u) << ::testing::PrintToString(binaries);
  EXPECT_FALSE(binaries[0].starts_with("binary: ref")) << binaries[0];
}

// A broadcast along a middle dim (swin_t's window-mask add) runs oneDNN's
// jit kernel on merged dims, not its reference kernel (100 ns an element).
TEST(OnednnKernelChoiceTest, MiddleDimBroadcastAvoidsTheReferenceKernel) {
  GraphBuilder b;
  ValueId attn = b.relu(b.input("attn", ScalarType::kFloat, {1, 16, 3, 7, 7}));
  ValueId mask = b.relu(b.input("mask", ScalarType::kFloat, {1, 16, 1, 7, 7}));
  b.output(b.relu(b.add(attn, mask)));
  expect_binary_avoids_reference_kernel(b);
}

// regnet_y_squeeze_excite (above): the multiply does not run oneDNN's
// reference kernel (this test fails without blocked_channel_binary.h).
TEST(OnednnKernelChoiceTest, SqueezeExciteOverBlockedChannelsAvoidsTheReferenceKernel) {
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "oneDNN's fast kernels need AVX2";
  GraphBuilder b;
  b.output(regnet_y_squeeze_excite(b, 14));
  expect_binary_avoids_reference_kernel(b);
}

// A 3x3 convolution of 64 channels at 28x28 runs oneDNN's Winograd kernel
// (2-3x faster there), its blocked source and output reordered inside its
// event so that its neighbours (here a 1x1 convolution's NHWC output, and
// an add) see the format a direct convolution would leave; the results
// match the portable kernels as closely as the direct ones do. With
// Winograd turned off (`glassbox run --conv-algorithm direct`) no kernel
// is a Winograd one.
TEST(OnednnKernelChoiceTest, LargeThreeByThreeConvolutionRunsWinograd) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "oneDNN 2.6's Winograd needs AVX-512";
  GraphBuilder b;
  ValueId x = b.relu(conv(b, image(b, 8, 28), 8, 64, {}, 1));
  b.output(b.add(b.relu(conv(b, x, 64, 64)), conv(b, x, 64, 64, {}, 1)));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  StatusOr<exporter::ExecutorchProgramManager> portable = export_graph(*graph, false);
  ASSERT_TRUE(portable.ok()) << portable.message();
  std::string error;
  const std::vector<float> expected = run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  StatusOr<exporter::ExecutorchProgramManager> program = export_graph(*graph, true);
  ASSERT_TRUE(program.ok()) << program.message();
  for (const bool winograd : {true, false}) {
    onednn_backend_runtime().set_winograd(winograd);
    std::size_t winograd_kernels = 0;
    for (const std::string& metadata : delegate_metadata(*graph)) {
      if (metadata.starts_with("convolution: ") && metadata.find("wino") != std::string::npos) {
        ++winograd_kernels;
      }
    }
    const std::vector<float> out = run_once(program->buffer(), nullptr, &error);
    onednn_backend_runtime().set_winograd(true);
    ASSERT_TRUE(error.empty()) << error;
    EXPECT_EQ(winograd_kernels, winograd ? 1u : 0u) << "winograd " << winograd;
    ASSERT_EQ(out.size(), expected.size());
    EXPECT_LT(max_relative_error(out, expected), kTolerance) << "winograd " << winograd;
  }
}

// SiLU after a convolution, x * sigmoid(x), is the convolution's swish
// post-op: one identifier for all three nodes.
TEST(OnednnFusionTest, ConvSiluIsOnePrimitive) {
  GraphBuilder b;
  ValueId x = conv(b, image(b), 4, 16);
  b.output(b.mul(b.sigmoid(x), x));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  StatusOr<std::set<std::string>> lowered = string_identifiers(*graph);
  ASSERT_TRUE(lowered.ok()) << lowered.message();
  const std::set<std::string>& names = *lowered;
  const std::string fused =
      graph->nodes[0].name + "+" + graph->nodes[1].name + "+" + graph->nodes[2].name;
  EXPECT_TRUE(names.contains(fused)) << ::testing::PrintToString(names);
}

// The GELU chain is one primitive mapped to its five nodes; an erf that is
// not in one stays portable with a reason.
TEST(OnednnFusionTest, GeluChainIsOneGeluErfPrimitive) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {2, 8});
  ValueId erf = b.op("erf", {b.mul(x, b.constant("r", {}, {0.70710678f}))}, {});
  b.output(
      b.mul(b.constant("half", {}, {0.5f}), b.mul(b.add(b.constant("one", {}, {1.f}), erf), x)));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(onednn_partition_report(*graph)[1], "");  // the erf is taken
  OnednnBackend backend;
  StatusOr<aot::PreprocessResult> result = backend.preprocess(
      *graph, std::vector{aot::CompileSpec::from_string("identifiers", "string")});
  ASSERT_TRUE(result.ok()) << result.message();
  ASSERT_EQ(result->debug_handle_map->size(), 1u);
  EXPECT_EQ(result->debug_handle_map->begin()->second.size(), 5u);

  GraphBuilder lone;
  ValueId y = lone.input("x", ScalarType::kFloat, {2, 8});
  lone.output(lone.op("erf", {lone.mul(y, lone.constant("r", {}, {0.5f}))}, {}));
  StatusOr<aot::Graph> other = lone.build();
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(onednn_partition_report(*other)[1],
            "erf outside a GELU (oneDNN has no erf of its own)");
}

// x[:, 0] with a constant index (how ViT picks its class token): a slice
// and a reshape in the delegate, both mapped to the gather, equal to the
// portable kernels.
TEST(OnednnGatherTest, OneConstantIndexIsASlice) {
  aot::Graph graph = backends::testing::class_token_gather(true, -7);  // row 0, from the end
  aot::Value* idx = &backends::testing::index_value(graph);
  std::vector<std::string> report = onednn_partition_report(graph);
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[1], "");
  StatusOr<exporter::ExecutorchProgramManager> delegated = export_graph(graph, true);
  StatusOr<exporter::ExecutorchProgramManager> portable = export_graph(graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();
  EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  std::string error;
  const std::vector<float> d = run_once(delegated->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<float> p = run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(d.size(), 2u * 8u);
  EXPECT_EQ(d, p);

  idx->int_data = {7};
  EXPECT_EQ(onednn_partition_report(graph)[1], "gather index out of range");
}

TEST(OnednnPartitionTest, LeavesUnsupportedOpsWithAReason) {
  GraphBuilder b;
  ValueId x = b.input("x", ScalarType::kFloat, {2, 3});
  b.output(b.op("erf", {b.relu(x)}, {}));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  const std::vector<std::string> report = onednn_partition_report(*graph);
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0], "");
  EXPECT_EQ(report[1], "erf outside a GELU (oneDNN has no erf of its own)");
}

// A deliberate fault (compile spec "perturb") moves exactly the named
// operator's output, and what follows it.
TEST(OnednnPerturbTest, PerturbedOperatorChangesTheOutput) {
  GraphBuilder b;
  b.output(b.relu(conv(b, image(b), 4, 8)));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  std::string error;
  std::vector<std::vector<float>> outputs;
  for (const char* perturb : {"", "1"}) {
    std::vector<aot::CompileSpec> specs;
    if (*perturb != '\0') specs.push_back(aot::CompileSpec::from_string("perturb", perturb));
    auto program = export_graph(*graph, true, specs);
    ASSERT_TRUE(program.ok()) << program.message();
    outputs.push_back(run_once(program->buffer(), nullptr, &error));
    ASSERT_TRUE(error.empty()) << error;
  }
  // Identifier 1 is the conv + relu (0 is the input's reorder): relu's
  // output plus the perturbation, everywhere.
  ASSERT_EQ(outputs[0].size(), outputs[1].size());
  for (std::size_t i = 0; i < outputs[0].size(); ++i) {
    ASSERT_NEAR(outputs[1][i] - outputs[0][i], runtime::kPerturbation, 1e-5);
  }
}

// A reshape views its input's buffer, but a perturbed one keeps its own
// copy: the fault must not reach the input's other readers.
TEST(OnednnPerturbTest, PerturbedReshapeLeavesItsInputsOtherReadersAlone) {
  GraphBuilder b;
  ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 12}));
  ValueId v = b.reshape(x, {24});
  b.output(b.sigmoid(x));  // output 0, read after the reshape ran
  b.output(v);
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  const std::string reshape = graph->nodes[1].name;
  std::string error;
  std::vector<std::vector<float>> outputs;
  for (const std::string& perturb : {std::string(), reshape}) {
    std::vector<aot::CompileSpec> specs = {aot::CompileSpec::from_string("identifiers", "string")};
    if (!perturb.empty()) specs.push_back(aot::CompileSpec::from_string("perturb", perturb));
    auto program = export_graph(*graph, true, specs);
    ASSERT_TRUE(program.ok()) << program.message();
    outputs.push_back(run_once(program->buffer(), nullptr, &error));
    ASSERT_TRUE(error.empty()) << error;
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

TEST(OnednnThreadsTest, TwoThreadsMatchOne) {
  GraphBuilder b;
  // The max pool over the convolution's NHWC output is our kernel, which
  // splits its rows over the threads.
  b.output(b.max_pool2d(b.relu(batch_norm(b, conv(b, image(b, 8, 16), 8, 64), 64)),
                        {.kernel = {3, 3}, .stride = {{2, 2}}, .ceil_mode = true}));
  StatusOr<aot::Graph> graph = b.build();
  ASSERT_TRUE(graph.ok());
  std::string error;
  std::vector<std::vector<float>> outputs;
  for (const char* threads : {"1", "2"}) {
    auto program = export_graph(*graph, true,
                                {aot::CompileSpec::from_string(runtime::kThreadsSpecKey, threads)});
    ASSERT_TRUE(program.ok()) << program.message();
    outputs.push_back(run_once(program->buffer(), nullptr, &error));
    ASSERT_TRUE(error.empty()) << error;
  }
  EXPECT_LT(max_relative_error(outputs[0], outputs[1]), kTolerance);
}

}  // namespace
}  // namespace glassbox::backends::onednn

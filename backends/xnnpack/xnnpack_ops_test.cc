// Per-operator tests: each case is a tiny graph exported twice, once on
// the portable kernels and once through the XNNPACK partitioner; both run
// on the same random inputs and must agree within kTolerance.
//
// kTolerance = 1e-4 in max |x - p| / (1 + |p|): XNNPACK reassociates sums
// (blocked GEMM, other tile sizes than ours), folds batch norm into the
// weights (one rounding instead of two), and uses polynomial sigmoid / exp;
// each moves results by a few ulp to ~1e-6 here, so 1e-4 flags real bugs
// (a wrong layout or padding is off by O(1)) without flaking.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "backends/xnnpack/testing/xnnpack_test_runner.h"
#include "glassbox/aot/graph_builder.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::GraphBuilder;
using aot::ValueId;

constexpr double kTolerance = 1e-4;

struct OpCase {
  std::string name;
  std::function<void(GraphBuilder&)> build;
};

ValueId weights(GraphBuilder& b, const std::string& name, std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return b.constant(name, shape,
                    testing::random_values(static_cast<std::size_t>(n),
                                           static_cast<std::uint32_t>(name.size() * 31 + n)));
}

ValueId image(GraphBuilder& b, std::int64_t c = 4, std::int64_t hw = 9) {
  return b.input("x", ScalarType::kFloat, {2, c, hw, hw});
}

// A conv that puts its output in NHWC inside the delegate.
ValueId conv(GraphBuilder& b, ValueId x, std::int64_t cin, std::int64_t cout,
             aot::Conv2dOptions options = {.padding = {1, 1}}, std::int64_t k = 3) {
  static int count = 0;
  const std::string name = "c" + std::to_string(++count);
  return b.conv2d(x, weights(b, name + ".w", {cout, cin / options.groups, k, k}),
                  weights(b, name + ".b", {cout}), options);
}

ValueId batch_norm(GraphBuilder& b, ValueId x, std::int64_t c) {
  std::vector<float> var = testing::random_values(static_cast<std::size_t>(c), 3);
  for (float& v : var) v = v * v + 0.5f;
  return b.batch_norm(x, weights(b, "bn.mean", {c}), b.constant("bn.var", {c}, var),
                      weights(b, "bn.gamma", {c}), weights(b, "bn.beta", {c}), 1e-3);
}

std::vector<OpCase> cases() {
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
      {"depthwise", [](GraphBuilder& b) { b.output(conv(b, image(b), 4, 4, {.padding = {1, 1}, .groups = 4})); }},
      {"depthwise_multiplier2",
       [](GraphBuilder& b) { b.output(conv(b, image(b), 4, 8, {.padding = {1, 1}, .groups = 4})); }},
      {"grouped", [](GraphBuilder& b) { b.output(conv(b, image(b), 4, 6, {.padding = {1, 1}, .groups = 2})); }},
      {"conv_bn_relu",
       [](GraphBuilder& b) { b.output(b.relu(batch_norm(b, conv(b, image(b), 4, 8), 8))); }},
      {"conv_relu6", [](GraphBuilder& b) { b.output(b.relu6(conv(b, image(b), 4, 8))); }},
      {"linear_relu",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {3, 20});
         b.output(b.relu(b.linear(x, weights(b, "w", {7, 20}), weights(b, "b", {7}))));
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
      {"max_pool_3x3_s2_p1",
       [](GraphBuilder& b) {
         b.output(b.max_pool2d(image(b), {.kernel = {3, 3},
                                          .stride = std::array<std::int64_t, 2>{2, 2},
                                          .padding = {1, 1}}));
       }},
      {"max_pool_after_conv",
       [](GraphBuilder& b) { b.output(b.max_pool2d(conv(b, image(b), 4, 8), {.kernel = {2, 2}})); }},
      {"avg_pool_2x2", [](GraphBuilder& b) { b.output(b.avg_pool2d(image(b, 4, 8), {.kernel = {2, 2}})); }},
      {"avg_pool_pad_excluded",
       [](GraphBuilder& b) {
         b.output(b.avg_pool2d(image(b), {.kernel = {3, 3},
                                          .stride = std::array<std::int64_t, 2>{1, 1},
                                          .padding = {1, 1},
                                          .count_include_pad = false}));
       }},
      {"global_avg_pool", [](GraphBuilder& b) { b.output(b.global_avg_pool2d(conv(b, image(b), 4, 8))); }},
      {"add_nhwc", [](GraphBuilder& b) {
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
       [](GraphBuilder& b) { b.output(b.relu(b.input("x", ScalarType::kFloat, {2, 3, 5, 5}))); }},
      {"softmax_last_axis",
       [](GraphBuilder& b) { b.output(b.softmax(b.input("x", ScalarType::kFloat, {3, 17}), -1)); }},
      {"flatten_after_conv",
       [](GraphBuilder& b) { b.output(b.flatten(conv(b, image(b), 4, 8), 1, -1)); }},
      {"reshape", [](GraphBuilder& b) { b.output(b.reshape(conv(b, image(b), 4, 8), {2, -1, 9})); }},
      {"concat_channels_nhwc",
       [](GraphBuilder& b) {
         ValueId x = image(b);
         b.output(b.concat({conv(b, x, 4, 3), conv(b, x, 4, 5), x}, 1));
       }},
      {"concat_last_axis",
       [](GraphBuilder& b) {
         ValueId x = b.input("x", ScalarType::kFloat, {2, 3});
         ValueId y = b.input("y", ScalarType::kFloat, {2, 4});
         b.output(b.concat({x, y}, -1));
       }},
      {"output_back_to_nchw", [](GraphBuilder& b) { b.output(conv(b, image(b), 4, 8, {.stride = {2, 2}})); }},
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
  StatusOr<etrecord::ExecutorchProgramManager> delegated = testing::export_graph(*graph, true);
  StatusOr<etrecord::ExecutorchProgramManager> portable = testing::export_graph(*graph, false);
  ASSERT_TRUE(delegated.ok()) << delegated.message();
  ASSERT_TRUE(portable.ok()) << portable.message();

  // Every node of these graphs is one XNNPACK takes: one delegate, nothing else.
  const auto& instructions = delegated->instruction_id_to_num_outs_map().at("forward");
  EXPECT_EQ(delegated->delegate_map().at("forward").size(), 1u);
  EXPECT_EQ(instructions.size(), 1u);

  std::string error;
  const std::vector<float> x = testing::run_once(delegated->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  const std::vector<float> p = testing::run_once(portable->buffer(), nullptr, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(x.size(), p.size());
  EXPECT_LT(testing::max_relative_error(x, p), kTolerance);
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
        *graph, true, {aot::CompileSpec::from_string(kThreadsSpecKey, threads)});
    ASSERT_TRUE(program.ok()) << program.message();
    outputs.push_back(testing::run_once(program->buffer(), nullptr, &error));
    ASSERT_TRUE(error.empty()) << error;
  }
  EXPECT_LT(testing::max_relative_error(outputs[0], outputs[1]), kTolerance);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

// rewrite_padding_only_convs on DeepLabV3's ASPP geometry (3x3 convs over
// a 14x14 map, padding = dilation): dilation 24 and a strided, grouped
// dilation 36 become 1x1 convolutions of their centre weights with the
// same outputs (run on the portable conv2d kernel); dilation 12, whose
// outer taps reach real rows and columns, is left alone.

#include "glassbox/aot/padding_only_conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "glassbox/aot/graph_builder.h"
#include "glassbox/runtime/kernels/conv.h"

namespace glassbox::aot {
namespace {

using Ints = std::vector<std::int64_t>;
namespace kernels = runtime::kernels;

constexpr std::int64_t kChannels = 4;
constexpr std::int64_t kSide = 14;  // ASPP's map at 224x224 input (stride 16).

std::vector<float> ramp(std::size_t n, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = step * static_cast<float>(static_cast<std::int64_t>(i * 7 % 19) - 9);
  }
  return v;
}

struct Model {
  Graph graph;
  std::vector<float> input;
};

// Three convolutions of one input, each a graph output.
Model aspp_like() {
  GraphBuilder b;
  const ValueId x = b.input("x", ScalarType::kFloat, {1, kChannels, kSide, kSide});
  const ValueId w12 = b.constant("w12", {3, kChannels, 3, 3}, ramp(3 * kChannels * 9, 0.1f));
  const ValueId w24 = b.constant("w24", {3, kChannels, 3, 3}, ramp(3 * kChannels * 9, 0.2f));
  const ValueId w36 =
      b.constant("w36", {4, kChannels / 2, 3, 3}, ramp(4 * kChannels / 2 * 9, 0.3f));
  const ValueId bias = b.constant("bias", {3}, {0.5f, -1.0f, 2.0f});
  b.output(b.conv2d(x, w12, bias, {.padding = {12, 12}, .dilation = {12, 12}}));
  b.output(b.conv2d(x, w24, bias, {.padding = {24, 24}, .dilation = {24, 24}}));
  b.output(b.conv2d(x, w36, std::nullopt,
                    {.stride = {2, 2}, .padding = {36, 36}, .dilation = {36, 36}, .groups = 2}));
  StatusOr<Graph> graph = b.build();
  EXPECT_TRUE(graph.ok()) << graph.message();
  return {graph.ok() ? *graph : Graph{}, ramp(kChannels * kSide * kSide, 0.05f)};
}

Ints ints(const Node& node, std::string_view name) {
  return std::get<Ints>(node.attributes.find(name)->second);
}

// Runs `node` of `graph` on the portable conv2d kernel.
std::vector<float> run_conv(const Graph& graph, const Node& node, const std::vector<float>& x) {
  const Value& xv = *graph.find_value(node.inputs[0]);
  const Value& wv = *graph.find_value(node.inputs[1]);
  const float* bias =
      node.inputs.size() > 2 ? graph.find_value(node.inputs[2])->data.data() : nullptr;
  const Ints stride = ints(node, "stride"), dilation = ints(node, "dilation");
  const Ints padding = ints(node, "padding");
  kernels::Conv2dParams p;
  p.stride_h = stride[0];
  p.stride_w = stride[1];
  p.dilation_h = dilation[0];
  p.dilation_w = dilation[1];
  p.pad_top = p.pad_bottom = padding[0];
  p.pad_left = p.pad_right = padding[1];
  p.groups = std::get<std::int64_t>(node.attributes.find("groups")->second);
  const kernels::Shape4 in{xv.shape[0], xv.shape[1], xv.shape[2], xv.shape[3]};
  const kernels::Shape4 w{wv.shape[0], wv.shape[1], wv.shape[2], wv.shape[3]};
  Result<kernels::Shape4> out = kernels::conv2d_output_shape(in, w, p);
  EXPECT_TRUE(out.ok());
  if (!out.ok()) return {};
  std::vector<float> y(static_cast<std::size_t>(out->numel()));
  std::vector<float> scratch(kernels::conv2d_scratch_bytes(in, w, p) / sizeof(float) + 1);
  EXPECT_EQ(kernels::conv2d(x.data(), in, wv.data.data(), w, bias, p, y.data(), scratch),
            Error::kOk);
  return y;
}

TEST(PaddingOnlyConvTest, RewritesConvsWhoseOuterTapsReadOnlyPaddingAndKeepsTheirOutputs) {
  const Model model = aspp_like();
  Graph rewritten = model.graph;
  EXPECT_EQ(rewrite_padding_only_convs(&rewritten), 2);
  ASSERT_TRUE(verify(rewritten).ok()) << verify(rewritten).message();
  ASSERT_EQ(rewritten.nodes.size(), model.graph.nodes.size());

  // Dilation 12: rows 12 and 13 read rows 0 and 1 through the top taps.
  EXPECT_EQ(rewritten.nodes[0], model.graph.nodes[0]);
  for (std::size_t i = 1; i < 3; ++i) {
    SCOPED_TRACE(::testing::Message() << "node " << i);
    const Node& before = model.graph.nodes[i];
    const Node& after = rewritten.nodes[i];
    // The user's operator still: name, handle and provenance, and op.
    EXPECT_EQ(after.name, before.name);
    EXPECT_EQ(after.op, before.op);
    EXPECT_EQ(after.debug_handle, before.debug_handle);
    EXPECT_EQ(after.source_location, before.source_location);
    EXPECT_EQ(after.outputs, before.outputs);
    EXPECT_EQ(rewritten.find_value(after.inputs[1])->shape,
              (Ints{model.graph.find_value(before.inputs[1])->shape[0],
                    model.graph.find_value(before.inputs[1])->shape[1], 1, 1}));
    EXPECT_EQ(ints(after, "dilation"), (Ints{1, 1}));
    EXPECT_EQ(ints(after, "padding"), (Ints{0, 0}));
    EXPECT_EQ(ints(after, "stride"), ints(before, "stride"));
    // The 3x3 weights went with their last reader.
    EXPECT_EQ(rewritten.find_value(before.inputs[1]), nullptr);

    const std::vector<float> expected = run_conv(model.graph, before, model.input);
    const std::vector<float> actual = run_conv(rewritten, after, model.input);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k) {
      EXPECT_NEAR(actual[k], expected[k], 1e-5f * (1.0f + std::abs(expected[k]))) << k;
    }
  }
}

TEST(PaddingOnlyConvTest, LeavesConvsWhoseOuterTapsReachRealPixels) {
  // Only one dim all padding is not enough: with dilation (24, 12) the
  // left and right taps of the middle row still read columns 0-1, 12-13.
  GraphBuilder b;
  const ValueId x = b.input("x", ScalarType::kFloat, {1, 2, kSide, kSide});
  const ValueId w = b.constant("w", {2, 2, 3, 3}, ramp(36, 0.1f));
  b.output(b.conv2d(x, w, std::nullopt, {.padding = {24, 12}, .dilation = {24, 12}}));
  // A 1x1 and an even kernel have no off-centre tap to drop or no centre.
  const ValueId w1 = b.constant("w1", {2, 2, 1, 1}, ramp(4, 0.1f));
  b.output(b.conv2d(x, w1, std::nullopt, {.padding = {30, 30}}));
  const ValueId w2 = b.constant("w2", {2, 2, 2, 2}, ramp(16, 0.1f));
  b.output(b.conv2d(x, w2, std::nullopt, {.padding = {30, 30}, .dilation = {31, 31}}));
  StatusOr<Graph> graph = b.build();
  ASSERT_TRUE(graph.ok()) << graph.message();
  Graph after = *graph;
  EXPECT_EQ(rewrite_padding_only_convs(&after), 0);
  EXPECT_EQ(after, *graph);
}

}  // namespace
}  // namespace glassbox::aot

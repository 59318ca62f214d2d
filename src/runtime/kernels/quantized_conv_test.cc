#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime::kernels {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using testing::expect_close;
using testing::random_bytes;
using testing::random_ints;
using testing::ref_quantize;
using testing::value_of;

struct ConvCase {
  const char* name;
  Shape4 in;
  Shape4 w;
  Conv2dParams p;
  ScalarType x_type = ScalarType::kByte;
  ScalarType w_type = ScalarType::kChar;
  ScalarType y_type = ScalarType::kByte;
  bool per_channel = true;
  bool with_bias = true;
  QuantRange range{};
};

Conv2dParams params(std::int64_t stride, std::int64_t pad, std::int64_t dilation,
                    std::int64_t groups) {
  Conv2dParams p;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.dilation_h = p.dilation_w = dilation;
  p.groups = groups;
  return p;
}

struct ConvData {
  std::vector<std::uint8_t> x, w;
  std::vector<float> w_scales;
  std::vector<std::int32_t> w_zps, bias;
  QuantInput xq;
  QuantOutput yq;
};

ConvData make_data(const ConvCase& c, std::uint32_t seed) {
  ConvData d;
  d.x = random_bytes(static_cast<std::size_t>(c.in.numel()), seed);
  d.w = random_bytes(static_cast<std::size_t>(c.w.numel()), seed + 1);
  const auto channels = static_cast<std::size_t>(c.per_channel ? c.w.n : 1);
  for (std::size_t i = 0; i < channels; ++i)
    d.w_scales.push_back(0.003f + 0.0011f * static_cast<float>(i % 5));
  const std::int32_t wlo = testing::type_min(c.w_type);
  d.w_zps = random_ints(channels, seed + 2, wlo + 110, wlo + 140);
  if (c.with_bias) d.bias = random_ints(static_cast<std::size_t>(c.w.n), seed + 3, -2000, 2000);
  const std::int32_t xlo = testing::type_min(c.x_type);
  const std::int32_t ylo = testing::type_min(c.y_type);
  d.xq = QuantInput{d.x.data(), c.x_type, 0.021f, xlo + 131};
  // The output scale grows with K so outputs spread over the type's range.
  const double k = static_cast<double>(c.w.c * c.w.h * c.w.w);
  d.yq =
      QuantOutput{nullptr, c.y_type, static_cast<float>(0.0075 * std::sqrt(k)), ylo + 118, c.range};
  return d;
}

std::vector<std::int32_t> reference(const ConvCase& c, const ConvData& d, Shape4 out) {
  std::vector<std::int32_t> ref;
  const Conv2dParams& p = c.p;
  const std::int64_t ocg = c.w.n / p.groups;
  for (std::int64_t n = 0; n < out.n; ++n)
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      const std::size_t ch = d.w_scales.size() == 1 ? 0 : static_cast<std::size_t>(oc);
      const std::int64_t g = oc / ocg;
      for (std::int64_t oh = 0; oh < out.h; ++oh)
        for (std::int64_t ow = 0; ow < out.w; ++ow) {
          std::int64_t acc = d.bias.empty() ? 0 : d.bias[static_cast<std::size_t>(oc)];
          for (std::int64_t icg = 0; icg < c.w.c; ++icg)
            for (std::int64_t kh = 0; kh < c.w.h; ++kh)
              for (std::int64_t kw = 0; kw < c.w.w; ++kw) {
                const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
                const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                // Padding reads the zero point.
                std::int64_t xv = d.xq.zero_point;
                if (ih >= 0 && ih < c.in.h && iw >= 0 && iw < c.in.w) {
                  const std::int64_t ic = g * c.w.c + icg;
                  xv = value_of(d.x[static_cast<std::size_t>(
                                    ((n * c.in.c + ic) * c.in.h + ih) * c.in.w + iw)],
                                c.x_type);
                }
                const std::int64_t wv = value_of(
                    d.w[static_cast<std::size_t>(((oc * c.w.c + icg) * c.w.h + kh) * c.w.w + kw)],
                    c.w_type);
                acc += (xv - d.xq.zero_point) * (wv - d.w_zps[ch]);
              }
          const double real = static_cast<double>(acc) * d.xq.scale * d.w_scales[ch] / d.yq.scale;
          ref.push_back(ref_quantize(real, c.y_type, d.yq.zero_point, c.range));
        }
    }
  return ref;
}

void check_case(const ConvCase& c, std::uint32_t seed) {
  SCOPED_TRACE(c.name);
  ConvData d = make_data(c, seed);
  Result<Shape4> out = conv2d_output_shape(c.in, c.w, c.p);
  ASSERT_TRUE(out.ok());
  std::vector<std::uint8_t> y(static_cast<std::size_t>(out->numel()));
  std::vector<std::uint8_t> scratch(qlinear_conv2d_scratch_bytes(c.in, c.w, c.p));
  d.yq.data = y.data();
  const QuantWeight w{d.w.data(), c.w_type, {d.w_scales, d.w_zps}};
  ASSERT_THAT(qlinear_conv2d(d.xq, c.in, w, c.w, d.bias.empty() ? nullptr : d.bias.data(), c.p,
                             d.yq, scratch),
              IsOk());
  const std::vector<std::int32_t> want = reference(c, d, *out);
  expect_close(y, c.y_type, want);
  // The case must exercise the output range, not sit at one value.
  EXPECT_GT(std::set<std::int32_t>(want.begin(), want.end()).size(), 10u);
}

TEST(QLinearConv2dTest, Plain3x3WithPadding) {
  check_case({"3x3 pad 1", {1, 5, 9, 8}, {6, 5, 3, 3}, params(1, 1, 1, 1)}, 1);
}

TEST(QLinearConv2dTest, EveryTypeCombinationAndGranularity) {
  std::uint32_t seed = 10;
  for (ScalarType xt : {ScalarType::kChar, ScalarType::kByte})
    for (ScalarType wt : {ScalarType::kChar, ScalarType::kByte})
      for (bool per_channel : {false, true}) {
        ConvCase c{"types", {2, 4, 7, 6}, {5, 4, 3, 2}, params(1, 1, 1, 1)};
        c.x_type = xt;
        c.w_type = wt;
        c.y_type = xt == ScalarType::kChar ? ScalarType::kByte : ScalarType::kChar;
        c.per_channel = per_channel;
        c.with_bias = per_channel;
        check_case(c, seed++);
      }
}

TEST(QLinearConv2dTest, StrideDilationAsymmetricPadding) {
  ConvCase c{"stride 2 dilation 2", {2, 3, 13, 11}, {4, 3, 3, 3}, params(2, 0, 2, 1)};
  c.p.pad_top = 1;
  c.p.pad_left = 3;
  c.p.pad_bottom = 2;
  c.p.pad_right = 0;
  c.p.stride_w = 3;
  check_case(c, 20);
}

TEST(QLinearConv2dTest, GroupedAndDepthwise) {
  ConvCase grouped{"groups 2", {2, 6, 9, 9}, {8, 3, 3, 3}, params(1, 1, 1, 2)};
  grouped.p.pad_bottom = 0;
  grouped.p.pad_right = 2;
  check_case(grouped, 30);
  ConvCase depthwise{"depthwise", {2, 8, 10, 9}, {8, 1, 3, 3}, params(2, 1, 1, 8)};
  depthwise.p.pad_top = 0;
  check_case(depthwise, 31);
  // Channel multiplier 2 and dilation.
  ConvCase multiplier{"depthwise x2", {1, 4, 11, 12}, {8, 1, 3, 3}, params(1, 2, 2, 4)};
  multiplier.x_type = multiplier.y_type = ScalarType::kChar;
  check_case(multiplier, 32);
}

TEST(QLinearConv2dTest, PointwiseAndLargeTiles) {
  // 1x1 over more pixels and channels than one tile (32 pixels, 16 OC).
  check_case({"1x1", {1, 19, 9, 7}, {37, 19, 1, 1}, params(1, 0, 1, 1)}, 40);
}

TEST(QLinearConv2dTest, SaturatesAndFusesRelu) {
  ConvCase c{"relu", {1, 4, 6, 6}, {6, 4, 3, 3}, params(1, 1, 1, 1)};
  c.range = QuantRange{118, 1000};  // y zero point of a uint8 output: ReLU
  check_case(c, 50);
  // A small output scale saturates both ends.
  ConvData d = make_data(c, 51);
  d.yq.scale /= 20;
  d.yq.range = {};
  Result<Shape4> out = conv2d_output_shape(c.in, c.w, c.p);
  std::vector<std::uint8_t> y(static_cast<std::size_t>(out->numel()));
  std::vector<std::uint8_t> scratch(qlinear_conv2d_scratch_bytes(c.in, c.w, c.p));
  d.yq.data = y.data();
  ASSERT_THAT(qlinear_conv2d(d.xq, c.in, {d.w.data(), c.w_type, {d.w_scales, d.w_zps}}, c.w,
                             d.bias.data(), c.p, d.yq, scratch),
              IsOk());
  c.range = {};
  const std::vector<std::int32_t> want = reference(c, d, *out);
  EXPECT_NE(std::count(want.begin(), want.end(), 0), 0);
  EXPECT_NE(std::count(want.begin(), want.end(), 255), 0);
  expect_close(y, c.y_type, want);
}

TEST(QLinearConv2dTest, RejectsBadArguments) {
  const Shape4 in{1, 2, 4, 4}, ws{3, 2, 3, 3};
  const Conv2dParams p = params(1, 1, 1, 1);
  std::vector<std::uint8_t> x(32), w(54), y(48);
  std::vector<std::uint8_t> scratch(qlinear_conv2d_scratch_bytes(in, ws, p));
  const float one = 1.0f;
  const float two[] = {1.0f, 1.0f};
  const QuantInput xq{x.data(), ScalarType::kChar, 1.0f, 0};
  const QuantWeight wq{w.data(), ScalarType::kChar, {{&one, 1}, {}}};
  const QuantOutput yq{y.data(), ScalarType::kChar, 1.0f, 0, {}};
  EXPECT_THAT(qlinear_conv2d(xq, in, wq, ws, nullptr, p, yq, scratch), IsOk());
  EXPECT_THAT(qlinear_conv2d(xq, {1, 3, 4, 4}, wq, ws, nullptr, p, yq, scratch),
              ErrorIs(Error::kInvalidArgument, {"conv2d"}));
  EXPECT_THAT(qlinear_conv2d(xq, in, wq, ws, nullptr, p, yq, Span<std::uint8_t>(scratch).first(8)),
              ErrorIs(Error::kInvalidArgument, {"scratch"}));
  EXPECT_THAT(
      qlinear_conv2d({nullptr, ScalarType::kChar, 1.0f, 0}, in, wq, ws, nullptr, p, yq, scratch),
      ErrorIs(Error::kInvalidArgument, {"null"}));
  EXPECT_THAT(
      qlinear_conv2d(xq, in, {w.data(), ScalarType::kChar, {two, {}}}, ws, nullptr, p, yq, scratch),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_conv2d(xq, in, {w.data(), ScalarType::kInt, {{&one, 1}, {}}}, ws, nullptr, p,
                             yq, scratch),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(
      qlinear_conv2d({x.data(), ScalarType::kChar, -0.5f, 0}, in, wq, ws, nullptr, p, yq, scratch),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_conv2d(xq, in, wq, ws, nullptr, p,
                             {y.data(), ScalarType::kByte, 1.0f, -1, {}}, scratch),
              ErrorIs(Error::kInvalidArgument));
  Conv2dParams bad_groups = p;
  bad_groups.groups = 2;
  EXPECT_THAT(qlinear_conv2d(xq, in, wq, ws, nullptr, bad_groups, yq, scratch),
              ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::runtime::kernels

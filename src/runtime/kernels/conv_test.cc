#include "glassbox/runtime/kernels/conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using testing::RefValue;

// The definition, written out: 7 loops, double accumulation.
std::vector<RefValue> reference_conv(const std::vector<float>& in, Shape4 is,
                                     const std::vector<float>& w, Shape4 ws, const float* bias,
                                     const Conv2dParams& p, Shape4 os) {
  std::vector<RefValue> out(static_cast<std::size_t>(os.numel()));
  const std::int64_t ocg = ws.n / p.groups;
  for (std::int64_t n = 0; n < os.n; ++n)
    for (std::int64_t oc = 0; oc < os.c; ++oc)
      for (std::int64_t oh = 0; oh < os.h; ++oh)
        for (std::int64_t ow = 0; ow < os.w; ++ow) {
          RefValue r;
          if (bias != nullptr) {
            r.value = bias[oc];
            r.magnitude = std::abs(bias[oc]);
          }
          const std::int64_t g = oc / ocg;
          for (std::int64_t icg = 0; icg < ws.c; ++icg)
            for (std::int64_t kh = 0; kh < ws.h; ++kh)
              for (std::int64_t kw = 0; kw < ws.w; ++kw) {
                const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
                const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
                if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;
                const std::int64_t ic = g * ws.c + icg;
                const double x =
                    in[static_cast<std::size_t>(((n * is.c + ic) * is.h + ih) * is.w + iw)];
                const double wv =
                    w[static_cast<std::size_t>(((oc * ws.c + icg) * ws.h + kh) * ws.w + kw)];
                r.value += x * wv;
                r.magnitude += std::abs(x * wv);
              }
          out[static_cast<std::size_t>(((n * os.c + oc) * os.h + oh) * os.w + ow)] = r;
        }
  return out;
}

struct ConvCase {
  const char* name;
  Shape4 input;
  Shape4 weight;
  Conv2dParams params;
  bool with_bias;
};

void run_case(const ConvCase& c) {
  SCOPED_TRACE(c.name);
  Result<Shape4> os = conv2d_output_shape(c.input, c.weight, c.params);
  ASSERT_TRUE(os.ok()) << os.message();
  const auto in = testing::random_floats(static_cast<std::size_t>(c.input.numel()), 1);
  const auto w = testing::random_floats(static_cast<std::size_t>(c.weight.numel()), 2);
  const auto bias = testing::random_floats(static_cast<std::size_t>(c.weight.n), 3);
  const float* b = c.with_bias ? bias.data() : nullptr;
  std::vector<float> scratch(conv2d_scratch_bytes(c.input, c.weight, c.params) / sizeof(float));
  std::vector<float> out(static_cast<std::size_t>(os->numel()), NAN);
  ASSERT_EQ(conv2d(in.data(), c.input, w.data(), c.weight, b, c.params, out.data(), scratch),
            Error::kOk);
  testing::expect_dot_near(out, reference_conv(in, c.input, w, c.weight, b, c.params, *os),
                           c.weight.c * c.weight.h * c.weight.w + 1);
}

Conv2dParams make(std::int64_t stride, std::int64_t pad, std::int64_t dil, std::int64_t groups) {
  Conv2dParams p;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.dilation_h = p.dilation_w = dil;
  p.groups = groups;
  return p;
}

TEST(Conv2dTest, MatchesReferenceAcrossPaths) {
  Conv2dParams asym = make(1, 0, 1, 1);
  asym.pad_top = 2;
  asym.pad_left = 0;
  asym.pad_bottom = 1;
  asym.pad_right = 3;
  Conv2dParams mixed = make(2, 1, 1, 1);
  mixed.stride_w = 1;
  mixed.dilation_h = 3;
  const ConvCase cases[] = {
      {"3x3 pad1", {1, 3, 8, 8}, {4, 3, 3, 3}, make(1, 1, 1, 1), true},
      {"3x3 no pad, no bias", {2, 5, 9, 7}, {6, 5, 3, 3}, make(1, 0, 1, 1), false},
      {"stride 2", {1, 4, 11, 13}, {7, 4, 3, 3}, make(2, 1, 1, 1), true},
      {"dilation 2", {1, 3, 12, 10}, {5, 3, 3, 3}, make(1, 2, 2, 1), true},
      {"groups 2", {2, 6, 7, 9}, {4, 3, 3, 3}, make(1, 1, 1, 2), true},
      {"depthwise", {2, 8, 10, 11}, {8, 1, 3, 3}, make(1, 1, 1, 8), true},
      {"depthwise stride 2 dil 2", {1, 5, 13, 12}, {5, 1, 3, 3}, make(2, 2, 2, 5), true},
      {"depthwise multiplier 2", {1, 3, 9, 9}, {6, 1, 5, 5}, make(1, 2, 1, 3), true},
      {"1x1", {2, 16, 7, 5}, {13, 16, 1, 1}, make(1, 0, 1, 1), true},
      {"1x1 stride 2", {1, 9, 9, 9}, {10, 9, 1, 1}, make(2, 0, 1, 1), true},
      {"1x1 padded", {1, 4, 5, 5}, {3, 4, 1, 1}, make(1, 1, 1, 1), false},
      {"asymmetric pad", {1, 3, 6, 7}, {2, 3, 3, 2}, asym, true},
      {"mixed stride/dilation", {1, 2, 20, 9}, {3, 2, 3, 2}, mixed, true},
      {"kernel equals input", {1, 2, 5, 4}, {3, 2, 5, 4}, make(1, 0, 1, 1), true},
      // M, N and K not multiples of the 6x16 tile or the 256/72/512 blocks.
      {"odd sizes, multi-block", {1, 37, 23, 29}, {79, 37, 3, 3}, make(1, 1, 1, 1), true},
  };
  for (const ConvCase& c : cases) run_case(c);
}

TEST(Conv2dTest, OutputShapeFollowsFormula) {
  Result<Shape4> s = conv2d_output_shape({2, 3, 224, 224}, {64, 3, 7, 7}, make(2, 3, 1, 1));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (Shape4{2, 64, 112, 112}));
  EXPECT_EQ(conv2d_scratch_bytes({1, 8, 5, 5}, {8, 1, 3, 3}, make(1, 1, 1, 8)), 0u);
}

TEST(Conv2dTest, RejectsInvalidShapes) {
  const Conv2dParams p = make(1, 0, 1, 1);
  // Channel mismatch, groups not dividing, kernel larger than input, zero
  // stride, negative padding.
  EXPECT_EQ(conv2d_output_shape({1, 3, 8, 8}, {4, 2, 3, 3}, p).error(), Error::kInvalidArgument);
  EXPECT_EQ(conv2d_output_shape({1, 6, 8, 8}, {5, 3, 3, 3}, make(1, 0, 1, 2)).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(conv2d_output_shape({1, 3, 2, 2}, {4, 3, 3, 3}, p).error(), Error::kInvalidArgument);
  EXPECT_EQ(conv2d_output_shape({1, 3, 8, 8}, {4, 3, 3, 3}, make(0, 0, 1, 1)).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(conv2d_output_shape({1, 3, 8, 8}, {4, 3, 3, 3}, make(1, -1, 1, 1)).error(),
            Error::kInvalidArgument);

  std::vector<float> in(3 * 8 * 8), w(4 * 2 * 9), out(4 * 36);
  std::vector<float> scratch(1 << 16);
  EXPECT_EQ(
      conv2d(in.data(), {1, 3, 8, 8}, w.data(), {4, 2, 3, 3}, nullptr, p, out.data(), scratch),
      Error::kInvalidArgument);
}

// Parameters read from a file may be anything: sizes that overflow int64
// anywhere in the formula are errors, never a wrapped output shape.
TEST(Conv2dTest, RejectsSizesThatOverflow) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 60;
  Conv2dParams wide = make(1, 0, 1, 1);
  wide.stride_w = 262145;
  wide.pad_top = wide.pad_bottom = kHuge + 1;
  EXPECT_EQ(conv2d_output_shape({4, 3, 64, 64}, {32, 3, 3, 3}, wide).error(),
            Error::kInvalidArgument);
  Conv2dParams padded = make(1, 0, 1, 1);
  padded.pad_top = padded.pad_bottom = 4 * kHuge;
  EXPECT_EQ(conv2d_output_shape({1, 3, 8, 8}, {4, 3, 3, 3}, padded).error(),
            Error::kInvalidArgument);
  Conv2dParams dilated = make(1, 0, 1, 1);
  dilated.dilation_h = 4 * kHuge;
  EXPECT_EQ(conv2d_output_shape({1, 3, 8, 8}, {4, 3, 3, 3}, dilated).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(conv2d_output_shape({1, 3, 8, 8}, {4, 3, 3, 3}, make(1, 0, 1, kHuge)).error(),
            Error::kInvalidArgument);
}

TEST(Conv2dTest, RejectsShortScratchAndNullPointers) {
  const Shape4 is{1, 3, 8, 8};
  const Shape4 ws{4, 3, 3, 3};
  const Conv2dParams p = make(1, 1, 1, 1);
  std::vector<float> in(static_cast<std::size_t>(is.numel()));
  std::vector<float> w(static_cast<std::size_t>(ws.numel()));
  std::vector<float> out(4 * 64);
  std::vector<float> scratch(conv2d_scratch_bytes(is, ws, p) / sizeof(float));
  ASSERT_FALSE(scratch.empty());
  EXPECT_EQ(conv2d(in.data(), is, w.data(), ws, nullptr, p, out.data(),
                   Span<float>(scratch).first(scratch.size() - 1)),
            Error::kInvalidArgument);
  EXPECT_EQ(conv2d(nullptr, is, w.data(), ws, nullptr, p, out.data(), scratch),
            Error::kInvalidArgument);
  EXPECT_EQ(conv2d(in.data(), is, w.data(), ws, nullptr, p, out.data(), scratch), Error::kOk);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

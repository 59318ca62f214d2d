#include "glassbox/runtime/kernels/conv_transpose.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using testing::RefValue;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// Gather form, in double: each output pixel looks for the (input pixel,
// tap) pairs that land on it, i.e. oh + pad_top - kh * dilation_h must be
// a multiple of stride_h inside the input (the kernel scatters instead).
std::vector<RefValue> reference_conv_transpose(const std::vector<float>& x, Shape4 xs,
                                               const std::vector<float>& w, Shape4 ws,
                                               const float* bias, const ConvTranspose2dParams& p,
                                               Shape4 ys) {
  std::vector<RefValue> y(static_cast<std::size_t>(ys.numel()));
  const std::int64_t in_per_group = xs.c / p.groups;
  for (std::int64_t n = 0; n < ys.n; ++n)
    for (std::int64_t oc = 0; oc < ys.c; ++oc)
      for (std::int64_t oh = 0; oh < ys.h; ++oh)
        for (std::int64_t ow = 0; ow < ys.w; ++ow) {
          const std::int64_t g = oc / ws.c;
          RefValue r;
          r.value = bias != nullptr ? double{bias[oc]} : 0.0;
          r.magnitude = std::abs(r.value);
          for (std::int64_t ic = g * in_per_group; ic < (g + 1) * in_per_group; ++ic)
            for (std::int64_t kh = 0; kh < ws.h; ++kh)
              for (std::int64_t kw = 0; kw < ws.w; ++kw) {
                const std::int64_t th = oh + p.pad_top - kh * p.dilation_h;
                const std::int64_t tw = ow + p.pad_left - kw * p.dilation_w;
                if (th < 0 || tw < 0 || th % p.stride_h != 0 || tw % p.stride_w != 0) continue;
                const std::int64_t ih = th / p.stride_h;
                const std::int64_t iw = tw / p.stride_w;
                if (ih >= xs.h || iw >= xs.w) continue;
                const double prod =
                    double{x[static_cast<std::size_t>(((n * xs.c + ic) * xs.h + ih) * xs.w + iw)]} *
                    double{w[static_cast<std::size_t>(((ic * ws.c + oc % ws.c) * ws.h + kh) * ws.w +
                                                      kw)]};
                r.value += prod;
                r.magnitude += std::abs(prod);
              }
          y[static_cast<std::size_t>(((n * ys.c + oc) * ys.h + oh) * ys.w + ow)] = r;
        }
  return y;
}

struct Case {
  Shape4 x;
  Shape4 w;
  ConvTranspose2dParams p;
  bool with_bias;
};

TEST(ConvTranspose2dTest, MatchesGatherReference) {
  auto params = [](std::int64_t sh, std::int64_t sw, std::int64_t dh, std::int64_t dw,
                   std::int64_t pt, std::int64_t pl, std::int64_t pb, std::int64_t pr,
                   std::int64_t oph, std::int64_t opw, std::int64_t groups) {
    ConvTranspose2dParams p;
    p.stride_h = sh;
    p.stride_w = sw;
    p.dilation_h = dh;
    p.dilation_w = dw;
    p.pad_top = pt;
    p.pad_left = pl;
    p.pad_bottom = pb;
    p.pad_right = pr;
    p.output_padding_h = oph;
    p.output_padding_w = opw;
    p.groups = groups;
    return p;
  };
  const std::vector<Case> cases = {
      {{1, 3, 4, 5}, {3, 2, 3, 3}, params(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1), true},
      // The usual 2x upsampler: k 4, s 2, p 1.
      {{2, 4, 5, 6}, {4, 3, 4, 4}, params(2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1), true},
      // k 3, s 2, p 1, output_padding 1 (exact 2x), no bias.
      {{1, 2, 3, 4}, {2, 5, 3, 3}, params(2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1), false},
      // Groups, dilation, asymmetric pads and strides.
      {{1, 6, 4, 3}, {6, 2, 2, 3}, params(3, 2, 2, 1, 2, 0, 1, 3, 2, 1, 3), true},
      // Depthwise-style: groups == C_in, one output channel each.
      {{2, 4, 3, 3}, {4, 1, 3, 3}, params(2, 1, 1, 2, 0, 1, 0, 1, 1, 0, 4), true},
      // Pads larger than the kernel span crop taps away entirely.
      {{1, 2, 6, 6}, {2, 2, 2, 2}, params(1, 1, 1, 1, 3, 2, 2, 3, 0, 0, 1), true},
      // 1x1 kernel, stride 3: output holes hold only the bias.
      {{1, 2, 3, 2}, {2, 3, 1, 1}, params(3, 3, 1, 1, 0, 0, 0, 0, 2, 1, 1), true},
      // End pads that crop whole taps: kh = 1, 2 land past the last row.
      {{2, 2, 1, 2}, {2, 2, 3, 3}, params(2, 2, 1, 1, 0, 0, 2, 2, 0, 0, 1), true},
      // Empty batch.
      {{0, 2, 3, 3}, {2, 2, 3, 3}, params(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1), true},
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    const Case& tc = cases[c];
    Result<Shape4> ys = conv_transpose2d_output_shape(tc.x, tc.w, tc.p);
    ASSERT_TRUE(ys.ok());
    // The ONNX formula, spelled out.
    const std::int64_t want_h = tc.p.stride_h * (tc.x.h - 1) + tc.p.output_padding_h +
                                (tc.w.h - 1) * tc.p.dilation_h + 1 - tc.p.pad_top - tc.p.pad_bottom;
    const std::int64_t want_w = tc.p.stride_w * (tc.x.w - 1) + tc.p.output_padding_w +
                                (tc.w.w - 1) * tc.p.dilation_w + 1 - tc.p.pad_left - tc.p.pad_right;
    ASSERT_EQ(*ys, (Shape4{tc.x.n, tc.w.c * tc.p.groups, want_h, want_w}));
    const auto x = testing::random_floats(static_cast<std::size_t>(tc.x.numel()),
                                          static_cast<std::uint32_t>(c));
    const auto w = testing::random_floats(static_cast<std::size_t>(tc.w.numel()),
                                          static_cast<std::uint32_t>(c + 100));
    const auto b = testing::random_floats(static_cast<std::size_t>(ys->c),
                                          static_cast<std::uint32_t>(c + 200));
    const float* bias = tc.with_bias ? b.data() : nullptr;
    // A guard band after y catches writes past the end.
    constexpr std::size_t kGuard = 64;
    const auto out_size = static_cast<std::size_t>(ys->numel());
    std::vector<float> y(out_size + kGuard, -7.0f);
    ASSERT_EQ(conv_transpose2d(x.data(), tc.x, w.data(), tc.w, bias, tc.p, *ys, y.data()),
              Error::kOk);
    EXPECT_EQ(std::vector<float>(y.begin() + static_cast<long>(out_size), y.end()),
              std::vector<float>(kGuard, -7.0f));
    y.resize(out_size);
    const auto want = reference_conv_transpose(x, tc.x, w, tc.w, bias, tc.p, *ys);
    testing::expect_dot_near(y, want, tc.x.c / tc.p.groups * tc.w.h * tc.w.w + 1);
  }
}

TEST(ConvTranspose2dTest, SingleTapCopiesInputOntoStrideGrid) {
  // One channel, 1x1 weight 2, stride 2: y[2i][2j] = 2 x[i][j], rest 0.
  const std::vector<float> x = {1, 2, 3, 4};
  const float w = 2.0f;
  ConvTranspose2dParams p;
  p.stride_h = 2;
  p.stride_w = 2;
  p.output_padding_h = 1;
  p.output_padding_w = 1;
  const Shape4 ys{1, 1, 4, 4};
  std::vector<float> y(16);
  ASSERT_EQ(conv_transpose2d(x.data(), Shape4{1, 1, 2, 2}, &w, Shape4{1, 1, 1, 1}, nullptr, p, ys,
                             y.data()),
            Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{2, 0, 4, 0, 0, 0, 0, 0, 6, 0, 8, 0, 0, 0, 0, 0}));
}

TEST(ConvTranspose2dTest, RejectsBadShapesAndParameters) {
  const Shape4 xs{1, 4, 3, 3};
  const Shape4 ws{4, 2, 3, 3};
  ConvTranspose2dParams ok;
  Result<Shape4> ys = conv_transpose2d_output_shape(xs, ws, ok);
  ASSERT_TRUE(ys.ok());
  EXPECT_EQ(*ys, (Shape4{1, 2, 5, 5}));
  std::vector<float> x(36);
  std::vector<float> w(72);
  std::vector<float> y(200);
  auto run = [&](Shape4 x_shape, Shape4 w_shape, const ConvTranspose2dParams& p, Shape4 y_shape) {
    return conv_transpose2d(x.data(), x_shape, w.data(), w_shape, nullptr, p, y_shape, y.data());
  };
  EXPECT_EQ(run(xs, ws, ok, *ys), Error::kOk);
  EXPECT_EQ(run(xs, ws, ok, Shape4{1, 2, 6, 5}), Error::kInvalidArgument)
      << "y_shape must match the formula";
  EXPECT_EQ(run(xs, ws, ok, Shape4{1, 4, 5, 5}), Error::kInvalidArgument);
  EXPECT_EQ(run(xs, Shape4{3, 2, 3, 3}, ok, *ys), Error::kInvalidArgument)
      << "weight.n must be C_in";
  ConvTranspose2dParams p = ok;
  p.groups = 3;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.groups = 2;
  ASSERT_TRUE(conv_transpose2d_output_shape(xs, ws, p).ok());
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p)->c, 4);
  p = ok;
  p.stride_h = 0;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.dilation_w = -1;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.pad_left = -1;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.output_padding_h = -1;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.pad_top = 3;
  p.pad_bottom = 2;  // output height 0
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.stride_h = kMax;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.dilation_w = kMax / 2;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  p = ok;
  p.pad_top = kMax;
  EXPECT_EQ(conv_transpose2d_output_shape(xs, ws, p).error(), Error::kInvalidArgument);
  EXPECT_EQ(conv_transpose2d_output_shape(Shape4{1, 4, 0, 3}, ws, ok).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(conv_transpose2d(nullptr, xs, w.data(), ws, nullptr, ok, *ys, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(conv_transpose2d(x.data(), xs, nullptr, ws, nullptr, ok, *ys, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(conv_transpose2d(x.data(), xs, w.data(), ws, nullptr, ok, *ys, nullptr),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

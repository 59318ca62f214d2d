#include "glassbox/runtime/kernels/conv_pool3d.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using testing::expect_dot_near;
using testing::random_floats;
using testing::RefValue;

std::size_t size_of(Shape5 s) { return static_cast<std::size_t>(s.numel()); }

std::int64_t at(Shape5 s, std::int64_t n, std::int64_t c, std::int64_t d, std::int64_t h,
                std::int64_t w) {
  return (((n * s.c + c) * s.d + d) * s.h + h) * s.w + w;
}

// The definition, one output element at a time, in double.
std::vector<RefValue> naive_conv3d(const std::vector<float>& x, Shape5 in,
                                   const std::vector<float>& wt, Shape5 ws,
                                   const std::vector<float>& bias, const Conv3dParams& p,
                                   Shape5 out) {
  std::vector<RefValue> y(size_of(out));
  const std::int64_t in_per_group = ws.c;
  const std::int64_t out_per_group = out.c / p.groups;
  for (std::int64_t n = 0; n < out.n; ++n)
    for (std::int64_t oc = 0; oc < out.c; ++oc)
      for (std::int64_t od = 0; od < out.d; ++od)
        for (std::int64_t oh = 0; oh < out.h; ++oh)
          for (std::int64_t ow = 0; ow < out.w; ++ow) {
            RefValue& r = y[static_cast<std::size_t>(at(out, n, oc, od, oh, ow))];
            if (!bias.empty()) r = {bias[oc], std::abs(bias[oc])};
            for (std::int64_t i = 0; i < in_per_group; ++i) {
              const std::int64_t ic = oc / out_per_group * in_per_group + i;
              for (std::int64_t kd = 0; kd < ws.d; ++kd)
                for (std::int64_t kh = 0; kh < ws.h; ++kh)
                  for (std::int64_t kw = 0; kw < ws.w; ++kw) {
                    const std::int64_t id = od * p.stride[0] - p.pad_begin[0] + kd * p.dilation[0];
                    const std::int64_t ih = oh * p.stride[1] - p.pad_begin[1] + kh * p.dilation[1];
                    const std::int64_t iw = ow * p.stride[2] - p.pad_begin[2] + kw * p.dilation[2];
                    if (id < 0 || id >= in.d || ih < 0 || ih >= in.h || iw < 0 || iw >= in.w)
                      continue;
                    const double prod =
                        static_cast<double>(
                            x[static_cast<std::size_t>(at(in, n, ic, id, ih, iw))]) *
                        wt[static_cast<std::size_t>(at(ws, oc, i, kd, kh, kw))];
                    r.value += prod;
                    r.magnitude += std::abs(prod);
                  }
            }
          }
  return y;
}

struct ConvCase {
  const char* name;
  Shape5 in;
  Shape5 w;
  Conv3dParams p;
  bool bias;
};

TEST(Conv3dTest, MatchesNaiveReference) {
  const ConvCase cases[] = {
      {"plain", {1, 2, 4, 5, 6}, {3, 2, 3, 3, 3}, {}, true},
      {"stride_pad_asymmetric",
       {2, 3, 5, 6, 7},
       {4, 3, 2, 3, 2},
       {{2, 1, 3}, {1, 1, 1}, {1, 0, 2}, {0, 2, 1}, {0, 0, 0}, 1},
       true},
      {"dilation",
       {1, 2, 7, 7, 7},
       {2, 2, 3, 2, 3},
       {{1, 2, 1}, {2, 1, 3}, {2, 1, 0}, {1, 1, 2}, {}, 1},
       false},
      {"groups",
       {1, 4, 3, 4, 5},
       {6, 2, 1, 3, 3},
       {{1, 1, 1}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}, {}, 2},
       true},
      {"depthwise",
       {1, 3, 4, 4, 4},
       {6, 1, 3, 3, 3},
       {{1, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {}, 3},
       true},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    Result<Shape5> out = conv3d_output_shape(c.in, c.w, c.p);
    ASSERT_TRUE(out.ok());
    const auto x = random_floats(size_of(c.in), 1);
    const auto wt = random_floats(size_of(c.w), 2);
    const auto bias =
        c.bias ? random_floats(static_cast<std::size_t>(c.w.n), 3) : std::vector<float>{};
    std::vector<float> y(size_of(*out), std::nanf(""));
    ASSERT_EQ(conv3d(x.data(), c.in, wt.data(), c.w, c.bias ? bias.data() : nullptr, c.p, y.data()),
              Error::kOk);
    expect_dot_near(y, naive_conv3d(x, c.in, wt, c.w, bias, c.p, *out),
                    c.w.c * c.w.d * c.w.h * c.w.w);
  }
}

TEST(Conv3dTest, OutputShapeFollowsTheFormula) {
  Conv3dParams p;
  p.stride = {2, 1, 3};
  p.pad_begin = {1, 0, 2};
  p.pad_end = {0, 2, 1};
  // D: (5+1-3)/2+1 = 2; H: (6+2-2)/1+1 = 7; W: (7+3-1)/3+1 = 4.
  Result<Shape5> out = conv3d_output_shape({2, 3, 5, 6, 7}, {4, 3, 3, 2, 1}, p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, (Shape5{2, 4, 2, 7, 4}));
}

TEST(Conv3dTest, RejectsBadShapes) {
  Conv3dParams p;
  EXPECT_FALSE(conv3d_output_shape({1, 2, 3, 3, 3}, {1, 3, 1, 1, 1}, p).ok());  // channels
  EXPECT_FALSE(conv3d_output_shape({1, 2, 2, 3, 3}, {1, 2, 3, 1, 1}, p).ok());  // kernel > D
  p.groups = 2;
  EXPECT_FALSE(conv3d_output_shape({1, 2, 3, 3, 3}, {3, 1, 1, 1, 1}, p).ok());  // OC % groups
  p.groups = 1;
  p.stride = {0, 1, 1};
  EXPECT_FALSE(conv3d_output_shape({1, 2, 3, 3, 3}, {1, 2, 1, 1, 1}, p).ok());
  float v = 0.0f;
  EXPECT_EQ(conv3d(nullptr, {1, 1, 1, 1, 1}, &v, {1, 1, 1, 1, 1}, nullptr, Conv3dParams{}, &v),
            Error::kInvalidArgument);
}

// Scatter form of the definition: every input element and tap adds into
// one output element.
std::vector<RefValue> naive_conv_transpose3d(const std::vector<float>& x, Shape5 in,
                                             const std::vector<float>& wt, Shape5 ws,
                                             const std::vector<float>& bias, const Conv3dParams& p,
                                             Shape5 out) {
  std::vector<RefValue> y(size_of(out));
  const std::int64_t in_per_group = in.c / p.groups;
  for (std::int64_t n = 0; n < out.n; ++n)
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      for (std::int64_t v = 0; v < out.d * out.h * out.w; ++v) {
        if (!bias.empty())
          y[static_cast<std::size_t>((n * out.c + oc) * out.d * out.h * out.w + v)] = {
              bias[oc], std::abs(bias[oc])};
      }
      const std::int64_t group = oc / ws.c;
      for (std::int64_t i = 0; i < in_per_group; ++i) {
        const std::int64_t ic = group * in_per_group + i;
        for (std::int64_t id = 0; id < in.d; ++id)
          for (std::int64_t ih = 0; ih < in.h; ++ih)
            for (std::int64_t iw = 0; iw < in.w; ++iw)
              for (std::int64_t kd = 0; kd < ws.d; ++kd)
                for (std::int64_t kh = 0; kh < ws.h; ++kh)
                  for (std::int64_t kw = 0; kw < ws.w; ++kw) {
                    const std::int64_t od = id * p.stride[0] - p.pad_begin[0] + kd * p.dilation[0];
                    const std::int64_t oh = ih * p.stride[1] - p.pad_begin[1] + kh * p.dilation[1];
                    const std::int64_t ow = iw * p.stride[2] - p.pad_begin[2] + kw * p.dilation[2];
                    if (od < 0 || od >= out.d || oh < 0 || oh >= out.h || ow < 0 || ow >= out.w)
                      continue;
                    const double prod =
                        static_cast<double>(
                            x[static_cast<std::size_t>(at(in, n, ic, id, ih, iw))]) *
                        wt[static_cast<std::size_t>(at(ws, ic, oc % ws.c, kd, kh, kw))];
                    RefValue& r = y[static_cast<std::size_t>(at(out, n, oc, od, oh, ow))];
                    r.value += prod;
                    r.magnitude += std::abs(prod);
                  }
      }
    }
  return y;
}

TEST(ConvTranspose3dTest, MatchesNaiveReference) {
  const ConvCase cases[] = {
      {"plain", {1, 2, 3, 4, 3}, {2, 3, 2, 2, 3}, {}, true},
      {"stride_pad_output_padding",
       {2, 2, 3, 3, 4},
       {2, 2, 3, 2, 3},
       {{2, 1, 3}, {1, 2, 1}, {1, 0, 2}, {0, 1, 1}, {1, 0, 2}, 1},
       false},
      {"groups",
       {1, 4, 2, 3, 3},
       {4, 3, 2, 2, 2},
       {{1, 2, 1}, {1, 1, 1}, {0, 0, 1}, {0, 1, 0}, {}, 2},
       true},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    Result<Shape5> out = conv_transpose3d_output_shape(c.in, c.w, c.p);
    ASSERT_TRUE(out.ok());
    const auto x = random_floats(size_of(c.in), 4);
    const auto wt = random_floats(size_of(c.w), 5);
    const auto bias =
        c.bias ? random_floats(static_cast<std::size_t>(out->c), 6) : std::vector<float>{};
    std::vector<float> y(size_of(*out), std::nanf(""));
    ASSERT_EQ(conv_transpose3d(x.data(), c.in, wt.data(), c.w, c.bias ? bias.data() : nullptr, c.p,
                               *out, y.data()),
              Error::kOk);
    expect_dot_near(y, naive_conv_transpose3d(x, c.in, wt, c.w, bias, c.p, *out),
                    c.in.c * c.w.d * c.w.h * c.w.w);
  }
}

TEST(ConvTranspose3dTest, OutputShapeAndMismatch) {
  Conv3dParams p;
  p.stride = {2, 2, 1};
  p.output_padding = {1, 0, 0};
  p.pad_begin = {0, 1, 0};
  // D: 2*(3-1)+1+(2-1)+1 = 7; H: 2*(3-1)+(2-1)+1-1 = 5; W: (4-1)+(3-1)+1 = 6.
  Result<Shape5> out = conv_transpose3d_output_shape({1, 2, 3, 3, 4}, {2, 5, 2, 2, 3}, p);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, (Shape5{1, 5, 7, 5, 6}));
  std::vector<float> x(24 * 3), w(2 * 5 * 12), y(5 * 7 * 5 * 8);
  EXPECT_EQ(conv_transpose3d(x.data(), {1, 2, 3, 3, 4}, w.data(), {2, 5, 2, 2, 3}, nullptr, p,
                             {1, 5, 7, 5, 7}, y.data()),
            Error::kInvalidArgument);
}

// Pools, by the definition: every window position, in double.
std::vector<float> naive_pool3d(const std::vector<float>& x, Shape5 in, const Pool3dParams& p,
                                Shape5 out, bool avg) {
  std::vector<float> y;
  const std::int64_t size[] = {in.d, in.h, in.w};
  for (std::int64_t nc = 0; nc < in.n * in.c; ++nc)
    for (std::int64_t od = 0; od < out.d; ++od)
      for (std::int64_t oh = 0; oh < out.h; ++oh)
        for (std::int64_t ow = 0; ow < out.w; ++ow) {
          const std::int64_t o[] = {od, oh, ow};
          double sum = 0, max = -std::numeric_limits<double>::infinity();
          std::int64_t count = 0;
          bool nan = false;
          for (std::int64_t kd = 0; kd < p.kernel[0]; ++kd)
            for (std::int64_t kh = 0; kh < p.kernel[1]; ++kh)
              for (std::int64_t kw = 0; kw < p.kernel[2]; ++kw) {
                const std::int64_t k[] = {kd, kh, kw};
                std::int64_t idx[3];
                bool inside = true;
                for (int a = 0; a < 3; ++a) {
                  idx[a] = o[a] * p.stride[a] - p.pad_begin[a] + k[a] * p.dilation[a];
                  inside = inside && idx[a] >= 0 && idx[a] < size[a];
                }
                if (!inside) continue;
                const float v = x[static_cast<std::size_t>(
                    ((nc * in.d + idx[0]) * in.h + idx[1]) * in.w + idx[2])];
                nan = nan || std::isnan(v);
                sum += v;
                max = std::max<double>(max, v);
                ++count;
              }
          if (!avg) {
            y.push_back(nan ? std::nanf("") : static_cast<float>(max));
            continue;
          }
          std::int64_t divisor = count;
          if (p.count_include_pad) {
            divisor = 1;
            for (int a = 0; a < 3; ++a) {
              const std::int64_t s = o[a] * p.stride[a] - p.pad_begin[a];
              divisor *=
                  std::min(s + p.kernel[a], size[a] + p.pad_end[a]) - std::max(s, -p.pad_begin[a]);
            }
          }
          y.push_back(count == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(divisor)));
        }
  return y;
}

struct PoolCase {
  const char* name;
  Shape5 in;
  Pool3dParams p;
};

TEST(Pool3dTest, MaxAndAvgMatchNaiveReference) {
  const PoolCase cases[] = {
      {"plain", {1, 2, 4, 4, 4}, {{2, 2, 2}, {2, 2, 2}, {1, 1, 1}, {}, {}, false, true}},
      {"padded_exclude",
       {2, 3, 5, 6, 7},
       {{3, 2, 3}, {2, 1, 2}, {1, 1, 1}, {1, 0, 1}, {1, 1, 0}, false, false}},
      {"padded_include",
       {1, 2, 5, 6, 7},
       {{3, 3, 2}, {1, 2, 2}, {1, 1, 1}, {1, 1, 0}, {0, 1, 1}, false, true}},
      {"ceil_mode",
       {1, 2, 5, 6, 7},
       {{2, 3, 2}, {2, 2, 3}, {1, 1, 1}, {0, 1, 1}, {0, 1, 1}, true, true}},
      {"ceil_exclude",
       {1, 1, 6, 5, 4},
       {{3, 2, 3}, {2, 2, 2}, {1, 1, 1}, {1, 0, 1}, {0, 0, 1}, true, false}},
  };
  for (const PoolCase& c : cases) {
    SCOPED_TRACE(c.name);
    Result<Shape5> out = pool3d_output_shape(c.in, c.p);
    ASSERT_TRUE(out.ok());
    const auto x = random_floats(size_of(c.in), 7);
    std::vector<float> y(size_of(*out));
    ASSERT_EQ(max_pool3d(x.data(), c.in, c.p, y.data()), Error::kOk);
    EXPECT_EQ(y, naive_pool3d(x, c.in, c.p, *out, false));
    ASSERT_EQ(avg_pool3d(x.data(), c.in, c.p, y.data()), Error::kOk);
    const auto want = naive_pool3d(x, c.in, c.p, *out, true);
    for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
  }
}

TEST(Pool3dTest, MaxPoolDilationAndNaN) {
  Pool3dParams p;
  p.kernel = {2, 2, 2};
  p.dilation = {2, 1, 2};
  p.pad_begin = {1, 0, 1};
  const Shape5 in{1, 1, 4, 3, 5};
  auto x = random_floats(size_of(in), 8);
  x[7] = std::nanf("");
  Result<Shape5> out = pool3d_output_shape(in, p);
  ASSERT_TRUE(out.ok());
  std::vector<float> y(size_of(*out));
  ASSERT_EQ(max_pool3d(x.data(), in, p, y.data()), Error::kOk);
  const auto want = naive_pool3d(x, in, p, *out, false);
  bool saw_nan = false;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(y[i])) << i;
      saw_nan = true;
    } else {
      EXPECT_EQ(y[i], want[i]) << i;
    }
  }
  EXPECT_TRUE(saw_nan);
  EXPECT_EQ(avg_pool3d(x.data(), in, p, y.data()), Error::kInvalidArgument);  // dilation
}

TEST(Pool3dTest, RejectsWindowLargerThanPaddedInput) {
  Pool3dParams p;
  p.kernel = {4, 1, 1};
  EXPECT_FALSE(pool3d_output_shape({1, 1, 3, 2, 2}, p).ok());
  p.pad_end = {1, 0, 0};
  EXPECT_TRUE(pool3d_output_shape({1, 1, 3, 2, 2}, p).ok());
}

}  // namespace
}  // namespace glassbox::runtime::kernels

#include "glassbox/runtime/kernels/pooling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

// PyTorch's output-size rule, written independently of the kernel.
std::int64_t ref_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t pb,
                      std::int64_t pe, std::int64_t d, bool ceil_mode) {
  const double span = static_cast<double>(in + pb + pe - d * (k - 1) - 1);
  std::int64_t out =
      static_cast<std::int64_t>(ceil_mode ? std::ceil(span / static_cast<double>(s))
                                          : std::floor(span / static_cast<double>(s))) +
      1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

// Visits every window position and asks `at(ih, iw)` whether it is inside.
std::vector<float> reference_pool(const std::vector<float>& in, Shape4 is, const Pool2dParams& p,
                                  bool is_max, Shape4 os) {
  std::vector<float> out;
  for (std::int64_t pl = 0; pl < is.n * is.c; ++pl)
    for (std::int64_t oh = 0; oh < os.h; ++oh)
      for (std::int64_t ow = 0; ow < os.w; ++ow) {
        double best = -std::numeric_limits<double>::infinity();
        double sum = 0.0;
        std::int64_t valid = 0;
        std::int64_t padded = 0;
        for (std::int64_t kh = 0; kh < p.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
            const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            // Positions past the end padding (ceil_mode overhang) never count.
            if (ih < is.h + p.pad_bottom && iw < is.w + p.pad_right) ++padded;
            if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;
            const double v = in[static_cast<std::size_t>((pl * is.h + ih) * is.w + iw)];
            best = std::max(best, v);
            sum += v;
            ++valid;
          }
        const std::int64_t divisor = p.count_include_pad ? padded : valid;
        out.push_back(is_max ? static_cast<float>(best)
                             : static_cast<float>(sum / static_cast<double>(divisor)));
      }
  return out;
}

struct PoolCase {
  const char* name;
  Shape4 input;
  Pool2dParams p;
};

Pool2dParams make(std::int64_t k, std::int64_t s, std::int64_t pad, bool ceil_mode,
                  bool include_pad) {
  Pool2dParams p;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = s;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.ceil_mode = ceil_mode;
  p.count_include_pad = include_pad;
  return p;
}

std::vector<PoolCase> cases() {
  Pool2dParams asym = make(3, 2, 0, true, true);
  asym.pad_top = 1;
  asym.pad_right = 2;
  Pool2dParams rect = make(2, 1, 0, false, true);
  rect.kernel_w = 4;
  rect.stride_h = 3;
  return {
      {"2x2 s2", {2, 3, 8, 8}, make(2, 2, 0, false, true)},
      {"3x3 s2 pad1", {1, 4, 9, 9}, make(3, 2, 1, false, true)},
      {"3x3 s2 pad1 exclude pad", {1, 4, 9, 9}, make(3, 2, 1, false, false)},
      {"ceil_mode", {1, 2, 10, 7}, make(3, 2, 0, true, true)},
      {"ceil_mode pad exclude", {1, 2, 10, 11}, make(3, 2, 1, true, false)},
      {"ceil_mode pad include", {1, 2, 6, 6}, make(2, 2, 1, true, true)},
      {"asymmetric pad", {1, 3, 7, 8}, asym},
      {"rectangular", {2, 1, 11, 9}, rect},
  };
}

TEST(PoolingTest, MaxMatchesReference) {
  for (PoolCase c : cases()) {
    SCOPED_TRACE(c.name);
    for (std::int64_t dil : {1, 2}) {
      c.p.dilation_h = c.p.dilation_w = dil;
      Result<Shape4> os = pool2d_output_shape(c.input, c.p);
      ASSERT_TRUE(os.ok());
      EXPECT_EQ(os->h, ref_size(c.input.h, c.p.kernel_h, c.p.stride_h, c.p.pad_top, c.p.pad_bottom,
                                dil, c.p.ceil_mode));
      EXPECT_EQ(os->w, ref_size(c.input.w, c.p.kernel_w, c.p.stride_w, c.p.pad_left, c.p.pad_right,
                                dil, c.p.ceil_mode));
      const auto in = testing::random_floats(static_cast<std::size_t>(c.input.numel()), 61);
      std::vector<float> out(static_cast<std::size_t>(os->numel()), NAN);
      ASSERT_EQ(max_pool2d(in.data(), c.input, c.p, out.data()), Error::kOk);
      EXPECT_EQ(out, reference_pool(in, c.input, c.p, true, *os));  // exact
    }
  }
}

TEST(PoolingTest, AvgMatchesReference) {
  for (const PoolCase& c : cases()) {
    SCOPED_TRACE(c.name);
    Result<Shape4> os = pool2d_output_shape(c.input, c.p);
    ASSERT_TRUE(os.ok());
    const auto in = testing::random_floats(static_cast<std::size_t>(c.input.numel()), 62);
    std::vector<float> out(static_cast<std::size_t>(os->numel()), NAN);
    ASSERT_EQ(avg_pool2d(in.data(), c.input, c.p, out.data()), Error::kOk);
    const auto want = reference_pool(in, c.input, c.p, false, *os);
    // At most 12 terms of |x| <= 1 summed in float, then one division:
    // (12 + 1) * u * 12 / divisor < 1e-6.
    for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-6) << "at " << i;
  }
}

// The float32 average the kernel computes, summed in its documented order:
// each window column over its rows first, then the columns left to right.
std::vector<float> reference_avg_float(const std::vector<float>& in, Shape4 is,
                                       const Pool2dParams& p, Shape4 os) {
  std::vector<float> out;
  for (std::int64_t pl = 0; pl < is.n * is.c; ++pl)
    for (std::int64_t oh = 0; oh < os.h; ++oh)
      for (std::int64_t ow = 0; ow < os.w; ++ow) {
        float sum = 0.0f;
        std::int64_t valid = 0;
        std::int64_t padded = 0;
        for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
          float column = 0.0f;
          for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
            const std::int64_t ih = oh * p.stride_h - p.pad_top + kh;
            const std::int64_t iw = ow * p.stride_w - p.pad_left + kw;
            if (ih < is.h + p.pad_bottom && iw < is.w + p.pad_right) ++padded;
            if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;
            column += in[static_cast<std::size_t>((pl * is.h + ih) * is.w + iw)];
            ++valid;
          }
          sum += column;
        }
        const std::int64_t divisor = p.count_include_pad ? padded : valid;
        out.push_back(divisor > 0 ? sum / static_cast<float>(divisor) : 0.0f);
      }
  return out;
}

// A case's seeded input and the kernel's output on it (empty on failure,
// which the comparison then reports).
struct Pooled {
  std::vector<float> in;
  std::vector<float> out;
  Shape4 shape;
};

Pooled pool_seeded(const PoolCase& c, std::uint32_t seed, bool is_max) {
  Pooled r;
  Result<Shape4> os = pool2d_output_shape(c.input, c.p);
  EXPECT_TRUE(os.ok());
  if (!os.ok()) return r;
  r.shape = *os;
  r.in = testing::random_floats(static_cast<std::size_t>(c.input.numel()), seed);
  r.out.assign(static_cast<std::size_t>(os->numel()), NAN);
  const Error e = is_max ? max_pool2d(r.in.data(), c.input, c.p, r.out.data())
                         : avg_pool2d(r.in.data(), c.input, c.p, r.out.data());
  EXPECT_EQ(e, Error::kOk);
  return r;
}

TEST(PoolingTest, AvgEqualsFloatReferenceExactly) {
  std::vector<PoolCase> all = cases();
  // Wider than the kernel's stack row, so outputs come in several chunks.
  all.push_back({"wide ceil_mode", {1, 2, 5, 2500}, make(3, 2, 1, true, false)});
  all.push_back({"wide stride 1", {1, 1, 3, 1100}, make(3, 1, 1, false, true)});
  for (const PoolCase& c : all) {
    SCOPED_TRACE(c.name);
    const Pooled r = pool_seeded(c, 64, false);
    EXPECT_EQ(r.out, reference_avg_float(r.in, c.input, c.p, r.shape));
  }
}

TEST(PoolingTest, MaxMatchesReferenceOnWideAndDilatedRows) {
  Pool2dParams wide = make(3, 2, 1, true, true);
  // A window wider than the kernel's stack row takes its per-tap path.
  Pool2dParams huge = make(2, 1, 0, false, true);
  huge.dilation_w = 1200;
  Pool2dParams stride3 = make(4, 3, 2, true, true);
  stride3.dilation_h = 2;
  const std::vector<PoolCase> all = {
      {"wide ceil_mode", {1, 2, 6, 2500}, wide},
      {"window wider than a row chunk", {1, 1, 3, 1300}, huge},
      {"stride 3 dilated rows", {2, 2, 13, 17}, stride3},
  };
  for (const PoolCase& c : all) {
    SCOPED_TRACE(c.name);
    const Pooled r = pool_seeded(c, 65, true);
    EXPECT_EQ(r.out, reference_pool(r.in, c.input, c.p, true, r.shape));
  }
}

TEST(PoolingTest, MaxPropagatesNaNFromAnyTap) {
  const Shape4 s{1, 1, 5, 7};
  const Pool2dParams p = make(3, 2, 1, true, true);
  Result<Shape4> os = pool2d_output_shape(s, p);
  ASSERT_TRUE(os.ok());
  for (std::int64_t at = 0; at < s.numel(); ++at) {
    std::vector<float> in(static_cast<std::size_t>(s.numel()), 1.0f);
    in[static_cast<std::size_t>(at)] = NAN;
    std::vector<float> out(static_cast<std::size_t>(os->numel()), 0.0f);
    ASSERT_EQ(max_pool2d(in.data(), s, p, out.data()), Error::kOk);
    const std::int64_t ih = at / s.w, iw = at % s.w;
    for (std::int64_t oh = 0; oh < os->h; ++oh)
      for (std::int64_t ow = 0; ow < os->w; ++ow) {
        const std::int64_t dh = ih - (oh * 2 - 1), dw = iw - (ow * 2 - 1);
        const bool covers = dh >= 0 && dh < 3 && dw >= 0 && dw < 3;
        EXPECT_EQ(std::isnan(out[static_cast<std::size_t>(oh * os->w + ow)]), covers)
            << "NaN at " << at << ", output " << oh << "," << ow;
      }
  }
}

TEST(PoolingTest, CountIncludePadChangesDivisor) {
  // 1x1x2x2 of ones, 2x2 windows stride 2, pad 1: each window sees one
  // real element and three padded ones.
  const std::vector<float> in(4, 1.0f);
  Pool2dParams p = make(2, 2, 1, false, true);
  float out[4];
  ASSERT_EQ(avg_pool2d(in.data(), {1, 1, 2, 2}, p, out), Error::kOk);
  EXPECT_EQ(out[0], 0.25f);
  p.count_include_pad = false;
  ASSERT_EQ(avg_pool2d(in.data(), {1, 1, 2, 2}, p, out), Error::kOk);
  EXPECT_EQ(out[0], 1.0f);
}

TEST(PoolingTest, GlobalAverage) {
  const Shape4 s{2, 3, 7, 5};
  const auto in = testing::random_floats(static_cast<std::size_t>(s.numel()), 63);
  std::vector<float> out(6);
  ASSERT_EQ(global_avg_pool2d(in.data(), s, out.data()), Error::kOk);
  for (std::size_t pl = 0; pl < 6; ++pl) {
    double sum = 0.0;
    for (std::size_t i = 0; i < 35; ++i) sum += in[pl * 35 + i];
    EXPECT_NEAR(out[pl], sum / 35.0, 1e-6);  // 35 terms: 36 * u * 35 / 35
  }
}

TEST(PoolingTest, RejectsInvalidArguments) {
  std::vector<float> buf(64);
  EXPECT_EQ(pool2d_output_shape({1, 1, 2, 2}, make(3, 1, 0, false, true)).error(),
            Error::kInvalidArgument);
  EXPECT_EQ(pool2d_output_shape({1, 1, 4, 4}, make(2, 0, 0, false, true)).error(),
            Error::kInvalidArgument);
  Pool2dParams dilated = make(2, 1, 0, false, true);
  dilated.dilation_h = 2;
  EXPECT_EQ(avg_pool2d(buf.data(), {1, 1, 4, 4}, dilated, buf.data()), Error::kInvalidArgument);
  EXPECT_EQ(max_pool2d(nullptr, {1, 1, 4, 4}, make(2, 2, 0, false, true), buf.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(global_avg_pool2d(buf.data(), {1, 1, 0, 4}, buf.data()), Error::kInvalidArgument);
}

TEST(PoolingTest, RejectsSizesThatOverflow) {
  constexpr std::int64_t kHuge = std::int64_t{1} << 60;
  Pool2dParams padded = make(1, 1, 0, false, true);
  padded.pad_top = padded.pad_bottom = 4 * kHuge;
  EXPECT_EQ(pool2d_output_shape({1, 1, 4, 4}, padded).error(), Error::kInvalidArgument);
  Pool2dParams many = make(1, 1, 0, false, true);
  many.pad_left = many.pad_right = kHuge;
  EXPECT_EQ(pool2d_output_shape({64, 64, 4, 4}, many).error(), Error::kInvalidArgument);
  Pool2dParams dilated = make(2, 1, 0, true, true);
  dilated.dilation_w = 4 * kHuge;
  EXPECT_EQ(pool2d_output_shape({1, 1, 4, 4}, dilated).error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

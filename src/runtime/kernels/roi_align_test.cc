#include "glassbox/runtime/kernels/roi_align.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace glassbox::runtime::kernels {
namespace {

// The naive reference, in double: every output element on its own, every
// sample read straight from the plane by coordinates (no offsets or weights
// shared across channels), ONNX's rules spelled out where they apply.
double sample(const std::vector<float>& x, const Shape4& s, std::int64_t b, std::int64_t c,
              double y, double xx, bool max_of_corners) {
  if (y < -1.0 || y > static_cast<double>(s.h) || xx < -1.0 || xx > static_cast<double>(s.w)) {
    return 0.0;
  }
  auto at = [&](std::int64_t i, std::int64_t j) {
    return static_cast<double>(x[static_cast<std::size_t>(((b * s.c + c) * s.h + i) * s.w + j)]);
  };
  // Clamped at 0; a point at or past the last pixel reads the last pixel.
  y = std::max(y, 0.0);
  xx = std::max(xx, 0.0);
  std::int64_t y0 = static_cast<std::int64_t>(std::floor(y));
  std::int64_t x0 = static_cast<std::int64_t>(std::floor(xx));
  if (y0 >= s.h - 1) y = static_cast<double>(y0 = s.h - 1);
  if (x0 >= s.w - 1) xx = static_cast<double>(x0 = s.w - 1);
  const std::int64_t y1 = std::min(y0 + 1, s.h - 1);
  const std::int64_t x1 = std::min(x0 + 1, s.w - 1);
  const double fy = y - static_cast<double>(y0);
  const double fx = xx - static_cast<double>(x0);
  const double corners[4] = {(1 - fy) * (1 - fx) * at(y0, x0), (1 - fy) * fx * at(y0, x1),
                             fy * (1 - fx) * at(y1, x0), fy * fx * at(y1, x1)};
  if (max_of_corners) return *std::max_element(corners, corners + 4);
  return corners[0] + corners[1] + corners[2] + corners[3];
}

std::vector<double> reference(const std::vector<float>& x, const Shape4& s,
                              const std::vector<float>& rois,
                              const std::vector<std::int64_t>& batch, const RoiAlignParams& p) {
  std::vector<double> y;
  const double shift = p.half_pixel ? 0.5 : 0.0;
  for (std::size_t r = 0; r < batch.size(); ++r) {
    const double x1 = rois[4 * r] * p.spatial_scale - shift;
    const double y1 = rois[4 * r + 1] * p.spatial_scale - shift;
    double w = rois[4 * r + 2] * p.spatial_scale - shift - x1;
    double h = rois[4 * r + 3] * p.spatial_scale - shift - y1;
    if (!p.half_pixel) {
      w = std::max(w, 1.0);
      h = std::max(h, 1.0);
    }
    const double bh = h / static_cast<double>(p.output_height);
    const double bw = w / static_cast<double>(p.output_width);
    const std::int64_t gh =
        p.sampling_ratio > 0 ? p.sampling_ratio
                             : std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(bh)));
    const std::int64_t gw =
        p.sampling_ratio > 0 ? p.sampling_ratio
                             : std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(bw)));
    for (std::int64_t c = 0; c < s.c; ++c) {
      for (std::int64_t ph = 0; ph < p.output_height; ++ph) {
        for (std::int64_t pw = 0; pw < p.output_width; ++pw) {
          double sum = 0.0;
          double best = -std::numeric_limits<double>::infinity();
          for (std::int64_t i = 0; i < gh; ++i) {
            for (std::int64_t j = 0; j < gw; ++j) {
              const double sy = y1 + (static_cast<double>(ph) +
                                      (static_cast<double>(i) + 0.5) / static_cast<double>(gh)) *
                                         bh;
              const double sx = x1 + (static_cast<double>(pw) +
                                      (static_cast<double>(j) + 0.5) / static_cast<double>(gw)) *
                                         bw;
              const double v = sample(x, s, batch[r], c, sy, sx, p.mode == RoiAlignMode::kMax);
              sum += v;
              best = std::max(best, v);
            }
          }
          if (p.mode == RoiAlignMode::kMax) {
            y.push_back(gh * gw == 0 ? 0.0 : best);
          } else {
            y.push_back(sum / static_cast<double>(std::max<std::int64_t>(gh * gw, 1)));
          }
        }
      }
    }
  }
  return y;
}

std::vector<float> ramp(const Shape4& s) {
  std::vector<float> x(static_cast<std::size_t>(s.numel()));
  // Not linear in (y, x), so bilinear sampling is not exact by accident,
  // and signed, so max of weighted corners differs from weighting the max.
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(static_cast<std::int64_t>(i * 37 % 23) - 11) * 0.25f;
  }
  return x;
}

void expect_near_reference(const std::vector<float>& y, const std::vector<double>& expected) {
  ASSERT_EQ(y.size(), expected.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    EXPECT_NEAR(y[i], expected[i], 1e-5 + 1e-5 * std::abs(expected[i])) << "element " << i;
  }
}

TEST(RoiAlignTest, MatchesTheReferenceInEveryModeAndTransform) {
  const Shape4 s{2, 3, 7, 9};
  const std::vector<float> x = ramp(s);
  // In order: inside the map, partly outside (negative and past the far
  // edge), smaller than a pixel, reversed (x2 < x1), and on batch entry 1.
  const std::vector<float> rois = {2.0f,  1.0f,  10.0f, 9.0f, -3.0f, -2.5f, 20.0f,
                                   16.0f, 6.2f,  4.1f,  6.6f, 4.4f,  12.0f, 3.0f,
                                   4.0f,  11.0f, 0.0f,  0.0f, 17.0f, 13.0f};
  const std::vector<std::int64_t> batch = {0, 1, 0, 1, 1};
  for (RoiAlignMode mode : {RoiAlignMode::kAvg, RoiAlignMode::kMax}) {
    for (bool half_pixel : {false, true}) {
      for (std::int64_t ratio : {0, 1, 2, 3}) {
        SCOPED_TRACE(::testing::Message() << "max " << (mode == RoiAlignMode::kMax)
                                          << " half_pixel " << half_pixel << " ratio " << ratio);
        RoiAlignParams p;
        p.output_height = 3;
        p.output_width = 2;
        p.sampling_ratio = ratio;
        p.spatial_scale = 0.5f;
        p.mode = mode;
        p.half_pixel = half_pixel;
        std::vector<float> y(5 * 3 * 3 * 2, -99.0f);
        ASSERT_EQ(roi_align(x.data(), s, rois.data(), batch.data(), 5, p, y.data()), Error::kOk);
        expect_near_reference(y, reference(x, s, rois, batch, p));
      }
    }
  }
}

TEST(RoiAlignTest, AveragesAConstantMapToItsValue) {
  // A roi wholly inside a constant map samples the constant everywhere.
  const Shape4 s{1, 1, 5, 5};
  const std::vector<float> x(25, 2.5f);
  const std::vector<float> rois = {1.0f, 1.0f, 3.5f, 4.0f};
  const std::vector<std::int64_t> batch = {0};
  RoiAlignParams p;
  p.output_height = 2;
  p.output_width = 2;
  std::vector<float> y(4);
  ASSERT_EQ(roi_align(x.data(), s, rois.data(), batch.data(), 1, p, y.data()), Error::kOk);
  for (float v : y) EXPECT_FLOAT_EQ(v, 2.5f);
}

TEST(RoiAlignTest, RefusesBadBatchIndicesRoisAndParameters) {
  const Shape4 s{1, 1, 4, 4};
  const std::vector<float> x(16, 1.0f);
  std::vector<float> y(4);
  RoiAlignParams p;
  p.output_height = 2;
  p.output_width = 2;
  const std::vector<float> good = {0, 0, 2, 2};
  const std::vector<std::int64_t> outside = {1};
  const std::vector<std::int64_t> negative = {-1};
  EXPECT_EQ(roi_align(x.data(), s, good.data(), outside.data(), 1, p, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(roi_align(x.data(), s, good.data(), negative.data(), 1, p, y.data()),
            Error::kInvalidArgument);
  const std::vector<std::int64_t> zero = {0};
  const std::vector<float> nan = {0, std::numeric_limits<float>::quiet_NaN(), 2, 2};
  EXPECT_EQ(roi_align(x.data(), s, nan.data(), zero.data(), 1, p, y.data()),
            Error::kInvalidArgument);
  // An adaptive grid of 2^40 samples per bin.
  const std::vector<float> huge = {0, 0, 2e6f, 2e6f};
  EXPECT_EQ(roi_align(x.data(), s, huge.data(), zero.data(), 1, p, y.data()),
            Error::kInvalidArgument);
  RoiAlignParams negative_ratio = p;
  negative_ratio.sampling_ratio = -1;
  EXPECT_EQ(roi_align(x.data(), s, good.data(), zero.data(), 1, negative_ratio, y.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(roi_align(x.data(), s, good.data(), zero.data(), 1, p, y.data()), Error::kOk);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

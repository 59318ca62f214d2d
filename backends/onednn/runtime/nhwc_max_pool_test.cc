#include "backends/onednn/runtime/nhwc_max_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace glassbox::backends::onednn {
namespace {

// The definition, one element at a time.
std::vector<float> reference(const NhwcMaxPool& p, const std::vector<float>& x) {
  std::vector<float> y(static_cast<std::size_t>(p.n * p.oh * p.ow * p.c));
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t oh = 0; oh < p.oh; ++oh)
      for (std::int64_t ow = 0; ow < p.ow; ++ow)
        for (std::int64_t c = 0; c < p.c; ++c) {
          float best = -std::numeric_limits<float>::infinity();
          for (std::int64_t i = 0; i < p.kernel_h; ++i)
            for (std::int64_t j = 0; j < p.kernel_w; ++j) {
              const std::int64_t h = oh * p.stride_h - p.pad_top + i;
              const std::int64_t w = ow * p.stride_w - p.pad_left + j;
              if (h < 0 || h >= p.h || w < 0 || w >= p.w) continue;
              best =
                  std::max(best, x[static_cast<std::size_t>(((n * p.h + h) * p.w + w) * p.c + c)]);
            }
          y[static_cast<std::size_t>(((n * p.oh + oh) * p.ow + ow) * p.c + c)] = best;
        }
  return y;
}

// Output size with floor or ceil rounding (ceil as extra bottom/right
// padding, as the delegate passes it).
std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t pad,
                      bool ceil) {
  const std::int64_t span = in + 2 * pad - k;
  return (ceil ? (span + s - 1) / s : span / s) + 1;
}

TEST(NhwcMaxPoolTest, MatchesTheDefinitionOnManyShapes) {
  std::mt19937 rng(7);
  int checked = 0;
  for (std::int64_t c : {1, 3, 16, 64, 80, 130}) {
    for (std::int64_t k : {1, 2, 3, 4}) {
      for (std::int64_t s : {1, 2, 3}) {
        for (std::int64_t pad = 0; pad < k && pad <= 1; ++pad) {
          for (bool ceil : {false, true}) {
            NhwcMaxPool p;
            p.n = 2, p.h = 9, p.w = 7, p.c = c;
            p.kernel_h = k, p.kernel_w = k, p.stride_h = s, p.stride_w = s;
            p.pad_top = pad, p.pad_left = pad;
            p.oh = out_size(p.h, k, s, pad, ceil);
            p.ow = out_size(p.w, k, s, pad, ceil);
            if (!p.valid()) continue;  // a ceil window wholly in the padding
            std::vector<float> x(static_cast<std::size_t>(p.n * p.h * p.w * p.c));
            std::uniform_real_distribution<float> dist(-5.f, 5.f);
            for (float& v : x) v = dist(rng);
            std::vector<float> y(static_cast<std::size_t>(p.n * p.oh * p.ow * p.c), 0.f);
            nhwc_max_pool(p, x.data(), y.data());
            ASSERT_EQ(y, reference(p, x))
                << "c " << c << " k " << k << " s " << s << " pad " << pad << " ceil " << ceil;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(NhwcMaxPoolTest, RefusesWindowsThatCoverNoInput) {
  NhwcMaxPool p;
  p.n = 1, p.h = 4, p.w = 4, p.c = 8, p.kernel_h = 2, p.kernel_w = 2, p.stride_h = 2,
  p.stride_w = 2;
  p.oh = 2, p.ow = 2;
  EXPECT_TRUE(p.valid());
  p.pad_top = 2;  // the first window lies wholly in the padding
  EXPECT_FALSE(p.valid());
  p.pad_top = 0;
  p.ow = 3;  // the last window starts past the input
  EXPECT_FALSE(p.valid());
}

}  // namespace
}  // namespace glassbox::backends::onednn

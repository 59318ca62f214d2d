#include "backends/xnnpack/runtime/layout_transpose.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace glassbox::backends::xnnpack {
namespace {

// Every channel count with a path of its own (1 to 4; 3 floats four
// pixels per step on x86-64, then a tail), and tiled ones (a partial
// tile, several tiles), over plane sizes that do and do not fill a tile
// or a step; exact against the naive index arithmetic, both directions.
TEST(LayoutTransposeTest, BothDirectionsMatchTheNaiveLoops) {
  for (const std::int64_t n : {1, 2}) {
    for (const std::int64_t c : {1, 2, 3, 4, 5, 33, 70}) {
      for (const std::int64_t hw : {1, 7, 32, 49, 1000}) {
        const std::int64_t total = n * c * hw;
        std::vector<float> nchw(static_cast<std::size_t>(total));
        for (std::int64_t i = 0; i < total; ++i) nchw[static_cast<std::size_t>(i)] = float(i);
        std::vector<float> nhwc(nchw.size(), -1.0f), back(nchw.size(), -1.0f);
        nchw_to_nhwc(nchw.data(), nhwc.data(), n, c, hw);
        for (std::int64_t b = 0; b < n; ++b) {
          for (std::int64_t ch = 0; ch < c; ++ch) {
            for (std::int64_t p = 0; p < hw; ++p) {
              ASSERT_EQ(nhwc[static_cast<std::size_t>((b * hw + p) * c + ch)],
                        nchw[static_cast<std::size_t>((b * c + ch) * hw + p)])
                  << "n=" << n << " c=" << c << " hw=" << hw;
            }
          }
        }
        nhwc_to_nchw(nhwc.data(), back.data(), n, c, hw);
        ASSERT_EQ(back, nchw) << "n=" << n << " c=" << c << " hw=" << hw;
      }
    }
  }
}

// A slice of a wider tensor's channels (an output written into its part
// of a concat, concat_in_place.h): pixels `stride` floats apart, the other
// channels never read.
TEST(LayoutTransposeTest, StridedPixelsAreASliceOfWiderChannels) {
  for (const std::int64_t n : {1, 2}) {
    for (const std::int64_t c : {3, 33}) {
      const std::int64_t hw = 49, stride = c + 5;
      std::vector<float> wide(static_cast<std::size_t>(n * hw * stride), 0.0f);
      for (std::int64_t b = 0; b < n; ++b) {
        for (std::int64_t p = 0; p < hw; ++p) {
          for (std::int64_t ch = 0; ch < stride; ++ch) {
            // The slice's channels hold their NCHW index; the rest -1.
            wide[static_cast<std::size_t>((b * hw + p) * stride + ch)] =
                ch < c ? float((b * c + ch) * hw + p) : -1.0f;
          }
        }
      }
      std::vector<float> nchw(static_cast<std::size_t>(n * c * hw), -2.0f);
      nhwc_to_nchw(wide.data(), nchw.data(), n, c, hw, stride);
      for (std::size_t i = 0; i < nchw.size(); ++i) {
        ASSERT_EQ(nchw[i], float(i)) << "n=" << n << " c=" << c << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

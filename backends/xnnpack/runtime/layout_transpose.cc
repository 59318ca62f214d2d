#include "backends/xnnpack/runtime/layout_transpose.h"

namespace glassbox::backends::xnnpack {
namespace {
// Tiles keep both the strided reads and the strided writes in cache.
constexpr std::int64_t kTile = 32;
}  // namespace

void nchw_to_nhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw) {
  for (std::int64_t b = 0; b < n; ++b) {
    const float* src = in + b * c * hw;
    float* dst = out + b * c * hw;
    for (std::int64_t c0 = 0; c0 < c; c0 += kTile) {
      const std::int64_t c1 = c0 + kTile < c ? c0 + kTile : c;
      for (std::int64_t p0 = 0; p0 < hw; p0 += kTile) {
        const std::int64_t p1 = p0 + kTile < hw ? p0 + kTile : hw;
        for (std::int64_t p = p0; p < p1; ++p) {
          for (std::int64_t ch = c0; ch < c1; ++ch) dst[p * c + ch] = src[ch * hw + p];
        }
      }
    }
  }
}

void nhwc_to_nchw(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw) {
  for (std::int64_t b = 0; b < n; ++b) {
    const float* src = in + b * c * hw;
    float* dst = out + b * c * hw;
    for (std::int64_t c0 = 0; c0 < c; c0 += kTile) {
      const std::int64_t c1 = c0 + kTile < c ? c0 + kTile : c;
      for (std::int64_t p0 = 0; p0 < hw; p0 += kTile) {
        const std::int64_t p1 = p0 + kTile < hw ? p0 + kTile : hw;
        for (std::int64_t ch = c0; ch < c1; ++ch) {
          for (std::int64_t p = p0; p < p1; ++p) dst[ch * hw + p] = src[p * c + ch];
        }
      }
    }
  }
}

}  // namespace glassbox::backends::xnnpack

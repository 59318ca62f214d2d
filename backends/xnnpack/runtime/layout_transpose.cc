#include "backends/xnnpack/runtime/layout_transpose.h"

namespace glassbox::backends::xnnpack {
namespace {
// Tiles keep both the strided reads and the strided writes in cache.
constexpr std::int64_t kTile = 32;
}  // namespace

// A model's input image (3 channels): the tiled loop below would run a
// 3-long inner loop per pixel (1.9 GB/s for a 224x224 image, 3.7% of
// mobilenet_v3_small on XNNPACK); one pass over the pixels writing each
// pixel's channels together is several times faster.
template <std::int64_t C, typename T>
void few_channels_to_nhwc(const T* src, T* dst, std::int64_t hw) {
  for (std::int64_t p = 0; p < hw; ++p) {
    for (std::int64_t ch = 0; ch < C; ++ch) dst[p * C + ch] = src[ch * hw + p];
  }
}

namespace {

template <typename T>
void nchw_to_nhwc_of(const T* in, T* out, std::int64_t n, std::int64_t c, std::int64_t hw) {
  for (std::int64_t b = 0; b < n; ++b) {
    const T* src = in + b * c * hw;
    T* dst = out + b * c * hw;
    switch (c) {
      case 1: few_channels_to_nhwc<1, T>(src, dst, hw); continue;
      case 2: few_channels_to_nhwc<2, T>(src, dst, hw); continue;
      case 3: few_channels_to_nhwc<3, T>(src, dst, hw); continue;
      case 4: few_channels_to_nhwc<4, T>(src, dst, hw); continue;
      default: break;
    }
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

template <typename T>
void nhwc_to_nchw_of(const T* in, T* out, std::int64_t n, std::int64_t c, std::int64_t hw,
                     std::int64_t pixel_stride) {
  const std::int64_t stride = pixel_stride != 0 ? pixel_stride : c;
  for (std::int64_t b = 0; b < n; ++b) {
    const T* src = in + b * stride * hw;
    T* dst = out + b * c * hw;
    for (std::int64_t c0 = 0; c0 < c; c0 += kTile) {
      const std::int64_t c1 = c0 + kTile < c ? c0 + kTile : c;
      for (std::int64_t p0 = 0; p0 < hw; p0 += kTile) {
        const std::int64_t p1 = p0 + kTile < hw ? p0 + kTile : hw;
        for (std::int64_t ch = c0; ch < c1; ++ch) {
          for (std::int64_t p = p0; p < p1; ++p) dst[ch * hw + p] = src[p * stride + ch];
        }
      }
    }
  }
}

}  // namespace

void nchw_to_nhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw) {
  nchw_to_nhwc_of(in, out, n, c, hw);
}
void nchw_to_nhwc(const std::int8_t* in, std::int8_t* out, std::int64_t n, std::int64_t c,
                  std::int64_t hw) {
  nchw_to_nhwc_of(in, out, n, c, hw);
}
void nhwc_to_nchw(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw,
                  std::int64_t pixel_stride) {
  nhwc_to_nchw_of(in, out, n, c, hw, pixel_stride);
}
void nhwc_to_nchw(const std::int8_t* in, std::int8_t* out, std::int64_t n, std::int64_t c,
                  std::int64_t hw) {
  nhwc_to_nchw_of(in, out, n, c, hw, 0);
}

}  // namespace glassbox::backends::xnnpack

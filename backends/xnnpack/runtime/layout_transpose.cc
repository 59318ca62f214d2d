#include "backends/xnnpack/runtime/layout_transpose.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

#if defined(__SSE2__)
// An image's three float planes, four pixels per step: six shuffles turn
// the planes' four values each into the pixels' twelve interleaved ones.
// The scalar loop above (GCC does not vectorize it at -O2) took 48 us of
// squeezenet1_1's 5 ms on XNNPACK for the 224x224 input, this 22 us
// (issue 33; SSE2 is every x86-64's baseline).
template <>
void few_channels_to_nhwc<3, float>(const float* src, float* dst, std::int64_t hw) {
  const float* r = src;
  const float* g = src + hw;
  const float* b = src + 2 * hw;
  std::int64_t p = 0;
  for (; p + 4 <= hw; p += 4) {
    const __m128 vr = _mm_loadu_ps(r + p), vg = _mm_loadu_ps(g + p), vb = _mm_loadu_ps(b + p);
    const __m128 rg_lo = _mm_unpacklo_ps(vr, vg);  // r0 g0 r1 g1
    const __m128 rg_hi = _mm_unpackhi_ps(vr, vg);  // r2 g2 r3 g3
    const __m128 br_lo = _mm_unpacklo_ps(vb, vr);  // b0 r0 b1 r1
    const __m128 br_hi = _mm_unpackhi_ps(vb, vr);  // b2 r2 b3 r3
    const __m128 gb_lo = _mm_unpacklo_ps(vg, vb);  // g0 b0 g1 b1
    const __m128 gb_hi = _mm_unpackhi_ps(vg, vb);  // g2 b2 g3 b3
    float* out = dst + p * 3;
    _mm_storeu_ps(out, _mm_shuffle_ps(rg_lo, br_lo, _MM_SHUFFLE(3, 0, 1, 0)));      // r0 g0 b0 r1
    _mm_storeu_ps(out + 4, _mm_shuffle_ps(gb_lo, rg_hi, _MM_SHUFFLE(1, 0, 3, 2)));  // g1 b1 r2 g2
    _mm_storeu_ps(out + 8, _mm_shuffle_ps(br_hi, gb_hi, _MM_SHUFFLE(3, 2, 3, 0)));  // b2 r3 g3 b3
  }
  for (; p < hw; ++p) {
    dst[p * 3] = r[p];
    dst[p * 3 + 1] = g[p];
    dst[p * 3 + 2] = b[p];
  }
}
#endif

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

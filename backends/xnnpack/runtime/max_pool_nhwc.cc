#include "backends/xnnpack/runtime/max_pool_nhwc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GLASSBOX_MAX_POOL_AVX512 1
#endif

namespace glassbox::backends::xnnpack {

#if defined(GLASSBOX_MAX_POOL_AVX512)

bool max_pool_nhwc_takes(const std::uint32_t* p) {
  return __builtin_cpu_supports("avx512f") && p[0] == 0 && p[1] == 0 && p[2] == 0 && p[3] == 0 &&
         p[8] == 1 && p[9] == 1;
}

namespace {

// The mask of the 16 channels from `c0` on that exist (none past c).
inline __mmask16 channel_mask(std::int64_t c0, std::int64_t c) {
  const std::int64_t left = c - c0;
  if (left >= 16) return 0xFFFF;
  return left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
}

// One output pixel whose window starts at `window`: 64 channels per step,
// four maxima in flight (one chain would wait on each max's latency).
// maskz_ forms and vector + scalar broadcasts throughout: GCC 12's plain
// _mm512_max_ps and _mm512_set1_ps pass an "undefined" vector that
// -Wuninitialized flags.
__attribute__((target("avx512f"))) void pool_pixel(const float* window, float* out,
                                                   const MaxPoolShape& s) {
  const __mmask16 all = 0xFFFF;
  const __m512 lo = _mm512_setzero_ps() + s.output_min;
  const __m512 hi = _mm512_setzero_ps() + s.output_max;
  const std::int64_t row_step = s.w * s.c;
  for (std::int64_t c0 = 0; c0 < s.c; c0 += 64) {
    const __mmask16 m0 = channel_mask(c0, s.c), m1 = channel_mask(c0 + 16, s.c);
    const __mmask16 m2 = channel_mask(c0 + 32, s.c), m3 = channel_mask(c0 + 48, s.c);
    __m512 a0 = _mm512_setzero_ps() - __builtin_inff(), a1 = a0, a2 = a0, a3 = a0;
    const float* row = window + c0;
    for (std::int64_t ky = 0; ky < s.pool_h; ++ky, row += row_step) {
      const float* px = row;
      for (std::int64_t kx = 0; kx < s.pool_w; ++kx, px += s.c) {
        a0 = _mm512_maskz_max_ps(all, a0, _mm512_maskz_loadu_ps(m0, px));
        a1 = _mm512_maskz_max_ps(all, a1, _mm512_maskz_loadu_ps(m1, px + 16));
        a2 = _mm512_maskz_max_ps(all, a2, _mm512_maskz_loadu_ps(m2, px + 32));
        a3 = _mm512_maskz_max_ps(all, a3, _mm512_maskz_loadu_ps(m3, px + 48));
      }
    }
    float* dst = out + c0;
    const __m512 y0 = _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, a0, lo), hi);
    const __m512 y1 = _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, a1, lo), hi);
    const __m512 y2 = _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, a2, lo), hi);
    const __m512 y3 = _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, a3, lo), hi);
    // Whole steps store unmasked: a masked store to a line not in cache
    // is slow on Zen 5 (conv_igemm.cc measured it).
    if ((m0 & m1 & m2 & m3) == all) {
      _mm512_storeu_ps(dst, y0);
      _mm512_storeu_ps(dst + 16, y1);
      _mm512_storeu_ps(dst + 32, y2);
      _mm512_storeu_ps(dst + 48, y3);
      continue;
    }
    _mm512_mask_storeu_ps(dst, m0, y0);
    _mm512_mask_storeu_ps(dst + 16, m1, y1);
    _mm512_mask_storeu_ps(dst + 32, m2, y2);
    _mm512_mask_storeu_ps(dst + 48, m3, y3);
  }
}

}  // namespace

void max_pool_nhwc(const float* in, float* out, const MaxPoolShape& s, std::int64_t first_row,
                   std::int64_t end_row) {
  for (std::int64_t row = first_row; row < end_row; ++row) {
    const std::int64_t b = row / s.out_h, oy = row % s.out_h;
    const float* image_row = in + ((b * s.h + oy * s.stride_h) * s.w) * s.c;
    float* dst = out + row * s.out_w * s.c;
    for (std::int64_t ox = 0; ox < s.out_w; ++ox) {
      pool_pixel(image_row + ox * s.stride_w * s.c, dst + ox * s.c, s);
    }
  }
}

#else

bool max_pool_nhwc_takes(const std::uint32_t*) { return false; }

void max_pool_nhwc(const float*, float*, const MaxPoolShape&, std::int64_t, std::int64_t) {}

#endif

}  // namespace glassbox::backends::xnnpack

#include "backends/xnnpack/runtime/dwconv_nhwc.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GLASSBOX_DWCONV_AVX512 1
#endif

namespace glassbox::backends::xnnpack {
namespace {

std::size_t padded_channels(const DwConvGeometry& g) { return (g.channels + 15) / 16 * 16; }

}  // namespace

std::size_t dwconv_nhwc_packed_floats(const DwConvGeometry& g) {
  return padded_channels(g) * (1 + g.kernel_h * g.kernel_w);
}

void dwconv_nhwc_pack(const DwConvGeometry& g, const float* kernel, const float* bias,
                      float* packed) {
  const std::size_t cp = padded_channels(g), taps = g.kernel_h * g.kernel_w;
  std::memset(packed, 0, dwconv_nhwc_packed_floats(g) * sizeof(float));
  std::copy(bias, bias + g.channels, packed);
  for (std::size_t t = 0; t < taps; ++t) {
    for (std::size_t c = 0; c < g.channels; ++c) packed[cp * (1 + t) + c] = kernel[c * taps + t];
  }
}

#if defined(GLASSBOX_DWCONV_AVX512)

bool dwconv_nhwc_available() { return __builtin_cpu_supports("avx512f"); }

namespace {

__mmask16 lanes(std::size_t c0, std::size_t channels) {
  const std::size_t left = channels > c0 ? channels - c0 : 0;
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

// The taps [lo, hi) of a kernel dimension whose window starts at `start`
// (negative in the padding) that fall inside [0, size).
void valid_taps(long start, std::size_t dilation, std::size_t kernel, std::size_t size,
                std::size_t* lo, std::size_t* hi) {
  std::size_t k = 0;
  while (k < kernel && start + static_cast<long>(k * dilation) < 0) ++k;
  *lo = k;
  std::size_t end = kernel;
  while (end > k && start + static_cast<long>((end - 1) * dilation) >= static_cast<long>(size)) {
    --end;
  }
  *hi = end;
}

// Loads channels [c, c + 16) of `p`: unmasked where all exist (a masked
// load or store of a line not in cache is slow on Zen 5: this kernel took
// 1.3-2x XNNPACK's time with masked loads throughout).
template <bool kMasked>
__attribute__((target("avx512f"))) inline __m512 load(const float* p, __mmask16 m) {
  if constexpr (kMasked) return _mm512_maskz_loadu_ps(m, p);
  return _mm512_loadu_ps(p);
}

template <bool kMasked>
__attribute__((target("avx512f"))) inline void store(float* out, __mmask16 m, __m512 v, __m512 lo,
                                                     __m512 hi) {
  const __mmask16 all = 0xFFFF;
  const __m512 y = _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, v, lo), hi);
  if constexpr (kMasked) {
    _mm512_mask_storeu_ps(out, m, y);
  } else {
    _mm512_storeu_ps(out, y);
  }
}

// P output pixels of one row (P = 4: windows inside the image's width, so
// every tap is read; P = 1: the taps [kx_lo, kx_hi) x [ky_lo, ky_hi) that
// fall inside it) over channels [c0, c0 + 16 V): each weight vector is
// loaded once for the P pixels, P x V accumulator chains.
template <int P, int V, bool kMasked>
__attribute__((target("avx512f"))) void pixels(const DwConvGeometry& g, const float* packed,
                                               const float* first_tap, float* out, std::size_t c0,
                                               std::size_t ky_lo, std::size_t ky_hi,
                                               std::size_t kx_lo, std::size_t kx_hi, __m512 lo,
                                               __m512 hi) {
  const std::size_t cp = padded_channels(g);
  const std::size_t row_step = g.dilation_h * g.in_w * g.channels;
  const std::size_t col_step = g.dilation_w * g.channels;
  const std::size_t pixel_step = g.stride_w * g.channels;
  __mmask16 m[V];
  __m512 acc[P][V];
#pragma GCC unroll 4
  for (int j = 0; j < V; ++j) {
    m[j] = lanes(c0 + 16 * j, g.channels);
    const __m512 bias = _mm512_loadu_ps(packed + c0 + 16 * j);
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) acc[p][j] = bias;
  }
  for (std::size_t ky = ky_lo; ky < ky_hi; ++ky) {
    const float* src = first_tap + (ky - ky_lo) * row_step + c0;
    const float* w = packed + cp * (1 + ky * g.kernel_w + kx_lo) + c0;
    for (std::size_t kx = kx_lo; kx < kx_hi; ++kx, src += col_step, w += cp) {
#pragma GCC unroll 4
      for (int j = 0; j < V; ++j) {
        const __m512 wj = _mm512_loadu_ps(w + 16 * j);  // padded to 16: always whole
#pragma GCC unroll 4
        for (int p = 0; p < P; ++p) {
          acc[p][j] =
              _mm512_fmadd_ps(load<kMasked>(src + p * pixel_step + 16 * j, m[j]), wj, acc[p][j]);
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int p = 0; p < P; ++p) {
#pragma GCC unroll 4
    for (int j = 0; j < V; ++j) {
      store<kMasked>(out + p * g.out_pixel_stride + c0 + 16 * j, m[j], acc[p][j], lo, hi);
    }
  }
}

// Every channel of P pixels: blocks of V whole vectors, then the vectors
// left one at a time, the last masked if the channels end inside it.
template <int P, int V>
__attribute__((target("avx512f"))) void all_channels(const DwConvGeometry& g, const float* packed,
                                                     const float* first_tap, float* out,
                                                     std::size_t ky_lo, std::size_t ky_hi,
                                                     std::size_t kx_lo, std::size_t kx_hi,
                                                     __m512 lo, __m512 hi) {
  const std::size_t whole = g.channels / 16 * 16;
  std::size_t c0 = 0;
  for (; c0 + 16 * V <= whole; c0 += 16 * V) {
    pixels<P, V, false>(g, packed, first_tap, out, c0, ky_lo, ky_hi, kx_lo, kx_hi, lo, hi);
  }
  for (; c0 < whole; c0 += 16) {
    pixels<P, 1, false>(g, packed, first_tap, out, c0, ky_lo, ky_hi, kx_lo, kx_hi, lo, hi);
  }
  if (c0 < g.channels) {
    pixels<P, 1, true>(g, packed, first_tap, out, c0, ky_lo, ky_hi, kx_lo, kx_hi, lo, hi);
  }
}

// Output rows [first_row, end_row), blocks of V channel vectors.
template <int V>
__attribute__((target("avx512f"))) void rows(const DwConvGeometry& g, const float* packed,
                                             const float* input, float* output,
                                             std::size_t first_row, std::size_t end_row) {
  const __m512 lo = _mm512_setzero_ps() + g.output_min;
  const __m512 hi = _mm512_setzero_ps() + g.output_max;
  for (std::size_t row = first_row; row < end_row; ++row) {
    const std::size_t n = row / g.out_h, oy = row % g.out_h;
    const long iy0 = static_cast<long>(oy * g.stride_h) - static_cast<long>(g.pad_top);
    std::size_t ky_lo = 0, ky_hi = 0;
    valid_taps(iy0, g.dilation_h, g.kernel_h, g.in_h, &ky_lo, &ky_hi);
    const std::size_t iy_first =
        static_cast<std::size_t>(iy0 + static_cast<long>(ky_lo * g.dilation_h));
    float* out = output + row * g.out_w * g.out_pixel_stride;
    // Four pixels at a time where their windows lie inside the image's
    // width, else one, reading only the taps inside the image (the window's
    // first such tap is `first_tap`; a window wholly in the padding reads
    // nothing).
    for (std::size_t ox = 0; ox < g.out_w;) {
      const long last_ix =
          static_cast<long>((ox + 3) * g.stride_w + (g.kernel_w - 1) * g.dilation_w) -
          static_cast<long>(g.pad_left);
      if (ox + 4 <= g.out_w &&
          static_cast<long>(ox * g.stride_w) >= static_cast<long>(g.pad_left) &&
          last_ix < static_cast<long>(g.in_w) && ky_lo < ky_hi) {
        const std::size_t ix = ox * g.stride_w - g.pad_left;
        all_channels<4, V>(g, packed, input + ((n * g.in_h + iy_first) * g.in_w + ix) * g.channels,
                           out, ky_lo, ky_hi, 0, g.kernel_w, lo, hi);
        ox += 4;
        out += 4 * g.out_pixel_stride;
        continue;
      }
      const long ix0 = static_cast<long>(ox * g.stride_w) - static_cast<long>(g.pad_left);
      std::size_t kx_lo = 0, kx_hi = 0;
      valid_taps(ix0, g.dilation_w, g.kernel_w, g.in_w, &kx_lo, &kx_hi);
      const float* first_tap = input;
      if (ky_lo < ky_hi && kx_lo < kx_hi) {
        const auto ix_first =
            static_cast<std::size_t>(ix0 + static_cast<long>(kx_lo * g.dilation_w));
        first_tap += ((n * g.in_h + iy_first) * g.in_w + ix_first) * g.channels;
      }
      all_channels<1, V>(g, packed, first_tap, out, ky_lo, ky_hi, kx_lo, kx_hi, lo, hi);
      ++ox;
      out += g.out_pixel_stride;
    }
  }
}

}  // namespace

void dwconv_nhwc_run(const DwConvGeometry& g, const float* packed, const float* input,
                     float* output, std::size_t first_row, std::size_t end_row) {
  // Vectors a block: four, or three / two where that divides the whole
  // vectors and four does not (144 channels: three blocks of three, not
  // two of four and one left).
  const std::size_t vectors = g.channels / 16;
  if (vectors % 4 == 0 || vectors > 12) {
    rows<4>(g, packed, input, output, first_row, end_row);
  } else if (vectors % 3 == 0) {
    rows<3>(g, packed, input, output, first_row, end_row);
  } else {
    rows<2>(g, packed, input, output, first_row, end_row);
  }
}

#else

bool dwconv_nhwc_available() { return false; }
void dwconv_nhwc_run(const DwConvGeometry&, const float*, const float*, float*, std::size_t,
                     std::size_t) {}

#endif

}  // namespace glassbox::backends::xnnpack

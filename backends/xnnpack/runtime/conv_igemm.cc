#include "backends/xnnpack/runtime/conv_igemm.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GLASSBOX_CONV_IGEMM_AVX512 1
#endif

namespace glassbox::backends::xnnpack {
namespace {

std::size_t pixels(const ConvGeometry& g) { return g.batch * g.out_h * g.out_w; }
std::size_t taps(const ConvGeometry& g) { return g.kernel_h * g.kernel_w; }
// Output channels a block: 32 (two vectors), or 16 where that is all
// there are (a second vector would compute nothing).
std::size_t block_width(const ConvGeometry& g) {
  return g.out_c <= kConvIgemmBlock / 2 ? kConvIgemmBlock / 2 : kConvIgemmBlock;
}
std::size_t blocks(const ConvGeometry& g) {
  return (g.out_c + block_width(g) - 1) / block_width(g);
}
std::size_t block_floats(const ConvGeometry& g) { return block_width(g) * (1 + taps(g) * g.in_c); }

// Parts of a run on several threads split the tiles when each gets at
// least this many (more rows of the output), else the channel blocks.
constexpr std::size_t kTilesPerPart = 4;

// The pixels are split into tiles of near-equal sizes (169 pixels: 11 and
// 12, not fourteen 12s and a 1), so every tile keeps most accumulators busy.
struct Tiles {
  std::size_t count, base, extra;  // the first `extra` tiles have base + 1 pixels
  std::size_t first(std::size_t i) const { return i * base + std::min(i, extra); }
  std::size_t size(std::size_t i) const { return base + (i < extra ? 1 : 0); }
};

Tiles tiles_of(const ConvGeometry& g) {
  const std::size_t m = pixels(g);
  const std::size_t count = (m + kConvIgemmTile - 1) / kConvIgemmTile;
  return Tiles{count, count == 0 ? 0 : m / count, count == 0 ? 0 : m % count};
}

}  // namespace

bool conv_igemm_is_gemm(const ConvGeometry& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
         g.pad_top == 0 && g.pad_left == 0 && g.in_h == g.out_h && g.in_w == g.out_w;
}

bool conv_igemm_takes(const ConvGeometry& g) {
  return conv_igemm_available() && (taps(g) > 1 || g.in_c >= 16);
}

std::size_t conv_igemm_packed_floats(const ConvGeometry& g) { return blocks(g) * block_floats(g); }

std::size_t conv_igemm_tile_count(const ConvGeometry& g) { return tiles_of(g).count; }

std::size_t conv_igemm_block_count(const ConvGeometry& g) { return blocks(g); }

ConvIgemmPart conv_igemm_part(const ConvGeometry& g, std::size_t part, std::size_t parts) {
  const std::size_t tiles = tiles_of(g).count;
  if (tiles >= kTilesPerPart * parts) {
    return ConvIgemmPart{tiles * part / parts, tiles * (part + 1) / parts, 0, blocks(g)};
  }
  return ConvIgemmPart{0, tiles, blocks(g) * part / parts, blocks(g) * (part + 1) / parts};
}

std::size_t conv_igemm_indirection_size(const ConvGeometry& g) {
  if (conv_igemm_is_gemm(g)) return 0;
  return tiles_of(g).count * taps(g) * kConvIgemmTile;
}

void conv_igemm_pack(const ConvGeometry& g, const float* kernel, const float* bias, float* packed) {
  const std::size_t per_channel = taps(g) * g.in_c;  // one output channel's weights
  for (std::size_t b = 0; b < blocks(g); ++b) {
    float* w = packed + b * block_floats(g);
    const std::size_t width = block_width(g);
    const std::size_t first = b * width;
    const std::size_t n = std::min(width, g.out_c - first);
    std::memset(w, 0, block_floats(g) * sizeof(float));
    for (std::size_t j = 0; j < n; ++j) w[j] = bias[first + j];
    w += width;
    // Per tap and input channel, the block's weights side by side.
    for (std::size_t tk = 0; tk < per_channel; ++tk, w += width) {
      for (std::size_t j = 0; j < n; ++j) w[j] = kernel[(first + j) * per_channel + tk];
    }
  }
}

void conv_igemm_indirect(const ConvGeometry& g, const float* input, const float* zeros,
                         const float** indirection) {
  const Tiles t = tiles_of(g);
  for (std::size_t i = 0; i < t.count; ++i) {
    const float** tile = indirection + i * taps(g) * kConvIgemmTile;
    for (std::size_t r = 0; r < kConvIgemmTile; ++r) {
      // Rows past the tile's size read its last pixel (never stored).
      const std::size_t p = t.first(i) + std::min(r, t.size(i) - 1);
      const std::size_t n = p / (g.out_h * g.out_w);
      const std::size_t oy = p / g.out_w % g.out_h, ox = p % g.out_w;
      for (std::size_t ky = 0; ky < g.kernel_h; ++ky) {
        for (std::size_t kx = 0; kx < g.kernel_w; ++kx) {
          // Unsigned arithmetic: a tap in the top or left padding wraps
          // past in_h / in_w and is caught by the same comparison.
          const std::size_t iy = oy * g.stride_h + ky * g.dilation_h - g.pad_top;
          const std::size_t ix = ox * g.stride_w + kx * g.dilation_w - g.pad_left;
          const bool inside = iy < g.in_h && ix < g.in_w;
          tile[(ky * g.kernel_w + kx) * kConvIgemmTile + r] =
              inside ? input + ((n * g.in_h + iy) * g.in_w + ix) * g.in_c : zeros;
        }
      }
    }
  }
}

#if defined(GLASSBOX_CONV_IGEMM_AVX512)

bool conv_igemm_available() { return __builtin_cpu_supports("avx512f"); }

namespace {

// One tile of MR pixels by one block of 16 x NV output channels: every
// accumulator in a register, each step of k NV weight loads and MR
// broadcast FMAs per vector. `a` holds MR pointers per tap (kConvIgemmTile
// apart); `m0`/`m1` mask the block's channels past out_c. The broadcasts
// are maskz_ forms: GCC 12's plain ones pass an "undefined" vector that
// -Wuninitialized flags.
template <int MR, int NV>
__attribute__((target("avx512f"))) void tile_kernel(std::size_t tap_count, std::size_t in_c,
                                                    const float* const* a, const float* w, float* c,
                                                    std::size_t c_stride, __mmask16 m0,
                                                    __mmask16 m1, __m512 lo, __m512 hi) {
  static_assert(NV == 1 || NV == 2);
  constexpr std::size_t kWidth = 16 * NV;
  const __mmask16 all = 0xFFFF;
  __m512 acc[NV][MR];
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    const __m512 bias = _mm512_load_ps(w + 16 * v);
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) acc[v][r] = bias;
  }
  w += kWidth;
  for (std::size_t t = 0; t < tap_count; ++t, a += kConvIgemmTile) {
    const float* ap[MR];
#pragma GCC unroll 12
    for (int r = 0; r < MR; ++r) ap[r] = a[r];
    for (std::size_t k = 0; k < in_c; ++k, w += kWidth) {
      __m512 b[NV];
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) b[v] = _mm512_load_ps(w + 16 * v);
#pragma GCC unroll 12
      for (int r = 0; r < MR; ++r) {
        const __m512 x = _mm512_maskz_broadcastss_ps(all, _mm_load_ss(ap[r] + k));
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v) acc[v][r] = _mm512_fmadd_ps(x, b[v], acc[v][r]);
      }
    }
  }
  const __mmask16 masks[2] = {m0, m1};
  // Whole vectors store unmasked: a masked store to a line not in cache
  // was slow on Zen 5 (a 1x1 convolution writing 4.8 MB took 546 us with
  // masked stores, 276 without, XNNPACK 428).
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    if (masks[v] == all) {
#pragma GCC unroll 12
      for (int r = 0; r < MR; ++r) {
        _mm512_storeu_ps(c + r * c_stride + 16 * v,
                         _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, acc[v][r], lo), hi));
      }
    } else {
#pragma GCC unroll 12
      for (int r = 0; r < MR; ++r) {
        _mm512_mask_storeu_ps(
            c + r * c_stride + 16 * v, masks[v],
            _mm512_maskz_min_ps(all, _mm512_maskz_max_ps(all, acc[v][r], lo), hi));
      }
    }
  }
}

using TileKernel = void (*)(std::size_t, std::size_t, const float* const*, const float*, float*,
                            std::size_t, __mmask16, __mmask16, __m512, __m512);

// Tiles hold 12 pixels but the last ones of a balanced split may hold
// fewer; each size has its kernel so no accumulator is spent on nothing.
template <int NV, int... MR>
constexpr TileKernel kTileKernels[] = {tile_kernel<MR, NV>...};
constexpr const TileKernel* kKernelsByRows[2] = {
    kTileKernels<1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12>,
    kTileKernels<2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12>};

// Weights of the output-channel blocks one pass over the pixels meets
// (L2 is 1 MB or more on the CPUs with AVX-512; the size barely mattered
// between 64 KB and 1 MB, blocks one by one lost where inputs are large).
constexpr std::size_t kGroupBytes = 256 * 1024;

__mmask16 lanes(std::size_t count) {
  return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
}

}  // namespace

__attribute__((target("avx512f"))) void conv_igemm_run(const ConvIgemm& conv, ConvIgemmPart part) {
  const ConvGeometry& g = conv.geometry;
  const Tiles t = tiles_of(g);
  const std::size_t tap_count = taps(g);
  const __m512 lo = _mm512_setzero_ps() + g.output_min;
  const __m512 hi = _mm512_setzero_ps() + g.output_max;
  const std::size_t group =
      std::max<std::size_t>(1, kGroupBytes / (block_floats(g) * sizeof(float)));
  const std::size_t end_block = std::min(part.end_block, blocks(g));
  const std::size_t end_tile = std::min(part.end_tile, t.count);
  const float* gemm_rows[kConvIgemmTile];
  const std::size_t width = block_width(g);
  const TileKernel* kernels_by_rows = kKernelsByRows[width / 16 - 1];
  // Blocks of output channels in groups whose weights stay in L2; within a
  // group every tile of pixels meets each block in turn, so its inputs are
  // read from L1 and its outputs written whole.
  for (std::size_t b0 = part.first_block; b0 < end_block; b0 += group) {
    const std::size_t b_end = std::min(end_block, b0 + group);
    for (std::size_t i = part.first_tile; i < end_tile; ++i) {
      const std::size_t rows = t.size(i);
      const float* const* a = gemm_rows;
      if (conv.indirection != nullptr) {
        a = conv.indirection + i * tap_count * kConvIgemmTile;
      } else {  // a GEMM: the tile's pixels in order
        for (std::size_t r = 0; r < rows; ++r)
          gemm_rows[r] = conv.input + (t.first(i) + r) * g.in_c;
      }
      float* c = conv.output + t.first(i) * g.out_pixel_stride;
      for (std::size_t b = b0; b < b_end; ++b) {
        const std::size_t first_channel = b * width;
        const std::size_t n = std::min(width, g.out_c - first_channel);
        kernels_by_rows[rows - 1](tap_count, g.in_c, a, conv.packed + b * block_floats(g),
                                  c + first_channel, g.out_pixel_stride, lanes(n),
                                  lanes(n > 16 ? n - 16 : 0), lo, hi);
      }
    }
  }
}

#else

bool conv_igemm_available() { return false; }
void conv_igemm_run(const ConvIgemm&, ConvIgemmPart) {}

#endif

}  // namespace glassbox::backends::xnnpack

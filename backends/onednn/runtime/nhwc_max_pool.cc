#include "backends/onednn/runtime/nhwc_max_pool.h"

#include <algorithm>

#include "backends/onednn/runtime/thread_ranges.h"
#include "src/runtime/kernels/vector_clones.h"

// The channel loops are vectorised by the compiler: one clone for
// AVX-512, one for AVX2, one baseline (see vector_clones.h).
#ifdef GLASSBOX_NO_VECTOR_CLONES
#define GLASSBOX_POOL_CLONES
#else
#define GLASSBOX_POOL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

namespace glassbox::backends::onednn {
namespace {

// Channels kept in registers while a window is reduced.
constexpr std::int64_t kBlock = 64;

GLASSBOX_POOL_CLONES
void pool_rows(const NhwcMaxPool& p, const float* __restrict x, float* __restrict y,
               std::int64_t first_row, std::int64_t end_row) {
  for (std::int64_t row = first_row; row < end_row; ++row) {
    const std::int64_t n = row / p.oh;
    const std::int64_t oh = row % p.oh;
    const std::int64_t h0 = oh * p.stride_h - p.pad_top;
    const std::int64_t hs = std::max<std::int64_t>(h0, 0);
    const std::int64_t he = std::min(h0 + p.kernel_h, p.h);
    const float* image = x + n * p.h * p.w * p.c;
    for (std::int64_t ow = 0; ow < p.ow; ++ow) {
      const std::int64_t w0 = ow * p.stride_w - p.pad_left;
      const std::int64_t ws = std::max<std::int64_t>(w0, 0);
      const std::int64_t we = std::min(w0 + p.kernel_w, p.w);
      float* out = y + ((n * p.oh + oh) * p.ow + ow) * p.c;
      const float* first = image + (hs * p.w + ws) * p.c;
      std::int64_t c0 = 0;
      for (; c0 + kBlock <= p.c; c0 += kBlock) {
        float acc[kBlock];
        for (std::int64_t k = 0; k < kBlock; ++k) acc[k] = first[c0 + k];
        for (std::int64_t h = hs; h < he; ++h) {
          for (std::int64_t w = ws; w < we; ++w) {
            const float* in = image + (h * p.w + w) * p.c + c0;
            for (std::int64_t k = 0; k < kBlock; ++k) acc[k] = in[k] > acc[k] ? in[k] : acc[k];
          }
        }
        for (std::int64_t k = 0; k < kBlock; ++k) out[c0 + k] = acc[k];
      }
      if (c0 == p.c) continue;
      for (std::int64_t c = c0; c < p.c; ++c) out[c] = first[c];
      for (std::int64_t h = hs; h < he; ++h) {
        for (std::int64_t w = ws; w < we; ++w) {
          const float* in = image + (h * p.w + w) * p.c;
          for (std::int64_t c = c0; c < p.c; ++c) out[c] = in[c] > out[c] ? in[c] : out[c];
        }
      }
    }
  }
}

}  // namespace

bool NhwcMaxPool::valid() const {
  if (n < 1 || h < 1 || w < 1 || c < 1 || oh < 1 || ow < 1 || kernel_h < 1 || kernel_w < 1 ||
      stride_h < 1 || stride_w < 1 || pad_top < 0 || pad_left < 0) {
    return false;
  }
  // The first window starts inside or before the input and reaches into
  // it; the last one starts inside it.
  return pad_top < kernel_h && pad_left < kernel_w && (oh - 1) * stride_h - pad_top < h &&
         (ow - 1) * stride_w - pad_left < w;
}

void nhwc_max_pool(const NhwcMaxPool& p, const float* x, float* y) {
  const std::int64_t rows = p.n * p.oh;
  for_each_thread_range(
      rows, [&](std::int64_t first, std::int64_t end) { pool_rows(p, x, y, first, end); });
}

}  // namespace glassbox::backends::onednn

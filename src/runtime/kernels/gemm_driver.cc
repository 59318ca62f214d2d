#include "src/runtime/kernels/gemm_driver.h"

#include <algorithm>

namespace glassbox::runtime::kernels::internal {
namespace {

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

// Rows [i0, i0+mc) x columns [k0, k0+kc) of A as kMr-high panels laid out
// k-major (kMr consecutive floats per k), zero-padding the last panel.
void pack_a(const StridedMatrix& a, std::int64_t i0, std::int64_t mc, std::int64_t k0,
            std::int64_t kc, float* __restrict dst) {
  for (std::int64_t ip = 0; ip < mc; ip += kMr) {
    const std::int64_t rows = std::min(kMr, mc - ip);
    for (std::int64_t p = 0; p < kc; ++p) {
      const float* src = a.data + (i0 + ip) * a.row_stride + (k0 + p) * a.col_stride;
      std::int64_t i = 0;
      for (; i < rows; ++i) dst[i] = src[i * a.row_stride];
      for (; i < kMr; ++i) dst[i] = 0.0f;
      dst += kMr;
    }
  }
}

// The register tile: c[0..mr) x [0..nr) += a_panel * b_panel over kc.
// Accumulating into a fixed-size local array lets g++ keep it in vector
// registers and unroll the i/j loops completely; the partial-tile store is
// kept out of the hot loop.
void micro_kernel(std::int64_t kc, const float* __restrict a, const float* __restrict b,
                  float* __restrict c, std::int64_t ldc, std::int64_t mr, std::int64_t nr) {
  float acc[kMr][kNr] = {};
  for (std::int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 6
    for (std::int64_t i = 0; i < kMr; ++i) {
      const float ai = a[i];
#pragma GCC unroll 16
      for (std::int64_t j = 0; j < kNr; ++j) acc[i][j] += ai * b[j];
    }
    a += kMr;
    b += kNr;
  }
  if (mr == kMr && nr == kNr) {
    for (std::int64_t i = 0; i < kMr; ++i)
      for (std::int64_t j = 0; j < kNr; ++j) c[i * ldc + j] += acc[i][j];
  } else {
    for (std::int64_t i = 0; i < mr; ++i)
      for (std::int64_t j = 0; j < nr; ++j) c[i * ldc + j] += acc[i][j];
  }
}

}  // namespace

void pack_b_strided(const void* ctx, std::int64_t k0, std::int64_t kc, std::int64_t n0,
                    std::int64_t nc, float* dst) {
  const auto& b = *static_cast<const StridedMatrix*>(ctx);
  for (std::int64_t jp = 0; jp < nc; jp += kNr) {
    const std::int64_t cols = std::min(kNr, nc - jp);
    for (std::int64_t p = 0; p < kc; ++p) {
      const float* src = b.data + (k0 + p) * b.row_stride + (n0 + jp) * b.col_stride;
      std::int64_t j = 0;
      if (b.col_stride == 1) {
        for (; j < cols; ++j) dst[j] = src[j];
      } else {
        for (; j < cols; ++j) dst[j] = src[j * b.col_stride];
      }
      for (; j < kNr; ++j) dst[j] = 0.0f;
      dst += kNr;
    }
  }
}

std::size_t gemm_scratch_floats(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0) return 0;
  const std::int64_t kc = std::min(kKc, k);
  const std::int64_t a_floats = round_up(std::min(kMc, m), kMr) * kc;
  const std::int64_t b_floats = round_up(std::min(kNc, n), kNr) * kc;
  return static_cast<std::size_t>(a_floats + b_floats);
}

void gemm_accumulate(const GemmProblem& p, float* scratch) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return;
  const std::int64_t kc_max = std::min(kKc, p.k);
  float* packed_a = scratch;
  float* packed_b = scratch + round_up(std::min(kMc, p.m), kMr) * kc_max;
  for (std::int64_t jc = 0; jc < p.n; jc += kNc) {
    const std::int64_t nc = std::min(kNc, p.n - jc);
    for (std::int64_t pc = 0; pc < p.k; pc += kKc) {
      const std::int64_t kc = std::min(kKc, p.k - pc);
      p.b.pack(p.b.ctx, pc, kc, jc, nc, packed_b);
      for (std::int64_t ic = 0; ic < p.m; ic += kMc) {
        const std::int64_t mc = std::min(kMc, p.m - ic);
        pack_a(p.a, ic, mc, pc, kc, packed_a);
        for (std::int64_t jr = 0; jr < nc; jr += kNr) {
          const float* b_panel = packed_b + jr * kc;
          for (std::int64_t ir = 0; ir < mc; ir += kMr) {
            micro_kernel(kc, packed_a + ir * kc, b_panel, p.c + (ic + ir) * p.ldc + jc + jr, p.ldc,
                         std::min(kMr, mc - ir), std::min(kNr, nc - jr));
          }
        }
      }
    }
  }
}

}  // namespace glassbox::runtime::kernels::internal

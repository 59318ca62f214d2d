#pragma once
// The blocked GEMM shared by gemm/linear/matmul and conv2d (private).
//
// C[m][n] += sum_k A[m][k] * B[k][n], BLIS-style: B is packed one
// kKc x kNc block at a time into kNr-wide column panels, A one kMc x kKc
// block at a time into kMr-high row panels, and a kMr x kNr register tile
// of accumulators walks the packed panels. Packing makes the inner loop
// read both operands with unit stride whatever their source layout, which
// is what lets the compiler vectorise it; it also turns transposed weights
// (linear) and image patches (conv2d's implicit im2col) into the same
// kernel input.

#include <cstddef>
#include <cstdint>

namespace glassbox::runtime::kernels::internal {

// Register tile. 6x16 keeps 24 four-wide (or 12 eight-wide) accumulators:
// enough independent adds to hide FP latency, few enough to stay in the
// 32 NEON / 16 AVX registers.
inline constexpr std::int64_t kMr = 6;
inline constexpr std::int64_t kNr = 16;
// Cache blocks: a kKc x kNr B panel (16 KiB) stays in L1 while the kMc x kKc
// A block (72 KiB) streams from L2; the packed B block (512 KiB) fits L2/L3.
inline constexpr std::int64_t kKc = 256;
inline constexpr std::int64_t kMc = 72;
inline constexpr std::int64_t kNc = 512;

// Fills `dst` with rows [k0, k0+kc) and columns [n0, n0+nc) of B as
// ceil(nc/kNr) panels of kc x kNr floats, zero-padding the last panel.
struct BPacker {
  void (*pack)(const void* ctx, std::int64_t k0, std::int64_t kc, std::int64_t n0, std::int64_t nc,
               float* dst);
  const void* ctx;
};

// A strided matrix: element (r, c) is data[r * row_stride + c * col_stride].
struct StridedMatrix {
  const float* data;
  std::int64_t row_stride;
  std::int64_t col_stride;
};

// Packs a StridedMatrix (ctx points at it) as B.
void pack_b_strided(const void* ctx, std::int64_t k0, std::int64_t kc, std::int64_t n0,
                    std::int64_t nc, float* dst);

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  StridedMatrix a{};
  BPacker b{};
  float* c = nullptr;  // m x n, row stride ldc, unit column stride.
  std::int64_t ldc = 0;
};

// Floats of scratch gemm_accumulate needs for these sizes.
std::size_t gemm_scratch_floats(std::int64_t m, std::int64_t n, std::int64_t k);

// C += A * B. `scratch` holds at least gemm_scratch_floats(m, n, k) floats.
void gemm_accumulate(const GemmProblem& p, float* scratch);

}  // namespace glassbox::runtime::kernels::internal

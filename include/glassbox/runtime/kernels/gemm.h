#pragma once
/// @file
/// Matrix products: a plain GEMM, `linear` (PyTorch nn.Linear) and `matmul`
/// (torch.matmul for rank >= 2, with batch broadcasting).
///
/// All three run the same cache-blocked GEMM, which packs its operands into
/// caller-provided scratch memory: ask `<op>_scratch_bytes(...)` for the size
/// and pass at least that many bytes (as floats) in `scratch`. Scratch is
/// only used during the call and may be reused between calls.
///
/// Rounding: every output element is a float32 sum of float32 products in
/// an unspecified order (the GEMM adds partial sums over K blocks of 256;
/// `linear` with m < 6 uses 16 interleaved partial sums per dot product), so
/// results differ from a sequential loop by float reassociation only:
/// |error| <= (K + 1) * 2^-24 * sum_k |a_k * b_k|.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// Scratch bytes `gemm` needs for these sizes (0 if any is 0).
std::size_t gemm_scratch_bytes(std::int64_t m, std::int64_t n, std::int64_t k);

/// c[m][n] = sum_k a[m][k] * b[k][n]; all row-major contiguous.
/// `a` is m x k, `b` is k x n, `c` is m x n and must not overlap them.
/// kInvalidArgument for negative sizes, null pointers with nonzero sizes, or
/// scratch smaller than gemm_scratch_bytes(m, n, k). k == 0 gives zeros.
Error gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
           Span<float> scratch);

/// Scratch bytes `linear` needs for these sizes.
std::size_t linear_scratch_bytes(std::int64_t m, std::int64_t n, std::int64_t k);

/// y[m][n] = sum_k x[m][k] * weight[n][k] + bias[n] (PyTorch nn.Linear:
/// weight is [out_features=n, in_features=k]). `bias` may be null (no bias),
/// otherwise it has n elements. `y` must not overlap the inputs.
/// kInvalidArgument as for `gemm`.
Error linear(const float* x, std::int64_t m, std::int64_t k, const float* weight, std::int64_t n,
             const float* bias, float* y, Span<float> scratch);

/// The shape of matmul(a, b): a is [B_a..., M, K], b is [B_b..., K, N],
/// both of rank 2..kMaxDims; the batch dims B_a and B_b broadcast as in
/// NumPy (right-aligned; each pair equal or one of them 1) and the result
/// is [broadcast(B_a, B_b)..., M, N]. kInvalidArgument if a rank is out of
/// range, the K dims differ or the batch dims do not broadcast.
Result<Dims> matmul_output_shape(Span<const std::int64_t> a_shape,
                                 Span<const std::int64_t> b_shape);

/// Scratch bytes `matmul` needs (0 if the shapes are invalid).
std::size_t matmul_scratch_bytes(Span<const std::int64_t> a_shape,
                                 Span<const std::int64_t> b_shape);

/// out = a @ b with the shapes of `matmul_output_shape`; `out` must not
/// overlap the inputs. Each batch entry is an independent GEMM.
Error matmul(const float* a, Span<const std::int64_t> a_shape, const float* b,
             Span<const std::int64_t> b_shape, float* out, Span<float> scratch);

}  // namespace glassbox::runtime::kernels

#include "glassbox/runtime/kernels/gemm.h"

#include <algorithm>

#include "src/runtime/kernels/gemm_driver.h"

namespace glassbox::runtime::kernels {
namespace {

using internal::BPacker;
using internal::GemmProblem;
using internal::StridedMatrix;

std::size_t floats_to_bytes(std::size_t floats) { return floats * sizeof(float); }

bool scratch_fits(Span<float> scratch, std::int64_t m, std::int64_t n, std::int64_t k) {
  return scratch.size() >= internal::gemm_scratch_floats(m, n, k);
}

Error check_sizes(const float* a, const float* b, const float* c, std::int64_t m, std::int64_t n,
                  std::int64_t k) {
  if (m < 0 || n < 0 || k < 0) return Error::kInvalidArgument;
  if ((m * k > 0 && a == nullptr) || (k * n > 0 && b == nullptr) || (m * n > 0 && c == nullptr))
    return Error::kInvalidArgument;
  return Error::kOk;
}

// Batch-1 linear is a matrix-vector product over rows of W, which are
// contiguous along K: no packing needed. Each dot product keeps 16 lane
// sums (an explicit reassociation, so g++ may vectorise it without
// -ffast-math) and 4 rows of W share every load of x.
constexpr std::int64_t kDotLanes = 16;
constexpr std::int64_t kDotRows = 4;

void linear_rows(const float* __restrict x, std::int64_t k, const float* __restrict w,
                 std::int64_t n, float* __restrict y) {
  const std::int64_t k_main = k / kDotLanes * kDotLanes;
  std::int64_t j = 0;
  for (; j + kDotRows <= n; j += kDotRows) {
    float acc[kDotRows][kDotLanes] = {};
    for (std::int64_t p = 0; p < k_main; p += kDotLanes)
      for (std::int64_t r = 0; r < kDotRows; ++r)
        for (std::int64_t l = 0; l < kDotLanes; ++l) acc[r][l] += x[p + l] * w[(j + r) * k + p + l];
    for (std::int64_t r = 0; r < kDotRows; ++r) {
      float sum = 0.0f;
      for (std::int64_t l = 0; l < kDotLanes; ++l) sum += acc[r][l];
      for (std::int64_t p = k_main; p < k; ++p) sum += x[p] * w[(j + r) * k + p];
      y[j + r] += sum;
    }
  }
  for (; j < n; ++j) {
    float sum = 0.0f;
    for (std::int64_t p = 0; p < k; ++p) sum += x[p] * w[j * k + p];
    y[j] += sum;
  }
}

}  // namespace

std::size_t gemm_scratch_bytes(std::int64_t m, std::int64_t n, std::int64_t k) {
  return floats_to_bytes(internal::gemm_scratch_floats(m, n, k));
}

Error gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k,
           Span<float> scratch) {
  if (Error e = check_sizes(a, b, c, m, n, k); e != Error::kOk) return e;
  if (!scratch_fits(scratch, m, n, k)) return Error::kInvalidArgument;
  std::fill(c, c + m * n, 0.0f);
  const StridedMatrix b_matrix{b, n, 1};
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a = StridedMatrix{a, k, 1};
  p.b = BPacker{internal::pack_b_strided, &b_matrix};
  p.c = c;
  p.ldc = n;
  internal::gemm_accumulate(p, scratch.data());
  return Error::kOk;
}

std::size_t linear_scratch_bytes(std::int64_t m, std::int64_t n, std::int64_t k) {
  return gemm_scratch_bytes(m, n, k);
}

Error linear(const float* x, std::int64_t m, std::int64_t k, const float* weight, std::int64_t n,
             const float* bias, float* y, Span<float> scratch) {
  if (Error e = check_sizes(x, weight, y, m, n, k); e != Error::kOk) return e;
  if (!scratch_fits(scratch, m, n, k)) return Error::kInvalidArgument;
  for (std::int64_t i = 0; i < m; ++i) {
    float* row = y + i * n;
    if (bias != nullptr) {
      std::copy(bias, bias + n, row);
    } else {
      std::fill(row, row + n, 0.0f);
    }
  }
  if (m < internal::kMr) {
    for (std::int64_t i = 0; i < m; ++i) linear_rows(x + i * k, k, weight, n, y + i * n);
    return Error::kOk;
  }
  // B = weight^T: element (k, n) sits at weight[n * K + k]; packing
  // transposes it into unit-stride panels.
  const StridedMatrix b_matrix{weight, 1, k};
  GemmProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.a = StridedMatrix{x, k, 1};
  p.b = BPacker{internal::pack_b_strided, &b_matrix};
  p.c = y;
  p.ldc = n;
  internal::gemm_accumulate(p, scratch.data());
  return Error::kOk;
}

Result<Dims> matmul_output_shape(Span<const std::int64_t> a_shape,
                                 Span<const std::int64_t> b_shape) {
  if (a_shape.size() < 2 || b_shape.size() < 2 || a_shape.size() > kMaxDims ||
      b_shape.size() > kMaxDims)
    return make_error(Error::kInvalidArgument, "matmul needs rank 2..6");
  const std::size_t ra = a_shape.size();
  const std::size_t rb = b_shape.size();
  if (a_shape[ra - 1] != b_shape[rb - 2])
    return make_error(Error::kInvalidArgument, "matmul inner dims differ");
  Result<Dims> batch = broadcast_shapes(a_shape.first(ra - 2), b_shape.first(rb - 2));
  if (!batch.ok()) return batch.error_info();
  Dims out = *batch;
  out.sizes[out.rank++] = a_shape[ra - 2];
  out.sizes[out.rank++] = b_shape[rb - 1];
  for (std::size_t i = 0; i < out.rank; ++i)
    if (out.sizes[i] < 0) return make_error(Error::kInvalidArgument, "negative dimension size");
  return out;
}

namespace {

// The rows of one GEMM: when b is one matrix shared by every batch entry and
// a is not broadcast, a's batch entries are stacked rows of one
// [batches * m, k] matrix and out's of one [batches * m, n]: one GEMM packs
// b once instead of once per entry (a [197, 1, 768] x [768, 2304]
// projection was 197 GEMMs of one row each, each packing all of b).
std::int64_t merged_rows(Span<const std::int64_t> a_shape, Span<const std::int64_t> b_shape,
                         const Dims& out) {
  const std::size_t batch_rank = out.rank - 2;
  for (std::size_t i = 0; i + 2 < b_shape.size(); ++i) {
    if (b_shape[i] != 1) return 0;
  }
  // a's batch dims must be out's exactly (no broadcast of a).
  const std::size_t a_batch = a_shape.size() - 2;
  std::int64_t rows = a_shape[a_shape.size() - 2];
  for (std::size_t i = 0; i < batch_rank; ++i) {
    const std::size_t lead = batch_rank - a_batch;
    const std::int64_t a_dim = i < lead ? 1 : a_shape[i - lead];
    if (a_dim != out.sizes[i]) return 0;
    rows *= out.sizes[i];
  }
  return rows;
}

}  // namespace

std::size_t matmul_scratch_bytes(Span<const std::int64_t> a_shape,
                                 Span<const std::int64_t> b_shape) {
  Result<Dims> out = matmul_output_shape(a_shape, b_shape);
  if (!out.ok()) return 0;
  const std::int64_t merged = merged_rows(a_shape, b_shape, *out);
  return gemm_scratch_bytes(merged > 0 ? merged : a_shape[a_shape.size() - 2],
                            b_shape[b_shape.size() - 1], a_shape[a_shape.size() - 1]);
}

Error matmul(const float* a, Span<const std::int64_t> a_shape, const float* b,
             Span<const std::int64_t> b_shape, float* out, Span<float> scratch) {
  Result<Dims> out_dims = matmul_output_shape(a_shape, b_shape);
  if (!out_dims.ok()) return out_dims.error();
  const std::size_t ra = a_shape.size();
  const std::size_t rb = b_shape.size();
  const std::int64_t m = a_shape[ra - 2];
  const std::int64_t k = a_shape[ra - 1];
  const std::int64_t n = b_shape[rb - 1];
  if (Error e = check_sizes(a, b, out, m, n, k); e != Error::kOk) return e;
  if (const std::int64_t rows = merged_rows(a_shape, b_shape, *out_dims); rows > 0) {
    if (!scratch_fits(scratch, rows, n, k)) return Error::kInvalidArgument;
    return gemm(a, b, out, rows, n, k, scratch);
  }
  if (!scratch_fits(scratch, m, n, k)) return Error::kInvalidArgument;

  const std::size_t batch_rank = out_dims->rank - 2;
  // Row-major strides (in matrices) of a's and b's batch dims, aligned to the
  // output's batch dims; a broadcast (size-1 or missing) dim gets stride 0.
  std::int64_t a_stride[kMaxDims] = {};
  std::int64_t b_stride[kMaxDims] = {};
  std::int64_t stride = 1;
  for (std::size_t i = ra - 2; i-- > 0;) {
    const std::size_t o = i + batch_rank - (ra - 2);
    a_stride[o] = a_shape[i] == 1 ? 0 : stride;
    stride *= a_shape[i];
  }
  stride = 1;
  for (std::size_t i = rb - 2; i-- > 0;) {
    const std::size_t o = i + batch_rank - (rb - 2);
    b_stride[o] = b_shape[i] == 1 ? 0 : stride;
    stride *= b_shape[i];
  }

  std::int64_t batches = 1;
  for (std::size_t i = 0; i < batch_rank; ++i) batches *= out_dims->sizes[i];
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    std::int64_t a_index = 0;
    std::int64_t b_index = 0;
    std::int64_t rest = bi;
    for (std::size_t i = batch_rank; i-- > 0;) {
      const std::int64_t coord = rest % out_dims->sizes[i];
      rest /= out_dims->sizes[i];
      a_index += coord * a_stride[i];
      b_index += coord * b_stride[i];
    }
    Error e = gemm(a + a_index * m * k, b + b_index * k * n, out + bi * m * n, m, n, k, scratch);
    if (e != Error::kOk) return e;
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

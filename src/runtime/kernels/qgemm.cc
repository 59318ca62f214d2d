// qlinear_matmul and qlinear_linear, and the int16 dot-product tile that
// they and qlinear_conv2d run on.
//
// Both operands are packed into int16 rows with their zero points already
// subtracted (values in [-255, 255]), so every output is a plain dot
// product of two contiguous int16 rows: GCC turns the int32 sum of int16
// products into pmaddwd (SSE2) / vpmaddwd (AVX2) without intrinsics.

#include <algorithm>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_internal.h"
#include "src/runtime/kernels/vector_clones.h"

namespace glassbox::runtime::kernels {
namespace internal {

GLASSBOX_VECTOR_CLONES
void dot_tile(const std::int16_t* rows, std::int64_t nrows, const std::int16_t* cols,
              std::int64_t ncols, std::int64_t k, std::int64_t* out, std::int64_t out_stride) {
  for (std::int64_t r = 0; r < nrows; ++r) {
    const std::int16_t* a = rows + r * k;
    for (std::int64_t c = 0; c < ncols; ++c) {
      const std::int16_t* b = cols + c * k;
      std::int64_t total = 0;
      for (std::int64_t k0 = 0; k0 < k; k0 += kDotBlock) {
        const std::int64_t kn = std::min(kDotBlock, k - k0);
        std::int32_t sum = 0;
        for (std::int64_t i = 0; i < kn; ++i)
          sum += static_cast<std::int32_t>(a[k0 + i]) * static_cast<std::int32_t>(b[k0 + i]);
        total += sum;
      }
      out[r * out_stride + c] = total;
    }
  }
}

}  // namespace internal

namespace {

using internal::Requantizer;

// Rows of x per tile and weight columns per tile.
constexpr std::int64_t kRowTile = 16;
constexpr std::int64_t kColTile = 64;

struct GemmArgs {
  const QuantInput* x;
  std::int64_t m, k, n;
  const QuantWeight* w;
  bool w_is_nk;  // w stored [N, K] (linear) rather than [K, N] (matmul)
  const std::int32_t* bias;
  const QuantOutput* y;
};

// dst[j][kk] = w(col n0 + j, kk) - w_zp[n0 + j] for j < nc.
template <typename W>
void pack_weight(const GemmArgs& g, std::int64_t n0, std::int64_t nc, std::int16_t* dst) {
  const W* w = static_cast<const W*>(g.w->data);
  for (std::int64_t j = 0; j < nc; ++j) {
    const auto zp = static_cast<std::int16_t>(internal::weight_zero_point(*g.w, n0 + j));
    std::int16_t* row = dst + j * g.k;
    if (g.w_is_nk) {
      const W* src = w + (n0 + j) * g.k;
      for (std::int64_t kk = 0; kk < g.k; ++kk) row[kk] = static_cast<std::int16_t>(src[kk] - zp);
    } else {
      for (std::int64_t kk = 0; kk < g.k; ++kk)
        row[kk] = static_cast<std::int16_t>(w[kk * g.n + n0 + j] - zp);
    }
  }
}

// dst[i][kk] = x[m0 + i][kk] - x_zp for i < mc.
template <typename X>
void pack_rows(const GemmArgs& g, std::int64_t m0, std::int64_t mc, std::int16_t* dst) {
  const X* src = static_cast<const X*>(g.x->data) + m0 * g.k;
  const auto zp = static_cast<std::int16_t>(g.x->zero_point);
  for (std::int64_t i = 0; i < mc * g.k; ++i) dst[i] = static_cast<std::int16_t>(src[i] - zp);
}

template <typename Y>
void store_tile(const GemmArgs& g, const Requantizer& rq, const float* multiplier,
                const std::int64_t* acc, std::int64_t m0, std::int64_t mc, std::int64_t n0,
                std::int64_t nc) {
  Y* y = static_cast<Y*>(g.y->data);
  for (std::int64_t i = 0; i < mc; ++i)
    for (std::int64_t j = 0; j < nc; ++j) {
      const std::int64_t sum = acc[i * kColTile + j] + (g.bias ? g.bias[n0 + j] : 0);
      y[(m0 + i) * g.n + n0 + j] = static_cast<Y>(rq(static_cast<float>(sum) * multiplier[j]));
    }
}

ErrorInfo run_gemm(const GemmArgs& g, Span<std::uint8_t> scratch, const char* message) {
  if (ErrorInfo e = internal::check_input(*g.x, message); e.code != Error::kOk) return e;
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(*g.y, message, &rq); e.code != Error::kOk) return e;
  if (ErrorInfo e = internal::check_weight(*g.w, g.n, g.x->scale, g.y->scale, message);
      e.code != Error::kOk)
    return e;
  if (g.m == 0 || g.n == 0) return kOk;
  if (g.x->data == nullptr && g.k > 0) return make_error(Error::kInvalidArgument, message);
  if ((g.w->data == nullptr && g.k > 0) || g.y->data == nullptr)
    return make_error(Error::kInvalidArgument, message);
  std::int16_t* wtile = internal::carve<std::int16_t>(&scratch, kColTile * g.k);
  std::int16_t* xtile = internal::carve<std::int16_t>(&scratch, kRowTile * g.k);
  if (wtile == nullptr || xtile == nullptr)
    return make_error(Error::kInvalidArgument, "qlinear matmul: scratch too small");

  std::int64_t acc[kRowTile * kColTile];
  float multiplier[kColTile];
  for (std::int64_t n0 = 0; n0 < g.n; n0 += kColTile) {
    const std::int64_t nc = std::min(kColTile, g.n - n0);
    internal::dispatch_q8(g.w->type, [&](auto t) { pack_weight<decltype(t)>(g, n0, nc, wtile); });
    for (std::int64_t j = 0; j < nc; ++j)
      multiplier[j] = g.x->scale * internal::weight_scale(*g.w, n0 + j) / g.y->scale;
    for (std::int64_t m0 = 0; m0 < g.m; m0 += kRowTile) {
      const std::int64_t mc = std::min(kRowTile, g.m - m0);
      internal::dispatch_q8(g.x->type, [&](auto t) { pack_rows<decltype(t)>(g, m0, mc, xtile); });
      internal::dot_tile(xtile, mc, wtile, nc, g.k, acc, kColTile);
      internal::dispatch_q8(g.y->type, [&](auto t) {
        store_tile<decltype(t)>(g, rq, multiplier, acc, m0, mc, n0, nc);
      });
    }
  }
  return kOk;
}

}  // namespace

std::size_t qlinear_matmul_scratch_bytes(std::int64_t k) {
  if (k < 0 || k > (std::int64_t{1} << 40)) return 0;
  // Two int16 tiles plus alignment slack for each.
  return static_cast<std::size_t>((kColTile + kRowTile) * k) * sizeof(std::int16_t) +
         2 * alignof(std::int16_t);
}

ErrorInfo qlinear_matmul(const QuantInput& a, Span<const std::int64_t> a_shape,
                         const QuantWeight& b, Span<const std::int64_t> b_shape,
                         const std::int32_t* bias, const QuantOutput& y,
                         Span<std::uint8_t> scratch) {
  constexpr const char* kMessage =
      "qlinear_matmul: bad shapes (a [..., M, K], b [K, N]), types, scales or zero points";
  if (a_shape.empty() || b_shape.size() != 2 || !checked_numel(a_shape).ok() ||
      !checked_numel(b_shape).ok() || a_shape.back() != b_shape[0])
    return make_error(Error::kInvalidArgument, kMessage);
  // Every dim of a but the last is a row (b has no batch dims).
  std::int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < a_shape.size(); ++i) rows *= a_shape[i];
  const std::int64_t y_dims[] = {rows, b_shape[1]};
  if (!checked_numel(y_dims).ok()) return make_error(Error::kInvalidArgument, kMessage);
  return run_gemm(GemmArgs{&a, rows, b_shape[0], b_shape[1], &b, false, bias, &y}, scratch,
                  kMessage);
}

ErrorInfo qlinear_linear(const QuantInput& x, std::int64_t m, std::int64_t k, const QuantWeight& w,
                         std::int64_t n, const std::int32_t* bias, const QuantOutput& y,
                         Span<std::uint8_t> scratch) {
  constexpr const char* kMessage =
      "qlinear_linear: bad sizes (x [M, K], w [N, K]), types, scales or zero points";
  const std::int64_t x_dims[] = {m, k};
  const std::int64_t w_dims[] = {n, k};
  const std::int64_t y_dims[] = {m, n};
  if (!checked_numel(x_dims).ok() || !checked_numel(w_dims).ok() || !checked_numel(y_dims).ok())
    return make_error(Error::kInvalidArgument, kMessage);
  return run_gemm(GemmArgs{&x, m, k, n, &w, true, bias, &y}, scratch, kMessage);
}

}  // namespace glassbox::runtime::kernels

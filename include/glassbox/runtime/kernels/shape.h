#pragma once
/// @file
/// Shape types shared by the portable CPU kernels.
///
/// Every kernel in glassbox/runtime/kernels works on float32, row-major
/// contiguous tensors (NCHW for images) and reports bad shapes as
/// `Error::kInvalidArgument`; none allocates, throws or aborts on bad input.
///
///   conv.h           conv2d (implicit im2col + blocked GEMM, 1x1, depthwise)
///   conv_pool3d.h    conv3d, conv_transpose3d, max_pool3d, avg_pool3d (NCDHW)
///   gemm.h           gemm, linear, matmul (batch broadcasting)
///   elementwise.h    relu, clamp, sigmoid, ... and broadcasting add/sub/...
///   pooling.h        max_pool2d, avg_pool2d, global_avg_pool2d
///   normalization.h  batch_norm (inference), softmax
///   shape_ops.h      concat, transpose, reshape/flatten validation

#include <array>
#include <cstddef>
#include <cstdint>

#include "glassbox/core/result.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

/// The largest rank the N-d kernels (broadcasting, transpose, concat,
/// softmax, matmul) accept.
inline constexpr std::size_t kMaxDims = 6;

/// An image shape in NCHW order (or a conv weight in OIHW order).
struct Shape4 {
  std::int64_t n = 0;
  std::int64_t c = 0;
  std::int64_t h = 0;
  std::int64_t w = 0;

  std::int64_t numel() const { return n * c * h * w; }
  friend bool operator==(const Shape4&, const Shape4&) = default;
};

/// A shape of rank 0..kMaxDims held by value, so that shape helpers can
/// return one without allocating.
struct Dims {
  std::array<std::int64_t, kMaxDims> sizes{};
  std::size_t rank = 0;

  /// The first `rank` sizes; valid while this object lives.
  Span<const std::int64_t> span() const { return {sizes.data(), rank}; }
  /// Product of the sizes (1 for rank 0).
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
  friend bool operator==(const Dims& a, const Dims& b) {
    if (a.rank != b.rank) return false;
    for (std::size_t i = 0; i < a.rank; ++i)
      if (a.sizes[i] != b.sizes[i]) return false;
    return true;
  }
};

/// Copies `shape` into a `Dims`. kInvalidArgument if the rank exceeds
/// kMaxDims or a size is negative.
Result<Dims> make_dims(Span<const std::int64_t> shape);

/// Product of `shape`'s sizes, or kInvalidArgument for a negative size, a
/// rank above kMaxDims, or a product whose float32 byte count overflows
/// int64 (so callers may multiply the result by an element size).
Result<std::int64_t> checked_numel(Span<const std::int64_t> shape);

/// The same for an NCHW shape.
Result<std::int64_t> checked_numel(Shape4 shape);

/// NumPy broadcasting of two shapes: right-align them, pad the shorter with
/// leading 1s, and per dimension take the size that is not 1 (sizes must be
/// equal or one of them 1; a 0 broadcasts only against 0 or 1).
/// kInvalidArgument if they do not broadcast or a rank exceeds kMaxDims.
Result<Dims> broadcast_shapes(Span<const std::int64_t> a, Span<const std::int64_t> b);

/// The walk of out = a (op) b over the fewest dims: out's dims of size 1
/// dropped, and neighbours merged where both operands stay contiguous
/// across them, so [N,C,H,W] + [1,C,1,1] walks [N,C,H*W] and equal shapes
/// one flat run. A stride of 0 marks a dim the operand is broadcast along.
/// At least one dim ([1], strides 0, for a one-element result). The
/// binary kernels walk this; a delegate can hand a library the same bytes
/// as fewer dims (oneDNN's binary, onednn_runtime.cc).
struct BroadcastWalk {
  std::int64_t size[kMaxDims];
  std::int64_t a_stride[kMaxDims];
  std::int64_t b_stride[kMaxDims];
  std::size_t rank = 0;
};

/// `out` is broadcast_shapes(a, b).
BroadcastWalk broadcast_walk(const Dims& out, Span<const std::int64_t> a,
                             Span<const std::int64_t> b);

}  // namespace glassbox::runtime::kernels

#pragma once
/// @file
/// Reductions over a set of axes (ONNX ReduceMean, ReduceSum, ReduceMax, ...)
/// and ArgMax/ArgMin along one axis, on row-major contiguous float32 tensors
/// of rank 0..kMaxDims.
///
/// Axes arrive already normalised by the caller (0 <= axis < rank, no
/// repeats, any order), and `keepdims` is only a matter of the output shape:
/// the output always holds the product of the kept sizes, in row-major order
/// of the kept dims. Neither function allocates; the output must not overlap
/// the input.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// The ONNX reduce operators. Over the elements x_1..x_n that reduce into
/// one output:
///   kMean       sum(x) / n
///   kSum        sum(x)
///   kMax        max(x)
///   kMin        min(x)
///   kProd       prod(x)
///   kL1         sum(|x|)
///   kL2         sqrt(sum(x^2))
///   kSumSquare  sum(x^2)
///   kLogSumExp  log(sum(exp(x)))
enum class ReduceOp : std::uint8_t {
  kMean,
  kSum,
  kMax,
  kMin,
  kProd,
  kL1,
  kL2,
  kSumSquare,
  kLogSumExp,
};

/// y = op(x) over the dims listed in `axes`.
///
/// Precision: sums, products and means accumulate in double and are rounded
/// to float once, so a mean over 50k elements is as accurate as its float
/// result can be. kLogSumExp subtracts the maximum first
/// (m + log(sum(exp(x - m)))), so large inputs do not overflow, as in the
/// ONNX reference; unlike it, a slice holding only infinities gives -inf
/// when all are -inf and +inf otherwise (the reference returns NaN there).
///
/// Special values: kMax and kMin return NaN for any slice holding a NaN; the
/// other ops propagate NaN and infinities through IEEE arithmetic.
///
/// Reducing over a dim of size 0 (n = 0) gives each op's identity, as the
/// ONNX reference does: kSum, kL1, kL2, kSumSquare 0; kProd 1; kMean NaN
/// (0 / 0); kMax -inf; kMin +inf; kLogSumExp -inf.
///
/// Empty `axes` reduces over no axes: every output sees n = 1 element, as
/// ONNX noop_with_empty_axes = 1 specifies ("composite-reduction operators
/// still perform the non-reduction steps"), so y = x for kMean, kSum, kMax,
/// kMin, kProd and kLogSumExp, y = |x| for kL1 and kL2, y = x^2 for
/// kSumSquare. For "reduce all" the caller passes every axis.
///
/// `x` holds the product of `x_shape` floats and `y` the product of the
/// kept sizes; both are borrowed for the call only.
/// kInvalidArgument if the rank exceeds kMaxDims, a size is negative, the
/// element count overflows int64, an axis is out of range or repeated, `op`
/// is not an enumerator, or a pointer is null while its tensor is
/// non-empty.
Error reduce(ReduceOp op, const float* x, Span<const std::int64_t> x_shape,
             Span<const std::int64_t> axes, float* y);

/// ONNX ReduceMax (`is_max`) / ReduceMin of int64 `x` over `axes` (as
/// reduce), the shape arithmetic exporters write (min(300, boxes found)).
/// kInvalidArgument as reduce, and when a reduced axis is empty (an int64
/// has no infinity to give).
Error reduce_extreme_int64(bool is_max, const std::int64_t* x, Span<const std::int64_t> x_shape,
                           Span<const std::int64_t> axes, std::int64_t* y);

/// ONNX ArgMax (`is_max`) / ArgMin along `axis` (0 <= axis < rank): y holds,
/// for every position of the other dims, the index along `axis` of the
/// largest (smallest) element. Ties give the first index, or the last one
/// when `select_last_index` is true. A NaN beats every number, as in
/// numpy.argmax/argmin (which the ONNX reference calls): a slice holding NaN
/// gives the index of its first NaN, or of its last NaN with
/// `select_last_index`. -0.0 and +0.0 tie.
///
/// `y` holds the product of the sizes other than `axis` (the shape is the
/// same with keepdims = 0 or 1).
/// kInvalidArgument if the rank is 0 or exceeds kMaxDims, a size is
/// negative, the element count overflows int64, `axis` is out of range,
/// the axis has size 0 (there is no index to return), or a pointer is null
/// while its tensor is non-empty.
Error arg_reduce(bool is_max, const float* x, Span<const std::int64_t> x_shape, std::int64_t axis,
                 bool select_last_index, std::int64_t* y);

}  // namespace glassbox::runtime::kernels

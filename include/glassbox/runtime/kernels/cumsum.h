#pragma once
/// @file
/// ONNX CumSum: the running sum along one axis of a row-major contiguous
/// tensor (float32 or int64), with ONNX's `exclusive` and `reverse`.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

/// y[..., i, ...] = sum of x[..., j, ...] along `axis` (0 <= axis < rank) over
/// j <= i; with `exclusive` over j < i (the first is 0); with `reverse` over
/// j >= i (j > i when exclusive too). The sum runs in the axis' order, one
/// element at a time, as ONNX's reference does (float results are not
/// reassociated). `y` may be `x` (the same buffer), nothing else that
/// overlaps it.
/// kInvalidArgument if the rank is 0, a size is negative, `axis` is out of
/// range, or a pointer is null while the tensor is non-empty.
Error cumsum(const float* x, Span<const std::int64_t> shape, std::int64_t axis, bool exclusive,
             bool reverse, float* y);
Error cumsum(const std::int64_t* x, Span<const std::int64_t> shape, std::int64_t axis,
             bool exclusive, bool reverse, std::int64_t* y);

}  // namespace glassbox::runtime::kernels

#pragma once
/// @file
/// Normalisation kernels: inference-mode batch norm and softmax.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// Inference batch norm over NCHW (use H = W = 1 for [N, C]):
///   out = (x - mean[c]) / sqrt(var[c] + eps) * gamma[c] + beta[c].
/// Computed as x * scale[c] + shift[c] with scale = gamma / sqrt(var + eps)
/// and shift = beta - mean * scale, both in float, so results differ from
/// the formula above by a few ulp. `gamma` null means 1, `beta` null means
/// 0; `mean` and `var` hold C floats. `output` may equal `input`.
/// kInvalidArgument for negative dims, eps < 0, or null required pointers.
Error batch_norm(const float* input, Shape4 shape, const float* mean, const float* var,
                 const float* gamma, const float* beta, float eps, float* output);

/// Softmax along `axis` (negative counts from the end) of a tensor of rank
/// 1..kMaxDims: out = exp(x - max) / sum(exp(x - max)) over that axis. The
/// max is subtracted first, so no input magnitude overflows; +inf inputs
/// give NaN, a NaN makes its whole slice NaN. `output` may equal `input`.
/// kInvalidArgument for a bad axis, rank or shape, or null pointers.
Error softmax(const float* input, Span<const std::int64_t> shape, std::int64_t axis, float* output);

}  // namespace glassbox::runtime::kernels

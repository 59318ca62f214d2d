#pragma once
/// @file
/// Element-wise kernels on contiguous float32 buffers.
///
/// Unary ops read `n` floats from `x` and write `n` floats to `y`; `y == x`
/// (in place) is allowed, any other overlap is not. They return
/// kInvalidArgument for n < 0 or a null pointer with n > 0.
/// NaN inputs propagate to NaN outputs in every op below.
///
/// Binary ops broadcast like NumPy (see `broadcast_shapes` in shape.h) over
/// up to kMaxDims dims: out has the broadcast shape, and out may alias `a`
/// or `b` only when that input already has the output's shape.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

/// y = x < 0 ? 0 : x (so relu(-0.0f) == -0.0f and NaN stays NaN).
Error relu(const float* x, float* y, std::int64_t n);

/// y = min(max(x, min_value), max_value). kInvalidArgument if
/// min_value > max_value or either bound is NaN.
Error clamp(const float* x, float* y, std::int64_t n, float min_value, float max_value);

/// y = 1 / (1 + exp(-x)), evaluated from exp(-|x|) (fast_math.h) so that
/// no intermediate overflows: saturates to exactly 0 / 1 for large |x| (0
/// below about -87.3, where exp underflows).
Error sigmoid(const float* x, float* y, std::int64_t n);

/// y = x * clamp(x + 3, 0, 6) / 6 (PyTorch nn.Hardswish).
Error hardswish(const float* x, float* y, std::int64_t n);

/// y = clamp(alpha * x + beta, 0, 1). ONNX HardSigmoid defaults are
/// alpha = 0.2, beta = 0.5; PyTorch nn.Hardsigmoid is alpha = 1/6, beta = 0.5.
Error hardsigmoid(const float* x, float* y, std::int64_t n, float alpha, float beta);

/// y = std::tan(x), std::sin(x), std::cos(x) in float (libm precision).
Error tan(const float* x, float* y, std::int64_t n);
Error sin(const float* x, float* y, std::int64_t n);
Error cos(const float* x, float* y, std::int64_t n);

/// The four broadcasting binary ops.
enum class BinaryOp : std::uint8_t { kAdd, kSub, kMul, kDiv };

/// out = a (op) b with NumPy broadcasting; out has
/// broadcast_shapes(a_shape, b_shape). IEEE float32 semantics, round to
/// nearest; division by zero gives +-inf or NaN, never an error.
/// kInvalidArgument if the shapes do not broadcast, a rank exceeds
/// kMaxDims, or a pointer is null while its tensor is non-empty.
Error binary(BinaryOp op, const float* a, Span<const std::int64_t> a_shape, const float* b,
             Span<const std::int64_t> b_shape, float* out);

/// binary() with kAdd, kSub, kMul, kDiv respectively.
Error add(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out);
Error sub(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out);
Error mul(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out);
Error div(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out);

}  // namespace glassbox::runtime::kernels

#pragma once
/// @file
/// Element-wise kernels for the ONNX operator set: more unary float32 ops,
/// a broadcasting engine for two- and three-input ops over float32, int64
/// and bool, and Cast.
///
/// Element types: float32 = `float`, int64 = `std::int64_t`, bool =
/// `std::uint8_t` holding 0 or 1 (inputs read any nonzero byte as true;
/// outputs are always 0 or 1).
///
/// Unary ops read `n` elements from `x` and write `n` to `y`; `y == x` (in
/// place) is allowed, any other overlap is not. kInvalidArgument for n < 0
/// or a null pointer with n > 0. NaN inputs give NaN outputs unless stated.
///
/// Broadcasting ops follow NumPy (see `broadcast_shapes` in shape.h) over
/// ranks 0..kMaxDims: the output has the broadcast shape of the inputs and
/// is row-major contiguous. `out` may alias an input that already has the
/// output's exact shape, and must not overlap anything else. They return
/// kInvalidArgument if the shapes do not broadcast, a rank exceeds kMaxDims,
/// a size is negative, the element count overflows, the op does not belong
/// to the function, or a pointer is null while the output is non-empty.
/// Nothing is read or written when the output is empty.
///
///   const std::int64_t x_shape[] = {2, 8, 64};  // [batch, seq, hidden]
///   const std::int64_t bias_shape[] = {64};
///   binary_float(ElementwiseOp::kAdd, x, x_shape, bias, bias_shape, x);

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/scalar_type.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

// ---------------------------------------------------------------------------
// Unary float32 ops (ONNX names in parentheses where they differ).

/// y = erf(x), tanh(x), exp(x), log(x) in float. erf, tanh and exp use the
/// vectorisable approximations of src/runtime/kernels/fast_math.h (max
/// relative error 3.8e-7, 3.4e-7 and 8.3e-8 over every float; exp is 0 below
/// -87.34 instead of subnormal); log is libm's.
/// log(0) = -inf, log(x < 0) = NaN; exp overflows to +inf.
Error erf(const float* x, float* y, std::int64_t n);
Error tanh(const float* x, float* y, std::int64_t n);
Error exp(const float* x, float* y, std::int64_t n);
Error log(const float* x, float* y, std::int64_t n);

/// y = -x (Neg), |x| (Abs), sqrt(x) (Sqrt; NaN for x < 0), 1 / x
/// (Reciprocal; +-inf for +-0).
Error neg(const float* x, float* y, std::int64_t n);
Error abs(const float* x, float* y, std::int64_t n);
Error sqrt(const float* x, float* y, std::int64_t n);
Error reciprocal(const float* x, float* y, std::int64_t n);

/// ONNX Sign: y = 1 for x > 0, -1 for x < 0, x itself for +-0 and NaN.
Error sign(const float* x, float* y, std::int64_t n);

/// y = floor(x), ceil(x), and ONNX Round: nearest integer with halves to
/// even (round(2.5) = 2, round(-0.5) = -0), via std::nearbyint under the
/// default rounding mode. Infinities and NaN pass through.
Error floor(const float* x, float* y, std::int64_t n);
Error ceil(const float* x, float* y, std::int64_t n);
Error round(const float* x, float* y, std::int64_t n);

/// ONNX Softplus: y = log(1 + exp(x)), evaluated as x + log1p(exp(-x)) for
/// x > 0 and log1p(exp(x)) otherwise, so no intermediate overflows:
/// y = x for large x, y = exp(x) (down to 0) for very negative x.
Error softplus(const float* x, float* y, std::int64_t n);

/// ONNX Softsign: y = x / (1 + |x|); +-inf give +-1 (the limit) rather
/// than inf / inf = NaN.
Error softsign(const float* x, float* y, std::int64_t n);

/// ONNX Gelu, approximate = "none": y = 0.5 x (1 + erf(x / sqrt(2))),
/// evaluated as 0.5 x erfc(-x / sqrt(2)), which keeps full relative
/// precision for negative x where 1 + erf(.) cancels. gelu(-inf) = -0.
Error gelu_erf(const float* x, float* y, std::int64_t n);

/// ONNX Gelu, approximate = "tanh":
///   y = 0.5 x (1 + tanh(u)),  u = sqrt(2 / pi) (x + 0.044715 x^3),
/// evaluated as x / (1 + exp(-2u)) (the same function, since
/// 1 + tanh(u) = 2 / (1 + exp(-2u))) to avoid the cancellation for
/// negative x. gelu_tanh(-inf) = -0.
Error gelu_tanh(const float* x, float* y, std::int64_t n);

/// ONNX LeakyRelu: y = x < 0 ? alpha * x : x (ONNX default alpha = 0.01).
Error leaky_relu(const float* x, float* y, std::int64_t n, float alpha);

/// ONNX Elu: y = x < 0 ? alpha * (exp(x) - 1) : x, with exp(x) - 1
/// computed as expm1(x) (ONNX default alpha = 1).
Error elu(const float* x, float* y, std::int64_t n, float alpha);

/// ONNX Selu: y = x > 0 ? gamma * x : gamma * alpha * (exp(x) - 1), with
/// expm1 (ONNX defaults alpha = 1.67326319217681884765625,
/// gamma = 1.05070102214813232421875).
Error selu(const float* x, float* y, std::int64_t n, float alpha, float gamma);

/// ONNX Not on bool: y = x == 0 ? 1 : 0.
Error logical_not(const std::uint8_t* x, std::uint8_t* y, std::int64_t n);

// ---------------------------------------------------------------------------
// Broadcasting ops.

/// The ops of the broadcasting functions below; each function accepts the
/// subset listed in its comment and returns kInvalidArgument for the rest.
enum class ElementwiseOp : std::uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kMin,
  kMax,
  kMod,   ///< Floor modulo (NumPy mod, ONNX Mod fmod = 0).
  kFmod,  ///< Truncated modulo (C fmod, ONNX Mod fmod = 1).
  kPrelu,
  kEqual,
  kLess,
  kGreater,
  kLessOrEqual,
  kGreaterOrEqual,
  kAnd,
  kOr,
  kXor,
};

/// out = a (op) b on float32, IEEE semantics, for:
///   kAdd, kSub, kMul, kDiv  the single IEEE operation (x / 0 = +-inf/NaN);
///   kPow    std::pow(a, b) in float (NaN for a < 0 and non-integer b);
///   kMin, kMax  NaN if either input is NaN (ONNX Min/Max, numpy.minimum),
///           otherwise the smaller / larger;
///   kMod    a - b * floor(a / b), computed exactly from fmod: the result
///           has the sign of b (Python %); NaN for b = 0, a zero result is
///           +0 or -0 following b's sign;
///   kFmod   std::fmod(a, b): the result has the sign of a;
///   kPrelu  a < 0 ? a * b : a (ONNX PRelu with a = X, b = slope; here
///           both sides may broadcast).
Error binary_float(ElementwiseOp op, const float* a, Span<const std::int64_t> a_shape,
                   const float* b, Span<const std::int64_t> b_shape, float* out);

/// out = a (op) b on int64 for kAdd, kSub, kMul (wrapping modulo 2^64 on
/// overflow), kDiv (truncates toward zero), kMin, kMax, kMod (floor:
/// the result has the sign of b, Python %) and kFmod (truncated: the
/// result has the sign of a, C %). Where b == 0 (kDiv, kMod, kFmod), or
/// a == INT64_MIN and b == -1 for kDiv (whose quotient does not fit), that
/// element is set to 0, the remaining elements are still computed, and the
/// call returns kInvalidArgument. INT64_MIN mod -1 is 0.
Error binary_int64(ElementwiseOp op, const std::int64_t* a, Span<const std::int64_t> a_shape,
                   const std::int64_t* b, Span<const std::int64_t> b_shape, std::int64_t* out);

/// out = (a op b) ? 1 : 0 for kEqual (==), kLess (<), kGreater (>),
/// kLessOrEqual (<=), kGreaterOrEqual (>=). Any comparison with a NaN is 0
/// (so Equal(NaN, NaN) = 0); -0 == +0.
Error compare_float(ElementwiseOp op, const float* a, Span<const std::int64_t> a_shape,
                    const float* b, Span<const std::int64_t> b_shape, std::uint8_t* out);

/// compare_float on int64 inputs.
Error compare_int64(ElementwiseOp op, const std::int64_t* a, Span<const std::int64_t> a_shape,
                    const std::int64_t* b, Span<const std::int64_t> b_shape, std::uint8_t* out);

/// out = a (op) b on bool for kAnd, kOr, kXor; a nonzero input byte is
/// true, out is 0 or 1.
Error logical(ElementwiseOp op, const std::uint8_t* a, Span<const std::int64_t> a_shape,
              const std::uint8_t* b, Span<const std::int64_t> b_shape, std::uint8_t* out);

/// ONNX Where: out = cond != 0 ? x : y, broadcasting all three shapes
/// together. x, y and out hold elements of `element_size` bytes (1, 2, 4
/// or 8; anything else is kInvalidArgument), copied bit for bit whatever
/// their type, and must be aligned to element_size. `out` may alias x or y
/// (not cond) when that input has the output's exact shape.
Error where(const std::uint8_t* cond, Span<const std::int64_t> cond_shape, const void* x,
            Span<const std::int64_t> x_shape, const void* y, Span<const std::int64_t> y_shape,
            std::size_t element_size, void* out);

// ---------------------------------------------------------------------------
// Cast.

/// ONNX Cast of `n` elements from type `from` at `x` to type `to` at `y`,
/// both among kFloat, kDouble, kLong, kInt, kBool, kByte (uint8) and kChar
/// (int8); any other type is kInvalidArgument. Conversions:
///   to kBool: x != 0 (so NaN -> 1);
///   from kBool: any nonzero byte -> 1, else 0;
///   floating -> integer: truncates toward zero like static_cast, but
///     saturates at the target's limits (+-inf included) and maps NaN to 0
///     instead of being undefined;
///   integer -> narrower integer: wraps modulo 2^bits (as static_cast in
///     C++20, NumPy astype and torch .to do);
///   -> float / double: nearest representable value (double -> float
///     overflows to +-inf).
/// `y == x` is allowed when both types have the same size (it is
/// kInvalidArgument otherwise); any other overlap is not. kInvalidArgument
/// for n < 0 or a null pointer with n > 0.
Error cast(const void* x, ScalarType from, void* y, ScalarType to, std::int64_t n);

}  // namespace glassbox::runtime::kernels

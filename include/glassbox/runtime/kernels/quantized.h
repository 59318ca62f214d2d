#pragma once
/// @file
/// Portable int8 / uint8 kernels with ONNX's QLinear* semantics, so that
/// results match ONNX Runtime's QuantizeLinear, DequantizeLinear,
/// QLinearConv, QLinearMatMul, QLinearAdd, QLinearMul,
/// QLinearAveragePool, QLinearGlobalAveragePool and QLinearConcat.
///
///   // uint8 activations, int8 weights quantized per output channel.
///   QuantInput x{x_data, ScalarType::kByte, 0.02f, 128};
///   QuantWeight w{w_data, ScalarType::kChar, {w_scales, oc}, {w_zps, oc}};
///   QuantOutput y{y_data, ScalarType::kByte, 0.05f, 120};
///   y.range = quantized_relu_range(y);     // optional fused ReLU
///   std::vector<std::uint8_t> scratch(
///       qlinear_conv2d_scratch_bytes(x_shape, w_shape, params));
///   ErrorInfo e = qlinear_conv2d(x, x_shape, w, w_shape, bias, params, y,
///                                scratch);
///
/// Quantization. A real value r is stored as an integer q with
///   r = (q - zero_point) * scale.
/// Activations are int8 (ScalarType::kChar, [-128, 127]) or uint8 (kByte,
/// [0, 255]); weights likewise; biases int32 with scale x_scale * w_scale
/// and zero point 0 (ONNX's rule). Scales must be finite and > 0, zero
/// points inside their type's range. Weights may be quantized per tensor
/// (one scale and zero point) or per output channel.
///
/// Rounding. Every float -> integer step is round-half-to-even of a
/// float32 value (2.5 -> 2, 3.5 -> 4, -2.5 -> -2), then saturation to the
/// output type (or to a narrower fused activation range, QuantRange). It is
/// exact whatever the FPU's rounding mode, because the value is first
/// clamped to the integer range and then rounded by adding and subtracting
/// 1.5 * 2^23 (the compiler must not use -ffast-math; it does not here).
///
/// Requantization (conv, matmul, linear, global average pool). The products
///   (x - x_zero_point) * (w - w_zero_point[oc])
/// are summed exactly in integers (int32 partial sums over at most 16384
/// terms, added in int64, so no K overflows), plus the int32 bias. The sum
/// `acc` is then turned into the output with a float32 multiplier:
///   m[oc] = x_scale * w_scale[oc] / y_scale           (float32 ops)
///   y     = clamp(round_half_even(float(acc) * m[oc]) + y_zero_point,
///               range.min, range.max)
/// which is what ONNX Runtime (MLAS) does. Against the exact value
/// quantize(acc * x_scale * w_scale / y_scale) computed in double, the
/// result differs by at most one step, and only where the exact value is
/// within a few float ulps of a .5 tie.
///
/// Errors. Every function returns `ErrorInfo` (kOk or kInvalidArgument with
/// a static message) for null pointers, bad shapes or types, non-positive
/// or non-finite scales, zero points out of range, per-channel counts that
/// match nothing, an empty activation range or short scratch. None throws,
/// allocates or aborts; outputs are untouched on error. Pointers are
/// borrowed for the call only; outputs must not overlap inputs unless a
/// function says otherwise.

#include <cstddef>
#include <cstdint>
#include <limits>

#include "glassbox/core/result.h"
#include "glassbox/core/scalar_type.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/pooling.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// One scale and zero point for a whole tensor (activations, outputs).
struct QuantParam {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
};

/// Per-tensor or per-axis quantization: `scales` holds 1 value (per
/// tensor) or one per index of the quantized axis. `zero_points` is empty
/// (all 0) or has as many entries as `scales`. Borrowed for the call.
struct QuantParams {
  Span<const float> scales;
  Span<const std::int32_t> zero_points;
};

/// A fused activation in the output's quantized domain: outputs are
/// clamped to [min, max] intersected with the output type's range. The
/// default is no clamp; ReLU is [y_zero_point, max] (quantized_relu_range).
struct QuantRange {
  std::int32_t min = std::numeric_limits<std::int32_t>::min();
  std::int32_t max = std::numeric_limits<std::int32_t>::max();
};

/// A quantized activation: `data` holds int8 (kChar) or uint8 (kByte)
/// values, `scale` and `zero_point` their per-tensor quantization.
struct QuantInput {
  const void* data = nullptr;
  ScalarType type = ScalarType::kChar;
  float scale = 1.0f;
  std::int32_t zero_point = 0;
};

/// A quantized output: type kChar or kByte, its quantization, and an
/// optional fused activation range.
struct QuantOutput {
  void* data = nullptr;
  ScalarType type = ScalarType::kChar;
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  QuantRange range{};
};

/// Constant int8 (kChar) or uint8 (kByte) weights with per-tensor or
/// per-output-channel quantization (conv: per OC; matmul/linear: per N).
struct QuantWeight {
  const void* data = nullptr;
  ScalarType type = ScalarType::kChar;
  QuantParams quant;
};

// ---------------------------------------------------------------------------
// Quantize / dequantize (quantize.cc).

/// ONNX QuantizeLinear: y = saturate(round_half_even(x / scale) + zp),
/// x / scale computed in float32 (a division, as ONNX Runtime does). NaN
/// counts as 0 (y = zp); +-inf saturate. `shape` is x's shape (rank
/// 0..kMaxDims); with one scale `axis` is ignored, otherwise scale i applies
/// to index i along `axis` (negative counts from the end) and their count
/// must equal that dim. `y_type` is kChar or kByte. y may not alias x.
[[nodiscard]] ErrorInfo quantize_linear(const float* x, Span<const std::int64_t> shape,
                                        QuantParams quant, std::int64_t axis, void* y,
                                        ScalarType y_type);

/// ONNX DequantizeLinear: y = float(x - zp) * scale, the difference exact
/// (taken in int64), one float32 rounding for the product. `x_type` is
/// kChar, kByte or kInt (int32, where any int32 zero point is accepted;
/// ONNX asks for 0). Shapes and axis as in quantize_linear.
[[nodiscard]] ErrorInfo dequantize_linear(const void* x, ScalarType x_type,
                                          Span<const std::int64_t> shape, QuantParams quant,
                                          std::int64_t axis, float* y);

/// [y_zero_point, +inf): ReLU fused into an output's quantized domain.
QuantRange quantized_relu_range(const QuantOutput& y);

/// The quantized image of the float interval [lo, hi] (ONNX Clip or ReLU6
/// fused into an output): [quantize(lo), quantize(hi)] with y's scale and
/// zero point, saturated to its type. kInvalidArgument unless lo <= hi and
/// y's type and quantization are valid. lo may be -inf and hi +inf.
[[nodiscard]] Result<QuantRange> quantized_clamp_range(const QuantOutput& y, float lo, float hi);

// ---------------------------------------------------------------------------
// Convolution (qconv.cc).

/// Scratch bytes qlinear_conv2d needs (0 for invalid shapes): an im2col
/// tile of 32 output pixels and a tile of 16 filters, each K int16 values
/// long (K = C/groups * KH * KW), so 96 * K bytes (under 1 MiB below
/// K = 10922). Depthwise layers (weight.c == 1) use none of it.
std::size_t qlinear_conv2d_scratch_bytes(Shape4 x_shape, Shape4 w_shape,
                                         const Conv2dParams& params);

/// ONNX QLinearConv, NCHW, with conv2d's shapes and parameters (conv.h:
/// weight [OC, C/groups, KH, KW], asymmetric pads, stride, dilation,
/// groups, depthwise). Output shape is conv2d_output_shape(). For output
/// channel oc:
///   acc = bias[oc] + sum over the window of (x - x_zp) * (w - w_zp[oc])
/// where padded positions read x_zp (so they add 0), then requantized as
/// described at the top with m[oc] = x_scale * w_scale[oc] / y_scale.
/// `bias` is null or OC int32 values. w.quant has 1 or OC entries. x and y
/// may differ in type (e.g. uint8 in, int8 out), w may be either type.
/// `scratch` must hold qlinear_conv2d_scratch_bytes() bytes (any
/// alignment); used only during the call.
[[nodiscard]] ErrorInfo qlinear_conv2d(const QuantInput& x, Shape4 x_shape, const QuantWeight& w,
                                       Shape4 w_shape, const std::int32_t* bias,
                                       const Conv2dParams& params, const QuantOutput& y,
                                       Span<std::uint8_t> scratch);

// ---------------------------------------------------------------------------
// Matrix products (qgemm.cc).

/// Scratch bytes qlinear_matmul / qlinear_linear need for inner size k
/// (a 64 x k int16 tile of the weights and one k-long row of a).
std::size_t qlinear_matmul_scratch_bytes(std::int64_t k);

/// ONNX QLinearMatMul with a constant 2-D b: a is [..., M, K] (rank
/// 1..kMaxDims; rank 1 is one row), b is [K, N], out is [..., M, N]
/// (a's leading dims kept, batch dims broadcast against b's none).
///   acc[m][n] = bias[n] + sum_k (a[m][k] - a_zp) * (b[k][n] - b_zp[n])
/// then requantized with m[n] = a_scale * b_scale[n] / y_scale. `bias` is
/// null or N int32 values (ONNX MatMulInteger + bias fusions); b.quant has
/// 1 or N entries.
[[nodiscard]] ErrorInfo qlinear_matmul(const QuantInput& a, Span<const std::int64_t> a_shape,
                                       const QuantWeight& b, Span<const std::int64_t> b_shape,
                                       const std::int32_t* bias, const QuantOutput& y,
                                       Span<std::uint8_t> scratch);

/// The same with the weight stored [N, K] (PyTorch Linear, ONNX Gemm with
/// transB = 1): x is [M, K], y is [M, N],
///   acc[m][n] = bias[n] + sum_k (x[m][k] - x_zp) * (w[n][k] - w_zp[n]).
[[nodiscard]] ErrorInfo qlinear_linear(const QuantInput& x, std::int64_t m, std::int64_t k,
                                       const QuantWeight& w, std::int64_t n,
                                       const std::int32_t* bias, const QuantOutput& y,
                                       Span<std::uint8_t> scratch);

// ---------------------------------------------------------------------------
// Element-wise (qelementwise.cc).

/// ONNX Runtime's QLinearAdd / QLinearMul with NumPy broadcasting (shape.h
/// broadcast_shapes; out has the broadcast shape). Computed in float32 from
/// the integer differences, as MLAS does:
///   add: y = q(float(a - a_zp) * (a_scale / y_scale)
///            + float(b - b_zp) * (b_scale / y_scale))
///   mul: y = q(float((a - a_zp) * (b - b_zp))
///            * (a_scale * b_scale / y_scale))
/// with q(v) = clamp(round_half_even(v) + y_zp, range), the ratios
/// rounded to float32 once per call. The product in mul is exact (int32).
/// a, b and y must have one type (ONNX's T), each its own scale and zero
/// point; y may alias a or b when that input has the output's shape.
[[nodiscard]] ErrorInfo qlinear_add(const QuantInput& a, Span<const std::int64_t> a_shape,
                                    const QuantInput& b, Span<const std::int64_t> b_shape,
                                    const QuantOutput& y);
[[nodiscard]] ErrorInfo qlinear_mul(const QuantInput& a, Span<const std::int64_t> a_shape,
                                    const QuantInput& b, Span<const std::int64_t> b_shape,
                                    const QuantOutput& y);

/// y = clamp(x, range) on n raw int8/uint8 values of `type`, one
/// quantization for x and y (ReLU is quantized_relu_range(), Clip is
/// quantized_clamp_range()). y may equal x.
[[nodiscard]] ErrorInfo quantized_clamp(const void* x, ScalarType type, std::int64_t n,
                                        QuantRange range, void* y);

/// A float unary kernel such as kernels::sigmoid or kernels::hardswish
/// (elementwise.h), applied through a lookup table.
using UnaryFloatKernel = Error (*)(const float* x, float* y, std::int64_t n);

/// Fills `lut` (256 bytes) with y = quantize_y(fn(dequantize_x(v))) for
/// every input value v of x's type, indexed by v's byte (lut[uint8_t(v)]);
/// each entry holds the output's bits. fn runs once over the 256 values,
/// on the stack; quantize is saturating round-half-to-even (NaN -> zp).
/// `x.data` and `y.data` are not read; `y.range` applies.
[[nodiscard]] ErrorInfo build_quant_lut(UnaryFloatKernel fn, const QuantInput& x,
                                        const QuantOutput& y, Span<std::uint8_t> lut);

/// y[i] = lut[uint8_t(x[i])] for n one-byte values (x's and y's types are
/// the table's). y may equal x. `lut` holds 256 bytes.
[[nodiscard]] ErrorInfo apply_quant_lut(const void* x, std::int64_t n, Span<const std::uint8_t> lut,
                                        void* y);

// ---------------------------------------------------------------------------
// Pooling and concat (qpool.cc).

/// ONNX Runtime's QLinearAveragePool with pooling.h's window rules
/// (pool2d_output_shape; dilation must be 1). Per window:
///   sum = sum of (x - x_zp) over its in-bounds elements (int32),
///   y   = q(float(sum) * (x_scale / (y_scale * float(divisor))))
/// with avg_pool2d's divisor (count_include_pad; a window with no
/// in-bounds element gives y_zp). x and y have one type, each its own
/// scale and zero point. kInvalidArgument also for dilation != 1 or a
/// window of more than 2^20 elements (the int32 sum's bound).
[[nodiscard]] ErrorInfo qlinear_avg_pool2d(const QuantInput& x, Shape4 x_shape,
                                           const Pool2dParams& params, const QuantOutput& y);

/// QLinearGlobalAveragePool: y[n][c] = q(float(sum over H, W of (x - x_zp))
///   * (x_scale / (y_scale * float(H * W)))), the sum in int64. x and y
/// have one type, each its own scale and zero point.
[[nodiscard]] ErrorInfo qlinear_global_avg_pool2d(const QuantInput& x, Shape4 x_shape,
                                                  const QuantOutput& y);

/// MaxPool on raw int8/uint8 values (no requantization: max commutes with
/// a monotone quantization), same parameters and output shape as
/// max_pool2d including dilation and ceil_mode. A window with no
/// in-bounds element gives the type's minimum.
[[nodiscard]] ErrorInfo quantized_max_pool2d(const void* x, ScalarType type, Shape4 x_shape,
                                             const Pool2dParams& params, void* y);

/// One input of qlinear_concat: its values, quantization and shape.
struct QuantConcatInput {
  QuantInput x;
  Span<const std::int64_t> shape;
};

/// QLinearConcat: the inputs, all of y's type, same rank (1..kMaxDims) and
/// sizes except along `axis` (negative counts from the end), placed in
/// order along `axis`. An input with y's scale and zero point is copied;
/// any other is requantized element-wise:
///   y = q(float(x - x_zp) * (x_scale / y_scale)).
/// y.range applies to every element (so an input is a plain copy only when
/// the range does not narrow y's type).
[[nodiscard]] ErrorInfo qlinear_concat(Span<const QuantConcatInput> inputs, std::int64_t axis,
                                       const QuantOutput& y);

}  // namespace glassbox::runtime::kernels

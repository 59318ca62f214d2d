// quantize_linear and dequantize_linear: x, scale, zero point (optional for
// dequantize) -> y, per tensor or per axis (kernels/quantized.h). Scales and
// zero points may be computed at run time (DynamicQuantizeLinear), so the
// kernel checks their values on every call; prepare checks the types and
// shapes, and sizes the scratch that holds the zero points as int32.

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kQuantize = "quantize_linear";
constexpr const char* kDequantize = "dequantize_linear";

bool is_quantized(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }

// Scale [] / [1] (per tensor) or [C] with C = x.sizes[axis]; the zero point,
// when present, of the scale's shape and `zp_type`.
bool check_quant_params(const char* op, const KernelArgs& args, ScalarType zp_type,
                        Diagnostics* d) {
  const Tensor& x = *args.inputs[0];
  const Tensor& scale = *args.inputs[1];
  if (!check_dtype(op, scale, "input 1 (scale)", ScalarType::kFloat, d)) return false;
  if (scale.sizes.size() > 1 || scale.numel() < 1) {
    report(d, "%s: scale %s must be a scalar or 1-D and not empty", op,
           shape_text(scale.sizes).text);
    return false;
  }
  std::int64_t axis = 1;
  if (!read_int(op, args, "axis", 1, &axis, d)) return false;
  if (scale.numel() > 1) {
    const auto rank = static_cast<std::int64_t>(x.sizes.size());
    if (axis < -rank || axis >= rank) {
      report(d, "%s: axis %lld out of range for rank %lld", op, static_cast<long long>(axis),
             static_cast<long long>(rank));
      return false;
    }
    const std::int64_t dim = x.sizes[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)];
    if (dim != scale.numel()) {
      report(d, "%s: %lld scales for an axis of size %lld", op,
             static_cast<long long>(scale.numel()), static_cast<long long>(dim));
      return false;
    }
  }
  if (args.inputs.size() < 3) return true;
  const Tensor& zp = *args.inputs[2];
  if (!check_dtype(op, zp, "input 2 (zero point)", zp_type, d)) return false;
  if (zp.numel() != scale.numel()) {
    report(d, "%s: zero point %s does not match scale %s", op, shape_text(zp.sizes).text,
           shape_text(scale.sizes).text);
    return false;
  }
  return true;
}

// The zero points as int32 in `scratch` (which prepare sized for them).
Span<const std::int32_t> zero_points(const KernelArgs& args, Span<std::uint8_t> scratch) {
  if (args.inputs.size() < 3) return {};
  const Tensor& zp = *args.inputs[2];
  const auto n = static_cast<std::size_t>(zp.numel());
  auto* out = reinterpret_cast<std::int32_t*>(scratch.data());
  for (std::size_t i = 0; i < n; ++i) {
    switch (zp.dtype) {
      case ScalarType::kChar: out[i] = static_cast<const std::int8_t*>(zp.data)[i]; break;
      case ScalarType::kByte: out[i] = static_cast<const std::uint8_t*>(zp.data)[i]; break;
      default: out[i] = static_cast<const std::int32_t*>(zp.data)[i]; break;
    }
  }
  return {out, n};
}

std::size_t zero_point_bytes(const KernelArgs& args) {
  return args.inputs.size() < 3
             ? 0
             : static_cast<std::size_t>(args.inputs[2]->numel()) * sizeof(std::int32_t);
}

kernels::QuantParams quant_params(const KernelArgs& args, Span<std::uint8_t> scratch) {
  const Tensor& scale = *args.inputs[1];
  return {{scale.float_data(), static_cast<std::size_t>(scale.numel())},
          zero_points(args, scratch)};
}

std::int64_t axis_of(const KernelArgs& args) {
  std::int64_t axis = 1;
  (void)read_int(kQuantize, args, "axis", 1, &axis, nullptr);  // Checked by prepare.
  return axis;
}

Error to_error(ErrorInfo e) { return e.code; }

}  // namespace

Result<std::size_t> prepare_quantize_linear(const KernelArgs& args, Diagnostics* d) {
  if (!check_typed_signature(kQuantize, args, 3, 3, d) ||
      !check_dtype(kQuantize, *args.inputs[0], "input 0", ScalarType::kFloat, d) ||
      !check_rank_limit(kQuantize, args, d)) {
    return kRejected;
  }
  const ScalarType type = args.inputs[2]->dtype;
  if (!is_quantized(type)) {
    report(d, "%s: zero point has dtype %s, expected CHAR (int8) or BYTE (uint8)", kQuantize,
           to_string(type).data());
    return kRejected;
  }
  if (!check_quant_params(kQuantize, args, type, d) ||
      !check_dtype(kQuantize, *args.outputs[0], "output", type, d) ||
      !check_output_shape(kQuantize, args, args.inputs[0]->sizes, d) ||
      !check_no_overlap(kQuantize, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return zero_point_bytes(args);
}

Error run_quantize_linear(const KernelArgs& args, Span<std::uint8_t> scratch) {
  const Tensor& x = *args.inputs[0];
  const Tensor& y = *args.outputs[0];
  return to_error(kernels::quantize_linear(x.float_data(), x.sizes, quant_params(args, scratch),
                                           axis_of(args), y.data, y.dtype));
}

Result<std::size_t> prepare_dequantize_linear(const KernelArgs& args, Diagnostics* d) {
  if (!check_typed_signature(kDequantize, args, 2, 3, d) ||
      !check_rank_limit(kDequantize, args, d)) {
    return kRejected;
  }
  const ScalarType type = args.inputs[0]->dtype;
  if (!is_quantized(type) && type != ScalarType::kInt) {
    report(d, "%s: input 0 has dtype %s, expected CHAR (int8), BYTE (uint8) or INT (int32)",
           kDequantize, to_string(type).data());
    return kRejected;
  }
  if (!check_quant_params(kDequantize, args, type, d) ||
      !check_dtype(kDequantize, *args.outputs[0], "output", ScalarType::kFloat, d) ||
      !check_output_shape(kDequantize, args, args.inputs[0]->sizes, d) ||
      !check_no_overlap(kDequantize, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return zero_point_bytes(args);
}

Error run_dequantize_linear(const KernelArgs& args, Span<std::uint8_t> scratch) {
  const Tensor& x = *args.inputs[0];
  const Tensor& y = *args.outputs[0];
  return to_error(kernels::dequantize_linear(x.data, x.dtype, x.sizes, quant_params(args, scratch),
                                             axis_of(args), y.float_data()));
}

}  // namespace glassbox::runtime::portable

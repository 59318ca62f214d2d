// Quantization, both of ONNX's forms:
// - QDQ: QuantizeLinear and DequantizeLinear (opsets 10-21), per tensor or
//   per axis, int8 or uint8 (int32 for dequantized biases), become the IR's
//   quantize_linear and dequantize_linear. A DequantizeLinear of constant
//   int8 weights stays a node (it is not folded into float weights), so a
//   delegate can take the weights as int8.
// - QOperator: QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger and
//   DynamicQuantizeLinear become the same QDQ pattern around the float op
//   (dequantize, op, quantize), which is what they compute: one source node,
//   several IR nodes sharing its debug handle.
// Constant scales and zero points are checked here, so a bad one is named
// with its node; run-time ones are checked by the kernels.

#include <onnx/onnx_pb.h>

#include <cmath>
#include <optional>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;
using ::onnx::TensorProto;

bool is_quantized(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }

// The ONNX element type name of a quantized runtime dtype.
std::string quantized_name(ScalarType t) {
  return t == ScalarType::kChar ? "int8" : t == ScalarType::kByte ? "uint8" : "int32";
}

// A constant scale: float, every element positive and finite.
Status check_scale(ImportContext& c, std::size_t input, const char* what) {
  if (!c.has_input(input)) return c.invalid(std::string(what) + " is missing");
  if (!c.is_host(input)) return Status();  // Checked by the kernel at run time.
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* scale, c.host_input(input, what));
  if (!scale->is_float) return c.invalid(std::string(what) + " must be a float tensor");
  if (scale->shape.size() > 1) {
    return c.invalid(std::string(what) +
                     " must be a scalar or 1-D (blocked quantization is "
                     "not supported)");
  }
  for (std::size_t i = 0; i < scale->floats.size(); ++i) {
    const float v = scale->floats[i];
    if (!(v > 0.0f) || !std::isfinite(v)) {
      return c.invalid(std::string(what) + " element " + std::to_string(i) + " is " +
                       std::to_string(v) + "; scales must be positive and finite");
    }
  }
  return Status();
}

// The quantized type a zero point input declares (a constant's ONNX element
// type, or a run-time value's dtype), checked against `allowed`.
StatusOr<ScalarType> zero_point_type(ImportContext& c, std::size_t input, bool allow_int32) {
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType type, c.declared_type(input));
  if (is_quantized(type) || (allow_int32 && type == ScalarType::kInt)) return type;
  return c.unsupported("zero point of type " + std::string(to_string(type)) +
                       " is not supported (int8 or uint8" + (allow_int32 ? ", or int32" : "") +
                       ")");
}

// Input `i` as a graph value of `type`, which it was declared with: a
// constant keeps it, a LONG graph input (the importer's reading of int8 and
// uint8 inputs) is cast to it.
StatusOr<ValueId> narrow_input(ImportContext& c, std::size_t i, ScalarType type) {
  if (c.is_host(i)) return c.int_value_input(i, type);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(i));
  const ScalarType dtype = c.writer().type_of(x).dtype;
  if (dtype == type) return x;
  if (dtype == ScalarType::kLong) {
    return c.emit(aot::op::kCast, {x}, {{"dtype", static_cast<std::int64_t>(type)}},
                  "input" + std::to_string(i) + "_to_" + quantized_name(type));
  }
  return c.invalid("input " + std::to_string(i) + " has dtype " + std::string(to_string(dtype)) +
                   ", expected " + quantized_name(type));
}

// A constant of `type`'s zero (zero point absent) with the scale's shape.
ValueId zero_constant(ImportContext& c, const Shape& scale_shape, ScalarType type) {
  std::int64_t n = 1;
  for (std::int64_t d : scale_shape) n *= d;
  HostTensor zero = HostTensor::of_ints(scale_shape, std::vector<std::int64_t>(n, 0));
  return c.writer().add_int_constant(c.node().name() + "/zero_point", zero, type);
}

// The "axis" attribute, which per-axis scales need (opset 13 on).
StatusOr<aot::AttributeMap> axis_attribute(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, c.attributes().get_int("axis", 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t block, c.attributes().get_int("block_size", 0));
  if (block != 0) return c.unsupported("blocked quantization (block_size) is not supported");
  return aot::AttributeMap{{"axis", axis}};
}

// Scale and zero point of a quantize/dequantize with inputs (x, scale, zp?)
// at `first` (1 for QuantizeLinear's y_scale), as graph values; the zero
// point is made when absent, of `default_type`.
struct QuantParams {
  ValueId scale;
  ValueId zero_point;
  ScalarType type;
};

StatusOr<QuantParams> quant_params(ImportContext& c, std::size_t first, ScalarType default_type,
                                   bool allow_int32) {
  GLASSBOX_RETURN_IF_ERROR(check_scale(c, first, "scale"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId scale, c.value_input(first));
  const Shape scale_shape = c.writer().type_of(scale).shape;
  // QuantizeLinear/DequantizeLinear before opset 13 take one scale; the
  // QOperator ops (QLinearConv's weights) have always allowed per channel.
  const bool qdq_node =
      c.node().op_type() == "QuantizeLinear" || c.node().op_type() == "DequantizeLinear";
  if (qdq_node && c.opset() < 13 && !scale_shape.empty() && scale_shape != Shape{1}) {
    return c.invalid("a per-axis scale " + std::to_string(scale_shape[0]) +
                     " long needs opset 13 (opset " + std::to_string(c.opset()) +
                     " quantizes per tensor only)");
  }
  if (!c.has_input(first + 1)) {
    return QuantParams{scale, zero_constant(c, scale_shape, default_type), default_type};
  }
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType type, zero_point_type(c, first + 1, allow_int32));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId zp, narrow_input(c, first + 1, type));
  if (type == ScalarType::kInt && c.is_host(first + 1)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* host, c.host_input(first + 1, "zero point"));
    for (std::int64_t v : host->ints) {
      if (v != 0) return c.invalid("an int32 zero point must be 0, got " + std::to_string(v));
    }
  }
  return QuantParams{scale, zp, type};
}

// Input `i` (quantized data) as a graph value of its zero point's `type`,
// which it must have been declared with.
StatusOr<ValueId> quantized_input(ImportContext& c, std::size_t i, ScalarType type) {
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType declared, c.declared_type(i));
  if (declared != type) {
    return c.invalid("input " + std::to_string(i) + " is " + std::string(to_string(declared)) +
                     " but its zero point is " + quantized_name(type) +
                     "; they must have one type");
  }
  return narrow_input(c, i, type);
}

// DequantizeLinear of inputs (x, scale, zp?) starting at `first`.
StatusOr<ValueId> dequantize(ImportContext& c, std::size_t first, aot::AttributeMap axis,
                             std::string_view step) {
  // Without a zero point the data's own type decides (int8, uint8, int32).
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType data_type, c.declared_type(first));
  GLASSBOX_ASSIGN_OR_RETURN(QuantParams q, quant_params(c, first + 1, data_type, true));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, quantized_input(c, first, q.type));
  return c.emit_unfolded(aot::op::kDequantizeLinear, {x, q.scale, q.zero_point}, std::move(axis),
                         step);
}

// QuantizeLinear of float `x` with (scale, zp?) at input `first`.
StatusOr<ValueId> quantize(ImportContext& c, ValueId x, std::size_t first, ScalarType default_type,
                           aot::AttributeMap axis, std::string_view step) {
  GLASSBOX_ASSIGN_OR_RETURN(QuantParams q, quant_params(c, first, default_type, false));
  if (!is_quantized(q.type)) return c.unsupported("quantizing to int32 is not supported");
  return c.emit(aot::op::kQuantizeLinear, {x, q.scale, q.zero_point}, std::move(axis), step);
}

Status convert_quantize_linear(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  if (c.writer().type_of(x).dtype != ScalarType::kFloat) {
    return c.invalid("the input to quantize must be float");
  }
  // opset 21's output_dtype names the type when no zero point is given;
  // ONNX's default is uint8.
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t out_type,
                            c.attributes().get_int("output_dtype", TensorProto::UINT8));
  ScalarType type = ScalarType::kByte;
  if (out_type == TensorProto::INT8) {
    type = ScalarType::kChar;
  } else if (out_type != TensorProto::UINT8 && out_type != 0) {
    return c.unsupported("output_dtype " + data_type_name(static_cast<int>(out_type)) +
                         " is not supported (int8 or uint8)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(aot::AttributeMap axis, axis_attribute(c));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, quantize(c, x, 1, type, std::move(axis), ""));
  c.set_output(0, y);
  return Status();
}

Status convert_dequantize_linear(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(aot::AttributeMap axis, axis_attribute(c));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, dequantize(c, 0, std::move(axis), ""));
  c.set_output(0, y);
  return Status();
}

// QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?):
// dequantize x, w (per output channel when w_scale is 1-D) and the int32
// bias (scale x_scale * w_scale, zero point 0), convolve, quantize.
Status convert_qlinear_conv(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, dequantize(c, 0, {{"axis", 1}}, "x"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId w, dequantize(c, 3, {{"axis", 0}}, "w"));
  std::vector<ValueId> inputs{x, w};
  if (c.has_input(8)) {
    if (c.is_host(8)) {
      GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* host, c.host_input(8, "bias"));
      if (host->is_float || host->declared_int_type != ScalarType::kInt) {
        return c.invalid("the bias must be int32");
      }
    }
    GLASSBOX_ASSIGN_OR_RETURN(ValueId b, narrow_input(c, 8, ScalarType::kInt));
    if (c.writer().type_of(b).dtype != ScalarType::kInt) {
      return c.invalid("the bias must be int32");
    }
    GLASSBOX_ASSIGN_OR_RETURN(ValueId x_scale, c.value_input(1));
    GLASSBOX_ASSIGN_OR_RETURN(ValueId w_scale, c.value_input(4));
    GLASSBOX_ASSIGN_OR_RETURN(ValueId b_scale,
                              c.emit(aot::op::kMul, {x_scale, w_scale}, {}, "bias_scale"));
    GLASSBOX_ASSIGN_OR_RETURN(ValueId bias, c.emit_unfolded(aot::op::kDequantizeLinear,
                                                            {b, b_scale}, {{"axis", 0}}, "b"));
    inputs.push_back(bias);
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_conv(c, std::move(inputs)));
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType out_type, zero_point_type(c, 7, false));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId q, quantize(c, y, 6, out_type, {{"axis", 1}}, "y"));
  c.set_output(0, q);
  return Status();
}

// QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
Status convert_qlinear_matmul(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, dequantize(c, 0, {{"axis", 1}}, "a"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape b_shape, c.input_shape(3));
  // A per-column b scale is per its last axis.
  const auto b_axis = static_cast<std::int64_t>(b_shape.empty() ? 0 : b_shape.size() - 1);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId b, dequantize(c, 3, {{"axis", b_axis}}, "b"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_matmul(c, a, b));
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType out_type, zero_point_type(c, 7, false));
  const auto y_axis =
      static_cast<std::int64_t>(std::max<std::size_t>(c.writer().type_of(y).shape.size(), 1) - 1);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId q, quantize(c, y, 6, out_type, {{"axis", y_axis}}, "y"));
  c.set_output(0, q);
  return Status();
}

// Integer input `i` minus its zero point (input `zp`, optional), as float:
// dequantize_linear with scale 1. Exact: int8 differences are small
// integers, which float holds exactly.
StatusOr<ValueId> integer_as_float(ImportContext& c, std::size_t i, std::size_t zp,
                                   std::int64_t axis, std::string_view step) {
  ScalarType type = ScalarType::kByte;
  if (c.has_input(zp)) {
    GLASSBOX_ASSIGN_OR_RETURN(type, zero_point_type(c, zp, false));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(type, c.declared_type(i));
  }
  if (!is_quantized(type)) {
    return c.unsupported("input " + std::to_string(i) + " of type " + std::string(to_string(type)) +
                         " is not supported (int8 or uint8)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, quantized_input(c, i, type));
  Shape zp_shape;
  ValueId zero;
  if (c.has_input(zp)) {
    GLASSBOX_ASSIGN_OR_RETURN(zero, narrow_input(c, zp, type));
    zp_shape = c.writer().type_of(zero).shape;
  } else {
    zero = zero_constant(c, {}, type);
  }
  std::int64_t n = 1;
  for (std::int64_t d : zp_shape) n *= d;
  const ValueId one = c.add_constant(std::string(step) + "_unit_scale", zp_shape,
                                     std::vector<float>(static_cast<std::size_t>(n), 1.0f));
  return c.emit_unfolded(aot::op::kDequantizeLinear, {x, one, zero}, {{"axis", axis}}, step);
}

// ConvInteger (x, w, x_zp?, w_zp?) and MatMulInteger (a, b, a_zp?, b_zp?):
// the float op on the zero-point-corrected inputs, cast to int32. Exact
// while every sum stays below 2^24 in magnitude; above, float rounds the
// int32 result by a few units in 10^7.
Status convert_conv_integer(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, integer_as_float(c, 0, 2, 1, "x"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId w, integer_as_float(c, 1, 3, 0, "w"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_conv(c, {x, w}));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId out,
      c.emit(aot::op::kCast, {y}, {{"dtype", static_cast<std::int64_t>(ScalarType::kInt)}}));
  c.set_output(0, out);
  return Status();
}

Status convert_matmul_integer(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, integer_as_float(c, 0, 2, 0, "a"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape b_shape, c.input_shape(1));
  const auto b_axis = static_cast<std::int64_t>(b_shape.empty() ? 0 : b_shape.size() - 1);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId b, integer_as_float(c, 1, 3, b_axis, "b"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_matmul(c, a, b));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId out,
      c.emit(aot::op::kCast, {y}, {{"dtype", static_cast<std::int64_t>(ScalarType::kInt)}}));
  c.set_output(0, out);
  return Status();
}

// DynamicQuantizeLinear (x) -> (y uint8, y_scale, y_zero_point), ONNX's
// formula with the range widened to include 0:
//   scale = (max(0, max x) - min(0, min x)) / 255
//   zero_point = saturate(round(0 - min(0, min x) / scale))
// A tensor of zeros has scale 0 in ONNX; here the scale is floored at the
// smallest normal float so that quantize_linear's scale check holds and
// every element still quantizes to the zero point.
Status convert_dynamic_quantize_linear(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  if (c.writer().type_of(x).dtype != ScalarType::kFloat) {
    return c.invalid("the input to quantize must be float");
  }
  // Over every axis (an empty list means none in the IR, so list them).
  Shape axes(c.writer().type_of(x).shape.size());
  for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<std::int64_t>(i);
  const aot::AttributeMap reduce_all{{"axes", axes}, {"keepdims", std::int64_t{0}}};
  const ValueId zero = c.add_constant("zero", {}, {0.0f});
  GLASSBOX_ASSIGN_OR_RETURN(ValueId hi, c.emit(aot::op::kReduceMax, {x}, reduce_all, "max"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId lo, c.emit(aot::op::kReduceMin, {x}, reduce_all, "min"));
  GLASSBOX_ASSIGN_OR_RETURN(hi, c.emit(aot::op::kMax, {hi, zero}, {}, "max0"));
  GLASSBOX_ASSIGN_OR_RETURN(lo, c.emit(aot::op::kMin, {lo, zero}, {}, "min0"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId range, c.emit(aot::op::kSub, {hi, lo}, {}, "range"));
  const ValueId levels = c.add_constant("levels", {}, {255.0f});
  GLASSBOX_ASSIGN_OR_RETURN(ValueId scale, c.emit(aot::op::kDiv, {range, levels}, {}, "scale"));
  GLASSBOX_ASSIGN_OR_RETURN(
      scale, c.emit(aot::op::kClamp, {scale}, {{"min", 1.17549435e-38}}, "scale_floor"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId zp, c.emit(aot::op::kDiv, {lo, scale}, {}, "zp_real"));
  GLASSBOX_ASSIGN_OR_RETURN(zp, c.emit(aot::op::kNeg, {zp}, {}, "zp_neg"));
  GLASSBOX_ASSIGN_OR_RETURN(zp, c.emit(aot::op::kRound, {zp}, {}, "zp_round"));
  GLASSBOX_ASSIGN_OR_RETURN(
      zp, c.emit(aot::op::kClamp, {zp}, {{"min", 0.0}, {"max", 255.0}}, "zp_clamp"));
  GLASSBOX_ASSIGN_OR_RETURN(
      zp, c.emit(aot::op::kCast, {zp}, {{"dtype", static_cast<std::int64_t>(ScalarType::kByte)}},
                 "zero_point"));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kQuantizeLinear, {x, scale, zp}, {{"axis", std::int64_t{1}}}));
  c.set_output(0, y);
  c.set_output(1, scale);
  c.set_output(2, zp);
  return Status();
}

}  // namespace

void add_quantization_converters(ConverterTable* table) {
  table->emplace("QuantizeLinear", convert_quantize_linear);
  table->emplace("DequantizeLinear", convert_dequantize_linear);
  table->emplace("QLinearConv", convert_qlinear_conv);
  table->emplace("QLinearMatMul", convert_qlinear_matmul);
  table->emplace("ConvInteger", convert_conv_integer);
  table->emplace("MatMulInteger", convert_matmul_integer);
  table->emplace("DynamicQuantizeLinear", convert_dynamic_quantize_linear);
}

}  // namespace glassbox::frontends::onnx

// Type inference of the quantization ops (quantize_linear,
// dequantize_linear): ONNX QuantizeLinear/DequantizeLinear with the scale
// and zero point as inputs, per tensor or per axis.

#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {
namespace {

bool is_quantized_type(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }

// Per tensor: a scale of one element ([] or [1]). Per axis: a [C] scale
// where C is the input's size along `axis`. The zero point, when given,
// has the scale's shape.
Status check_quant_params(std::string_view op, std::span<const TensorType> in,
                          const AttributeMap& attrs) {
  const TensorType& x = in[0];
  const TensorType& scale = in[1];
  const bool per_tensor = scale.shape.empty() || scale.shape == Shape{1};
  if (!per_tensor) {
    if (scale.shape.size() != 1) {
      return invalid(std::string(op) + " scale must be a scalar or 1-D, got " +
                     shape_string(scale.shape));
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, int_attr_or(attrs, "axis", 1));
    GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis,
                              axis_in(axis_attr, x.shape.size(), std::string(op) + " axis"));
    if (scale.shape[0] != x.shape[axis]) {
      return invalid(std::string(op) + " has " + std::to_string(scale.shape[0]) +
                     " scales for axis " + std::to_string(axis) + " of size " +
                     std::to_string(x.shape[axis]) + " in " + shape_string(x.shape));
    }
  }
  if (in.size() == 3 && in[2].shape != scale.shape) {
    return invalid(std::string(op) + " zero point shape " + shape_string(in[2].shape) +
                   " does not match the scale's " + shape_string(scale.shape));
  }
  return Status();
}

Status dtype_error(std::string_view op, std::string_view what, ScalarType got,
                   std::string_view want) {
  return invalid(std::string(op) + " " + std::string(what) + " has dtype " +
                 std::string(to_string(got)) + ", expected " + std::string(want));
}

}  // namespace

StatusOr<TensorType> infer_quantization(std::string_view op, std::span<const TensorType> in,
                                        const AttributeMap& attrs) {
  if (in[1].dtype != ScalarType::kFloat) return dtype_error(op, "scale", in[1].dtype, "FLOAT");
  if (op == op::kQuantizeLinear) {
    if (in[0].dtype != ScalarType::kFloat) return dtype_error(op, "input", in[0].dtype, "FLOAT");
    if (!is_quantized_type(in[2].dtype)) {
      return dtype_error(op, "zero point", in[2].dtype, "CHAR (int8) or BYTE (uint8)");
    }
    GLASSBOX_RETURN_IF_ERROR(check_quant_params(op, in, attrs));
    return TensorType{in[2].dtype, in[0].shape};
  }
  // dequantize_linear: int8, uint8 or int32 (biases) in, float out.
  if (!is_quantized_type(in[0].dtype) && in[0].dtype != ScalarType::kInt) {
    return dtype_error(op, "input", in[0].dtype, "CHAR (int8), BYTE (uint8) or INT (int32)");
  }
  if (in.size() == 3 && in[2].dtype != in[0].dtype) {
    return dtype_error(op, "zero point", in[2].dtype, to_string(in[0].dtype));
  }
  GLASSBOX_RETURN_IF_ERROR(check_quant_params(op, in, attrs));
  return TensorType{ScalarType::kFloat, in[0].shape};
}

}  // namespace glassbox::aot::ops_internal

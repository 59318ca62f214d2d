// Elementwise ONNX ops beyond the original set: float activations, the
// comparison and logical ops, Pow/Min/Max/Mod/PRelu, Where and Cast. Each
// emits one IR op of ops.h; inputs known at import are folded by
// ImportContext::emit through the same kernels.

#include <onnx/onnx_pb.h>

#include <optional>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;

template <const std::string_view& kOp>
Status convert_unary(ImportContext& c) {
  return emit_unary(c, kOp);
}

// Neg of an int64 tensor (shape arithmetic in ONNX's expanded functions):
// 0 - x, as the float kernel does not take LONG.
Status convert_neg(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  if (c.writer().type_of(x).dtype != ScalarType::kLong) return emit_unary(c, aot::op::kNeg);
  const ValueId zero = c.add_constant("zero", HostTensor::of_ints({}, {0}));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kSub, {zero, x}));
  c.set_output(0, y);
  return Status();
}

// The two inputs brought to one dtype: an int64 constant next to a float
// tensor (PyTorch writes `x ** 2` with an int exponent) becomes float.
StatusOr<std::pair<ValueId, ValueId>> operand_pair(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId b, c.value_input(1));
  const ScalarType ta = c.writer().type_of(a).dtype;
  const ScalarType tb = c.writer().type_of(b).dtype;
  if (ta == tb) return std::make_pair(a, b);
  const std::int64_t to_float = static_cast<std::int64_t>(ScalarType::kFloat);
  if (ta == ScalarType::kFloat) {
    GLASSBOX_ASSIGN_OR_RETURN(b, c.emit(aot::op::kCast, {b}, {{"dtype", to_float}}, "b_float"));
  } else if (tb == ScalarType::kFloat) {
    GLASSBOX_ASSIGN_OR_RETURN(a, c.emit(aot::op::kCast, {a}, {{"dtype", to_float}}, "a_float"));
  }
  return std::make_pair(a, b);
}

Status emit_binary(ImportContext& c, std::string_view op, aot::AttributeMap attributes = {}) {
  GLASSBOX_ASSIGN_OR_RETURN(auto operands, operand_pair(c));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(op, {operands.first, operands.second}, std::move(attributes)));
  c.set_output(0, y);
  return Status();
}

template <const std::string_view& kOp>
Status convert_binary(ImportContext& c) {
  return emit_binary(c, kOp);
}

// Min and Max take one or more inputs: a chain of binary ops.
template <const std::string_view& kOp>
Status convert_variadic(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId acc, c.value_input(0));
  for (std::size_t i = 1; i < c.num_inputs(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId next, c.value_input(i));
    const bool last = i + 1 == c.num_inputs();
    GLASSBOX_ASSIGN_OR_RETURN(acc,
                              c.emit(kOp, {acc, next}, {}, last ? "" : "step" + std::to_string(i)));
  }
  c.set_output(0, acc);
  return Status();
}

Status convert_mod(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t fmod, c.attributes().get_int("fmod", 0));
  return emit_binary(c, aot::op::kMod, {{"fmod", fmod}});
}

Status convert_gelu(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string approximate,
                            c.attributes().get_string("approximate", "none"));
  return emit_unary(c, aot::op::kGelu, {{"approximate", approximate}});
}

Status convert_leaky_relu(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(float alpha, c.attributes().get_float("alpha", 0.01f));
  return emit_unary(c, aot::op::kLeakyRelu, {{"alpha", static_cast<double>(alpha)}});
}

Status convert_elu(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(float alpha, c.attributes().get_float("alpha", 1.0f));
  return emit_unary(c, aot::op::kElu, {{"alpha", static_cast<double>(alpha)}});
}

Status convert_selu(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(float alpha, attrs.get_float("alpha", 1.67326319217681884765625f));
  GLASSBOX_ASSIGN_OR_RETURN(float gamma, attrs.get_float("gamma", 1.05070102214813232421875f));
  return emit_unary(c, aot::op::kSelu,
                    {{"alpha", static_cast<double>(alpha)}, {"gamma", static_cast<double>(gamma)}});
}

Status convert_where(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId cond, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.value_input(2));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId out, c.emit(aot::op::kWhere, {cond, x, y}));
  c.set_output(0, out);
  return Status();
}

// The runtime dtype of an ONNX element type: FLOAT, LONG or BOOL.
StatusOr<ScalarType> runtime_dtype(ImportContext& c, int onnx_type) {
  if (onnx_type == ::onnx::TensorProto::BOOL) return ScalarType::kBool;
  if (is_float_type(onnx_type)) return ScalarType::kFloat;
  if (is_int_type(onnx_type)) return ScalarType::kLong;
  return c.unsupported("cast to " + data_type_name(onnx_type) + " is not supported");
}

// A Cast of a constant to a narrow integer type stays a constant that
// remembers the type (PyTorch builds a bias's int32 zero point as
// ConstantOfShape -> Cast), with the values converted as C++ casts do.
std::optional<HostTensor> narrow_host_cast(ImportContext& c, std::int64_t to) {
  if (!c.is_host(0)) return std::nullopt;
  ScalarType narrow = ScalarType::kLong;
  if (to == ::onnx::TensorProto::INT8) narrow = ScalarType::kChar;
  if (to == ::onnx::TensorProto::UINT8) narrow = ScalarType::kByte;
  if (to == ::onnx::TensorProto::INT32) narrow = ScalarType::kInt;
  if (narrow == ScalarType::kLong) return std::nullopt;
  StatusOr<const HostTensor*> x = c.host_input(0, "Cast's input");
  if (!x.ok() || (*x)->is_bool) return std::nullopt;
  std::vector<std::int64_t> values;
  for (std::size_t i = 0; i < static_cast<std::size_t>((*x)->numel()); ++i) {
    const std::int64_t v = (*x)->as_int(i);
    values.push_back(narrow == ScalarType::kChar   ? static_cast<std::int8_t>(v)
                     : narrow == ScalarType::kByte ? static_cast<std::uint8_t>(v)
                                                   : static_cast<std::int32_t>(v));
  }
  HostTensor out = HostTensor::of_ints((*x)->shape, std::move(values));
  out.declared_int_type = narrow;
  return out;
}

Status convert_cast(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t to_attr, c.attributes().get_int("to", 0));
  if (std::optional<HostTensor> narrow = narrow_host_cast(c, to_attr)) {
    c.set_output(0, std::move(*narrow));
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType to, runtime_dtype(c, static_cast<int>(to_attr)));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  // Quantized values (QuantizeLinear's int8/uint8 output) stay narrow: the
  // Cast PyTorch's exporter writes between a Q and its DQ keeps the type.
  const ScalarType from = c.writer().type_of(x).dtype;
  if (from == ScalarType::kChar || from == ScalarType::kByte) {
    if (to_attr == ::onnx::TensorProto::INT8) to = ScalarType::kChar;
    if (to_attr == ::onnx::TensorProto::UINT8) to = ScalarType::kByte;
  } else if (to_attr == ::onnx::TensorProto::INT8 || to_attr == ::onnx::TensorProto::UINT8) {
    // Runs as LONG; a quantizer reading it as a zero point narrows it.
    c.declare_type(c.node().output(0),
                   to_attr == ::onnx::TensorProto::INT8 ? ScalarType::kChar : ScalarType::kByte);
  }
  if (c.writer().type_of(x).dtype == to) {
    c.set_output(0, x);  // Same runtime dtype (int32 -> int64, double -> float).
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kCast, {x}, {{"dtype", static_cast<std::int64_t>(to)}}));
  c.set_output(0, y);
  return Status();
}

// Sum and Mean of one or more inputs (broadcasting).
Status convert_sum_or_mean(ImportContext& c, bool mean) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId acc, c.value_input(0));
  const std::size_t n = c.num_inputs();
  for (std::size_t i = 1; i < n; ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId next, c.value_input(i));
    const bool last = i + 1 == n && !mean;
    GLASSBOX_ASSIGN_OR_RETURN(
        acc, c.emit(aot::op::kAdd, {acc, next}, {}, last ? "" : "sum" + std::to_string(i)));
  }
  if (mean) {
    const ValueId count = c.add_constant("count", {}, {static_cast<float>(n)});
    GLASSBOX_ASSIGN_OR_RETURN(acc, c.emit(aot::op::kDiv, {acc, count}));
  }
  c.set_output(0, acc);
  return Status();
}
Status convert_sum(ImportContext& c) { return convert_sum_or_mean(c, false); }
Status convert_mean(ImportContext& c) { return convert_sum_or_mean(c, true); }

// ThresholdedRelu: x > alpha ? x : 0.
Status convert_thresholded_relu(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(float alpha, c.attributes().get_float("alpha", 1.0f));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const ValueId threshold = c.add_constant("alpha", {}, {alpha});
  const ValueId zero = c.add_constant("zero", {}, {0.0f});
  GLASSBOX_ASSIGN_OR_RETURN(ValueId keep, c.emit(aot::op::kGreater, {x, threshold}, {}, "keep"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kWhere, {keep, x, zero}));
  c.set_output(0, y);
  return Status();
}

// CastLike: Cast to the second input's dtype.
Status convert_cast_like(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId like, c.value_input(1));
  const ScalarType to = c.writer().type_of(like).dtype;
  if (c.writer().type_of(x).dtype == to) {
    c.set_output(0, x);
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kCast, {x}, {{"dtype", static_cast<std::int64_t>(to)}}));
  c.set_output(0, y);
  return Status();
}

// Trilu: x where the kept triangle's mask (known at import: the shape is
// static) is true, else 0.
Status convert_trilu(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t upper, c.attributes().get_int("upper", 1));
  std::int64_t k = 0;
  if (c.has_input(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* kt, c.host_input(1, "Trilu's k"));
    if (kt->numel() != 1) return c.invalid("k must be a scalar");
    k = kt->as_int(0);
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const aot::TensorType type = c.writer().type_of(x);
  if (type.shape.size() < 2) return c.invalid("Trilu needs rank >= 2");
  const std::int64_t rows = type.shape[type.shape.size() - 2];
  const std::int64_t cols = type.shape.back();
  std::vector<std::int64_t> mask(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      mask[static_cast<std::size_t>(i * cols + j)] = upper != 0 ? j - i >= k : j - i <= k;
    }
  }
  HostTensor mask_tensor = HostTensor::of_ints({rows, cols}, std::move(mask));
  mask_tensor.is_bool = true;
  const ValueId keep = c.add_constant("mask", mask_tensor);
  HostTensor zero = type.dtype == ScalarType::kFloat ? HostTensor::of_floats({}, {0.0f})
                                                     : HostTensor::of_ints({}, {0});
  zero.is_bool = type.dtype == ScalarType::kBool;
  const ValueId zero_value = c.add_constant("zero", zero);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kWhere, {keep, x, zero_value}));
  c.set_output(0, y);
  return Status();
}

}  // namespace

Status emit_unary(ImportContext& c, std::string_view op, aot::AttributeMap attributes) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(op, {x}, std::move(attributes)));
  c.set_output(0, y);
  return Status();
}

void add_math_converters(ConverterTable* table) {
  table->emplace("Abs", convert_unary<aot::op::kAbs>);
  table->emplace("And", convert_binary<aot::op::kLogicalAnd>);
  table->emplace("Cast", convert_cast);
  table->emplace("CastLike", convert_cast_like);
  table->emplace("Ceil", convert_unary<aot::op::kCeil>);
  table->emplace("Elu", convert_elu);
  table->emplace("Equal", convert_binary<aot::op::kEqual>);
  table->emplace("Erf", convert_unary<aot::op::kErf>);
  table->emplace("Exp", convert_unary<aot::op::kExp>);
  table->emplace("Floor", convert_unary<aot::op::kFloor>);
  table->emplace("Gelu", convert_gelu);
  table->emplace("Greater", convert_binary<aot::op::kGreater>);
  table->emplace("GreaterOrEqual", convert_binary<aot::op::kGreaterEqual>);
  table->emplace("LeakyRelu", convert_leaky_relu);
  table->emplace("Less", convert_binary<aot::op::kLess>);
  table->emplace("LessOrEqual", convert_binary<aot::op::kLessEqual>);
  table->emplace("Log", convert_unary<aot::op::kLog>);
  table->emplace("Max", convert_variadic<aot::op::kMax>);
  table->emplace("Mean", convert_mean);
  table->emplace("Min", convert_variadic<aot::op::kMin>);
  table->emplace("Mod", convert_mod);
  table->emplace("Neg", convert_neg);
  table->emplace("Not", convert_unary<aot::op::kLogicalNot>);
  table->emplace("Or", convert_binary<aot::op::kLogicalOr>);
  table->emplace("Pow", convert_binary<aot::op::kPow>);
  table->emplace("PRelu", convert_binary<aot::op::kPrelu>);
  table->emplace("Reciprocal", convert_unary<aot::op::kReciprocal>);
  table->emplace("Round", convert_unary<aot::op::kRound>);
  table->emplace("Selu", convert_selu);
  table->emplace("Sign", convert_unary<aot::op::kSign>);
  table->emplace("Softplus", convert_unary<aot::op::kSoftplus>);
  table->emplace("Softsign", convert_unary<aot::op::kSoftsign>);
  table->emplace("Sqrt", convert_unary<aot::op::kSqrt>);
  table->emplace("Sum", convert_sum);
  table->emplace("Tanh", convert_unary<aot::op::kTanh>);
  table->emplace("ThresholdedRelu", convert_thresholded_relu);
  table->emplace("Trilu", convert_trilu);
  table->emplace("Where", convert_where);
  table->emplace("Xor", convert_binary<aot::op::kLogicalXor>);
}

}  // namespace glassbox::frontends::onnx

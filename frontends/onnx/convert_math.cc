// Elementwise ONNX ops beyond the original set: float activations, the
// comparison and logical ops, Pow/Min/Max/Mod/PRelu, Where and Cast. Each
// emits one IR op of ops.h; inputs known at import are folded by
// ImportContext::emit through the same kernels.

#include <onnx/onnx_pb.h>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;

template <const std::string_view& kOp>
Status convert_unary(ImportContext& c) {
  return emit_unary(c, kOp);
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
    GLASSBOX_ASSIGN_OR_RETURN(acc, c.emit(kOp, {acc, next}, {},
                                          last ? "" : "step" + std::to_string(i)));
  }
  c.set_output(0, acc);
  return Status();
}

Status convert_mod(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t fmod, c.attributes().get_int("fmod", 0));
  return emit_binary(c, aot::op::kMod, {{"fmod", fmod}});
}

Status convert_gelu(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string approximate, c.attributes().get_string("approximate", "none"));
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

Status convert_cast(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t to_attr, c.attributes().get_int("to", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType to, runtime_dtype(c, static_cast<int>(to_attr)));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  if (c.writer().type_of(x).dtype == to) {
    c.set_output(0, x);  // Same runtime dtype (int32 -> int64, double -> float).
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kCast, {x},
                                              {{"dtype", static_cast<std::int64_t>(to)}}));
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
  table->emplace("Min", convert_variadic<aot::op::kMin>);
  table->emplace("Mod", convert_mod);
  table->emplace("Neg", convert_unary<aot::op::kNeg>);
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
  table->emplace("Tanh", convert_unary<aot::op::kTanh>);
  table->emplace("Where", convert_where);
  table->emplace("Xor", convert_binary<aot::op::kLogicalXor>);
}

}  // namespace glassbox::frontends::onnx

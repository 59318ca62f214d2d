// Unary activations (Relu, Sigmoid, HardSigmoid, HardSwish, Tan, Sin, Cos,
// Clip) and broadcasting Add, Sub, Mul, Div.

#include <onnx/onnx_pb.h>

#include <limits>

#include "frontends/onnx/constant_folding.h"
#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;

Status convert_relu(ImportContext& c) { return emit_unary(c, aot::op::kRelu); }
Status convert_sigmoid(ImportContext& c) { return emit_unary(c, aot::op::kSigmoid); }
Status convert_hardswish(ImportContext& c) { return emit_unary(c, aot::op::kHardswish); }
Status convert_tan(ImportContext& c) { return emit_unary(c, aot::op::kTan); }
Status convert_sin(ImportContext& c) { return emit_unary(c, aot::op::kSin); }
Status convert_cos(ImportContext& c) { return emit_unary(c, aot::op::kCos); }

Status convert_hardsigmoid(ImportContext& c) {
  constexpr float kDefaultAlpha = 0.2f;  // ONNX's defaults.
  constexpr float kDefaultBeta = 0.5f;
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(float alpha, attrs.get_float("alpha", kDefaultAlpha));
  GLASSBOX_ASSIGN_OR_RETURN(float beta, attrs.get_float("beta", kDefaultBeta));
  return emit_unary(c, aot::op::kHardsigmoid,
                    {{"alpha", static_cast<double>(alpha)}, {"beta", static_cast<double>(beta)}});
}

// One optional Clip bound: an input (opset 11+) that must be a constant
// scalar, or the attribute of the same name (Clip-6).
StatusOr<std::optional<double>> clip_bound(ImportContext& c, std::size_t input,
                                           const std::string& name) {
  if (c.has_input(input)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* t, c.host_input(input, "Clip's " + name));
    if (t->numel() != 1) return c.invalid("Clip's " + name + " must be a scalar");
    return std::optional<double>(t->as_double(0));
  }
  const NodeAttributes attrs = c.attributes();
  if (!attrs.has(name)) return std::optional<double>();
  GLASSBOX_ASSIGN_OR_RETURN(float v, attrs.get_float(name, 0.0f));
  return std::optional<double>(v);
}

// Clip whose bounds are computed at run time, or of an int64 tensor (the
// clamp kernel is float): max(x, min), then min(., max).
Status convert_clip_runtime(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.value_input(0));
  const bool both = c.has_input(1) && c.has_input(2);
  if (c.has_input(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId lo, c.value_input(1));
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kMax, {y, lo}, {}, both ? "lower" : ""));
  }
  if (c.has_input(2)) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId hi, c.value_input(2));
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kMin, {y, hi}));
  }
  c.set_output(0, y);
  return Status();
}

Status convert_clip(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  if ((c.has_input(1) && !c.is_host(1)) || (c.has_input(2) && !c.is_host(2)) ||
      c.writer().type_of(x).dtype != ScalarType::kFloat) {
    return convert_clip_runtime(c);
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<double> min, clip_bound(c, 1, "min"));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<double> max, clip_bound(c, 2, "max"));
  if (min && max && !(*min <= *max)) {
    return c.unsupported("min " + std::to_string(*min) + " > max " + std::to_string(*max) +
                         " is not supported (clamp needs min <= max)");
  }
  aot::AttributeMap attrs;
  // An infinite bound is no bound; the graph's JSON cannot hold infinity.
  if (min && *min > -std::numeric_limits<double>::infinity()) attrs["min"] = *min;
  if (max && *max < std::numeric_limits<double>::infinity()) attrs["max"] = *max;
  return emit_unary(c, aot::op::kClamp, std::move(attrs));
}

Status binary(ImportContext& c, std::string_view op) {
  if (c.is_host(0) && c.is_host(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* a, c.host_input(0, "A"));
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* b, c.host_input(1, "B"));
    StatusOr<HostTensor> folded = fold_binary(c.node().op_type(), *a, *b);
    if (!folded.ok()) return c.invalid(folded.message());
    c.set_output(0, *std::move(folded));
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId b, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(op, {a, b}));
  c.set_output(0, y);
  return Status();
}

Status convert_add(ImportContext& c) { return binary(c, aot::op::kAdd); }
Status convert_sub(ImportContext& c) { return binary(c, aot::op::kSub); }
Status convert_mul(ImportContext& c) { return binary(c, aot::op::kMul); }
Status convert_div(ImportContext& c) { return binary(c, aot::op::kDiv); }

}  // namespace

void add_elementwise_converters(ConverterTable* table) {
  table->emplace("Add", convert_add);
  table->emplace("Clip", convert_clip);
  table->emplace("Cos", convert_cos);
  table->emplace("Div", convert_div);
  table->emplace("HardSigmoid", convert_hardsigmoid);
  table->emplace("HardSwish", convert_hardswish);
  table->emplace("Mul", convert_mul);
  table->emplace("Relu", convert_relu);
  table->emplace("Sigmoid", convert_sigmoid);
  table->emplace("Sin", convert_sin);
  table->emplace("Sub", convert_sub);
  table->emplace("Tan", convert_tan);
}

}  // namespace glassbox::frontends::onnx

// Reductions (ReduceMean, ReduceSum, ..., ArgMax, ArgMin) and the
// normalizations LayerNormalization, InstanceNormalization and
// GroupNormalization.

#include <onnx/onnx_pb.h>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;

// Reduce axes: the `axes` input (ReduceSum-13, every Reduce* from 18) or
// attribute. Empty means all axes, or none with noop_with_empty_axes.
StatusOr<Shape> reduce_axes(ImportContext& c, std::size_t rank) {
  const NodeAttributes attrs = c.attributes();
  Shape axes;
  if (c.has_input(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* t, c.host_input(1, "the reduce axes"));
    if (t->is_float) return c.invalid("axes must be integers");
    axes = t->ints;
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> a, attrs.get_ints("axes"));
    if (a) axes = *a;
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t noop, attrs.get_int("noop_with_empty_axes", 0));
  if (axes.empty() && noop == 0) {
    for (std::size_t i = 0; i < rank; ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  return axes;
}

template <const std::string_view& kOp>
Status convert_reduce(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const aot::TensorType type = c.writer().type_of(x);
  // Min and max of int64 are shape arithmetic (min(300, boxes found)).
  const bool extreme = kOp == aot::op::kReduceMin || kOp == aot::op::kReduceMax;
  if (type.dtype != ScalarType::kFloat && !(extreme && type.dtype == ScalarType::kLong)) {
    return c.unsupported("reductions of " + std::string(to_string(type.dtype)) +
                         " tensors are not supported (float only; min and max take int64 too)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(Shape axes, reduce_axes(c, type.shape.size()));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t keepdims, c.attributes().get_int("keepdims", 1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(kOp, {x}, {{"axes", axes}, {"keepdims", keepdims}}));
  c.set_output(0, y);
  return Status();
}

template <const std::string_view& kOp>
Status convert_arg_reduce(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, attrs.get_int("axis", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t keepdims, attrs.get_int("keepdims", 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t last, attrs.get_int("select_last_index", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y,
      c.emit(kOp, {x}, {{"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}}));
  c.set_output(0, y);
  return Status();
}

// LayerNormalization's optional Mean and InvStdDev outputs (rarely read
// at inference): reduce_mean over the normalized axes with kept dims, and
// 1 / sqrt(mean((x - mean)^2) + eps).
Status layer_norm_statistics(ImportContext& c, ValueId x, std::int64_t axis, float eps) {
  const Shape shape = c.writer().type_of(x).shape;
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (axis < -rank || axis >= rank) return c.invalid("axis out of range");
  Shape axes;
  for (std::int64_t a = axis < 0 ? axis + rank : axis; a < rank; ++a) axes.push_back(a);
  const aot::AttributeMap reduce{{"axes", axes}, {"keepdims", std::int64_t{1}}};
  GLASSBOX_ASSIGN_OR_RETURN(ValueId mean, c.emit(aot::op::kReduceMean, {x}, reduce, "mean"));
  c.set_output(1, mean);
  if (!c.has_output(2)) return Status();
  GLASSBOX_ASSIGN_OR_RETURN(ValueId centered, c.emit(aot::op::kSub, {x, mean}, {}, "centered"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId squared,
                            c.emit(aot::op::kMul, {centered, centered}, {}, "squared"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId var, c.emit(aot::op::kReduceMean, {squared}, reduce, "var"));
  const ValueId eps_value = c.add_constant("eps", {}, {eps});
  GLASSBOX_ASSIGN_OR_RETURN(ValueId shifted,
                            c.emit(aot::op::kAdd, {var, eps_value}, {}, "var_eps"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId stddev, c.emit(aot::op::kSqrt, {shifted}, {}, "stddev"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId inv, c.emit(aot::op::kReciprocal, {stddev}, {}, "inv_stddev"));
  c.set_output(2, inv);
  return Status();
}

// ReduceLogSum: log of ReduceSum.
Status convert_reduce_log_sum(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape axes, reduce_axes(c, c.writer().type_of(x).shape.size()));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t keepdims, c.attributes().get_int("keepdims", 1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId sum, c.emit(aot::op::kReduceSum, {x},
                                                {{"axes", axes}, {"keepdims", keepdims}}, "sum"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kLog, {sum}));
  c.set_output(0, y);
  return Status();
}

// LogSoftmax (opset 13 semantics: one axis): d - logsumexp(d) with
// d = x - max(x) over the axis, so that large inputs keep their precision
// (x - logsumexp(x) cancels). Opsets 11-12 coerce to 2-D at `axis`: the
// same over every axis from `axis` on.
Status convert_log_softmax(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const Shape shape = c.writer().type_of(x).shape;
  const auto rank = static_cast<std::int64_t>(shape.size());
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis,
                            c.attributes().get_int("axis", c.opset() < 13 ? 1 : -1));
  if (axis < -rank || axis >= rank) return c.invalid("axis out of range");
  if (axis < 0) axis += rank;
  Shape axes;
  const std::int64_t end = c.opset() < 13 ? rank : axis + 1;
  for (std::int64_t a = axis; a < end; ++a) axes.push_back(a);
  const aot::AttributeMap reduce{{"axes", axes}, {"keepdims", std::int64_t{1}}};
  GLASSBOX_ASSIGN_OR_RETURN(ValueId max, c.emit(aot::op::kReduceMax, {x}, reduce, "max"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId shifted, c.emit(aot::op::kSub, {x, max}, {}, "shifted"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId lse,
                            c.emit(aot::op::kReduceLogSumExp, {shifted}, reduce, "log_sum_exp"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kSub, {shifted, lse}));
  c.set_output(0, y);
  return Status();
}

Status convert_layer_norm(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, attrs.get_int("axis", -1));
  GLASSBOX_ASSIGN_OR_RETURN(float eps, attrs.get_float("epsilon", 1e-5f));
  std::vector<ValueId> inputs;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!c.has_input(i)) continue;
    GLASSBOX_ASSIGN_OR_RETURN(ValueId v, c.value_input(i));
    inputs.push_back(v);
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kLayerNorm, inputs,
                                              {{"axis", axis}, {"eps", static_cast<double>(eps)}}));
  c.set_output(0, y);
  if (c.has_output(1) || c.has_output(2)) return layer_norm_statistics(c, inputs[0], axis, eps);
  return Status();
}

Status convert_channel_norm(ImportContext& c, std::string_view op) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(float eps, attrs.get_float("epsilon", 1e-5f));
  aot::AttributeMap attributes{{"eps", static_cast<double>(eps)}};
  if (op == aot::op::kGroupNorm) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t groups, attrs.get_int("num_groups", 0));
    attributes["num_groups"] = groups;
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId scale, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId bias, c.value_input(2));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(op, {x, scale, bias}, std::move(attributes)));
  c.set_output(0, y);
  return Status();
}

Status convert_instance_norm(ImportContext& c) {
  return convert_channel_norm(c, aot::op::kInstanceNorm);
}
Status convert_group_norm(ImportContext& c) { return convert_channel_norm(c, aot::op::kGroupNorm); }

}  // namespace

void add_reduce_converters(ConverterTable* table) {
  table->emplace("ArgMax", convert_arg_reduce<aot::op::kArgmax>);
  table->emplace("ArgMin", convert_arg_reduce<aot::op::kArgmin>);
  table->emplace("GroupNormalization", convert_group_norm);
  table->emplace("InstanceNormalization", convert_instance_norm);
  table->emplace("LayerNormalization", convert_layer_norm);
  table->emplace("LogSoftmax", convert_log_softmax);
  table->emplace("ReduceLogSum", convert_reduce_log_sum);
  table->emplace("ReduceL1", convert_reduce<aot::op::kReduceL1>);
  table->emplace("ReduceL2", convert_reduce<aot::op::kReduceL2>);
  table->emplace("ReduceLogSumExp", convert_reduce<aot::op::kReduceLogSumExp>);
  table->emplace("ReduceMax", convert_reduce<aot::op::kReduceMax>);
  table->emplace("ReduceMean", convert_reduce<aot::op::kReduceMean>);
  table->emplace("ReduceMin", convert_reduce<aot::op::kReduceMin>);
  table->emplace("ReduceProd", convert_reduce<aot::op::kReduceProd>);
  table->emplace("ReduceSum", convert_reduce<aot::op::kReduceSum>);
  table->emplace("ReduceSumSquare", convert_reduce<aot::op::kReduceSumSquare>);
}

}  // namespace glassbox::frontends::onnx

// Type inference of the ops whose outputs are sized by data (ops.h
// "Dynamic outputs"): each gives the upper bound the memory plan reserves,
// marked dynamic; the kernel sets the actual sizes at each execution.

#include <algorithm>

#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {
namespace {

Status dtype_is(std::string_view op, std::span<const TensorType> in, std::size_t i,
                std::initializer_list<ScalarType> allowed, std::string_view want) {
  if (std::find(allowed.begin(), allowed.end(), in[i].dtype) != allowed.end()) return Status();
  return invalid(std::string(op) + " input " + std::to_string(i) + " has dtype " +
                 std::string(to_string(in[i].dtype)) + ", expected " + std::string(want));
}

StatusOr<std::vector<TensorType>> infer_non_zero(std::span<const TensorType> in) {
  const TensorType& x = in[0];
  if (x.shape.empty()) return invalid("non_zero of a 0-d value is not supported");
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t numel, checked_numel(x.shape));
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  return std::vector<TensorType>{{ScalarType::kLong, {rank, numel}, true}};
}

StatusOr<std::vector<TensorType>> infer_top_k(std::span<const TensorType> in,
                                              const AttributeMap& attrs) {
  const TensorType& x = in[0];
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, int_attr_or(attrs, "axis", -1));
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, axis_in(axis_attr, x.shape.size(), "top_k axis"));
  GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "largest", true).status());
  GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "sorted", true).status());
  Shape shape = x.shape;
  bool dynamic = x.dynamic;
  if (in.size() == 2) {
    // k computed at run time: at most the whole axis.
    if (attrs.contains("k")) return invalid("top_k takes k as an attribute or an input, not both");
    GLASSBOX_RETURN_IF_ERROR(expect_shape(in[1], {1}, "top_k k"));
    dynamic = true;
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t k, int_attr(attrs, "k"));
    if (k < 0 || (!x.dynamic && k > x.shape[axis])) {
      return invalid("top_k k " + std::to_string(k) + " is out of range for an axis of " +
                     std::to_string(x.shape[axis]));
    }
    // A dynamic x may be shorter than k at run time: the kernel refuses it.
    shape[axis] = std::min(k, x.shape[axis]);
  }
  return std::vector<TensorType>{{x.dtype, shape, dynamic}, {ScalarType::kLong, shape, dynamic}};
}

StatusOr<std::vector<TensorType>> infer_non_max_suppression(std::span<const TensorType> in,
                                                            const AttributeMap& attrs) {
  const TensorType& boxes = in[0];
  const TensorType& scores = in[1];
  GLASSBOX_RETURN_IF_ERROR(expect_rank(boxes, 3, "non_max_suppression boxes"));
  GLASSBOX_RETURN_IF_ERROR(expect_rank(scores, 3, "non_max_suppression scores"));
  const std::int64_t batches = boxes.shape[0], count = boxes.shape[1];
  if (boxes.shape[2] != 4) {
    return invalid("non_max_suppression boxes must be [batches, boxes, 4], got " +
                   shape_string(boxes.shape));
  }
  if (scores.shape[0] != batches || scores.shape[2] != count) {
    return invalid("non_max_suppression scores " + shape_string(scores.shape) +
                   " do not match boxes " + shape_string(boxes.shape));
  }
  GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "center_point_box", false).status());
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t max_per_class,
                            int_attr(attrs, "max_output_boxes_per_class"));
  if (max_per_class < 0) return invalid("max_output_boxes_per_class must be >= 0");
  GLASSBOX_RETURN_IF_ERROR(float_attr(attrs, "iou_threshold").status());
  if (attrs.contains("score_threshold")) {
    GLASSBOX_RETURN_IF_ERROR(float_attr(attrs, "score_threshold").status());
  }
  const std::int64_t bound = batches * scores.shape[1] * std::min(count, max_per_class);
  return std::vector<TensorType>{{ScalarType::kLong, {bound, 3}, true}};
}

// A value's sizes start..end, known at run time only when it is dynamic.
StatusOr<std::vector<TensorType>> infer_shape(const TensorType& x, const AttributeMap& attrs) {
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t start, int_attr_or(attrs, "start", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t end, int_attr_or(attrs, "end", rank));
  if (start < 0 || start > end || end > rank) {
    return invalid("shape start " + std::to_string(start) + " and end " + std::to_string(end) +
                   " do not fit rank " + std::to_string(rank));
  }
  return std::vector<TensorType>{{ScalarType::kLong, {end - start}, false}};
}

}  // namespace

bool takes_dynamic_inputs(std::string_view op) {
  // top_k and non_max_suppression size their outputs in their kernels
  // (portable_ops_dynamic.cc). The rest compute their output shape from
  // their inputs' sizes in prepare, which the runtime runs again before
  // each execution of an op fed by a dynamic value (Method: prepare at the
  // actual sizes, the output resized within its bound); ops.cc adds the
  // element-wise, cast and reduction families.
  static constexpr std::string_view kOps[] = {
      op::kTopK,   op::kNonMaxSuppression, op::kTranspose, op::kGather,
      op::kConcat, op::kFlatten,           op::kReshape,   op::kSlice,
      op::kRelu,   op::kSigmoid,           op::kClamp,     op::kShape};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

Status check_dynamic_reshape(const TensorType& x, const AttributeMap& attrs) {
  if (!x.dynamic) return Status();
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::int64_t> shape, ints_attr(attrs, "shape"));
  if (std::find(shape.begin(), shape.end(), -1) != shape.end()) return Status();
  return invalid("reshape of a value sized by data (at most " + shape_string(x.shape) +
                 ") needs a -1 in its shape " + shape_string(shape) +
                 ", the dim that follows the data");
}

StatusOr<ScalarType> dynamic_op_dtype(std::string_view op, std::span<const TensorType> in) {
  constexpr auto kFloat = ScalarType::kFloat, kLong = ScalarType::kLong;
  if (op == op::kShape) return kLong;  // of any input
  if (op == op::kNonZero) {
    GLASSBOX_RETURN_IF_ERROR(dtype_is(
        op, in, 0,
        {kFloat, kLong, ScalarType::kInt, ScalarType::kBool, ScalarType::kChar, ScalarType::kByte},
        "FLOAT, LONG, INT, BOOL, CHAR or BYTE"));
    return kLong;
  }
  if (op == op::kTopK) {
    GLASSBOX_RETURN_IF_ERROR(dtype_is(op, in, 0, {kFloat, kLong}, "FLOAT or LONG"));
    if (in.size() == 2) GLASSBOX_RETURN_IF_ERROR(dtype_is(op, in, 1, {kLong}, "LONG"));
    return in[0].dtype;
  }
  GLASSBOX_RETURN_IF_ERROR(dtype_is(op, in, 0, {kFloat}, "FLOAT"));
  GLASSBOX_RETURN_IF_ERROR(dtype_is(op, in, 1, {kFloat}, "FLOAT"));
  return kLong;
}

StatusOr<std::vector<TensorType>> infer_dynamic(std::string_view op, std::span<const TensorType> in,
                                                const AttributeMap& attrs) {
  if (op == op::kNonZero) return infer_non_zero(in);
  if (op == op::kTopK) return infer_top_k(in, attrs);
  if (op == op::kShape) return infer_shape(in[0], attrs);
  return infer_non_max_suppression(in, attrs);
}

}  // namespace glassbox::aot::ops_internal

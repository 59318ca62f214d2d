// ONNX ops whose outputs are sized by data (NonZero, TopK with a computed
// K, NonMaxSuppression): each becomes one IR op with a dynamic output
// (aot::TensorType::dynamic), whose bound the memory plan reserves.

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;

Status convert_non_zero(ImportContext& c) { return emit_unary(c, aot::op::kNonZero); }

// TopK: K is an attribute before opset 10, an input from then on. A K known
// at import is an attribute of top_k; a computed one (detection
// post-processing's min(k, boxes found)) stays an input, and the outputs
// are then dynamic, bounded by the axis length.
Status convert_top_k(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  aot::AttributeMap ir;
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, attrs.get_int("axis", -1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t largest, attrs.get_int("largest", 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t sorted, attrs.get_int("sorted", 1));
  ir["axis"] = axis;
  ir["largest"] = largest;
  ir["sorted"] = sorted;
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  std::vector<ValueId> inputs{x};
  if (c.opset() < 10) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t k, attrs.get_int("k", -1));
    ir["k"] = k;
  } else if (c.is_host(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* k, c.host_input(1, "K"));
    if (k->is_float || k->numel() != 1) return c.invalid("K must be one integer");
    ir["k"] = k->as_int(0);
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId k, c.value_input(1));
    if (c.writer().type_of(k).dtype != ScalarType::kLong) return c.invalid("K must be int64");
    inputs.push_back(k);
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      std::vector<ValueId> outs,
      c.emit_outputs(aot::op::kTopK, std::move(inputs), std::move(ir), {"values", "indices"}));
  c.set_output(0, outs[0]);
  c.set_output(1, outs[1]);
  return Status();
}

// A one-element constant input, or `fallback` when the input is absent.
StatusOr<double> scalar_input(ImportContext& c, std::size_t i, const std::string& what,
                              double fallback) {
  if (!c.has_input(i)) return fallback;
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* t, c.host_input(i, what));
  if (t->numel() != 1) return c.invalid(what + " must have one element");
  return t->as_double(0);
}

// NonMaxSuppression(boxes, scores, max_output_boxes_per_class?,
// iou_threshold?, score_threshold?): the three scalars must be known at
// import (they become attributes; exporters write constants).
Status convert_non_max_suppression(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t center, c.attributes().get_int("center_point_box", 0));
  if (center != 0 && center != 1) return c.invalid("center_point_box must be 0 or 1");
  GLASSBOX_ASSIGN_OR_RETURN(ValueId boxes, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId scores, c.value_input(1));
  const std::vector<std::int64_t> box_shape = c.writer().type_of(boxes).shape;
  if (box_shape.size() != 3) return c.invalid("boxes must be [batches, boxes, 4]");
  // The input is an int64; torchvision writes INT64_MAX (no limit). More
  // than the box count cannot be selected, so the count is the same limit.
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* max_t,
                            c.has_input(2) ? c.host_input(2, "max_output_boxes_per_class")
                                           : StatusOr<const HostTensor*>(nullptr));
  std::int64_t max_per_class = 0;
  if (max_t != nullptr) {
    if (max_t->numel() != 1 || max_t->is_float) {
      return c.invalid("max_output_boxes_per_class must be one integer");
    }
    max_per_class = std::clamp<std::int64_t>(max_t->as_int(0), 0, box_shape[1]);
  }
  GLASSBOX_ASSIGN_OR_RETURN(double iou, scalar_input(c, 3, "iou_threshold", 0.0));
  aot::AttributeMap ir{{"center_point_box", center},
                       {"max_output_boxes_per_class", max_per_class},
                       {"iou_threshold", iou}};
  if (c.has_input(4)) {
    GLASSBOX_ASSIGN_OR_RETURN(double score, scalar_input(c, 4, "score_threshold", 0.0));
    ir["score_threshold"] = score;
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId selected,
                            c.emit(aot::op::kNonMaxSuppression, {boxes, scores}, std::move(ir)));
  c.set_output(0, selected);
  return Status();
}

}  // namespace

void add_dynamic_converters(ConverterTable* table) {
  (*table)["NonZero"] = convert_non_zero;
  (*table)["TopK"] = convert_top_k;
  (*table)["NonMaxSuppression"] = convert_non_max_suppression;
}

}  // namespace glassbox::frontends::onnx

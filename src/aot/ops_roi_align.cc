// Type inference of roi_align (ONNX RoiAlign): its inputs have three
// different dtypes, so it checks them here rather than by a table rule.

#include <cmath>

#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {

StatusOr<TensorType> infer_roi_align(std::span<const TensorType> in, const AttributeMap& attrs) {
  static constexpr ScalarType kWant[] = {ScalarType::kFloat, ScalarType::kFloat, ScalarType::kLong};
  for (std::size_t i = 0; i < 3; ++i) {
    if (in[i].dtype != kWant[i]) {
      return invalid("roi_align input " + std::to_string(i) + " has dtype " +
                     std::string(to_string(in[i].dtype)) + ", expected " +
                     std::string(to_string(kWant[i])));
    }
  }
  const TensorType& x = in[0];
  GLASSBOX_RETURN_IF_ERROR(expect_rank(x, 4, "roi_align input"));
  GLASSBOX_RETURN_IF_ERROR(expect_rank(in[2], 1, "roi_align batch_indices"));
  const std::int64_t num_rois = in[2].shape[0];
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[1], {num_rois, 4}, "roi_align rois"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t height, int_attr(attrs, "output_height"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t width, int_attr(attrs, "output_width"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t ratio, int_attr(attrs, "sampling_ratio"));
  GLASSBOX_ASSIGN_OR_RETURN(double scale, float_attr(attrs, "spatial_scale"));
  GLASSBOX_ASSIGN_OR_RETURN(std::string mode, string_attr(attrs, "mode"));
  GLASSBOX_ASSIGN_OR_RETURN(std::string transform,
                            string_attr(attrs, "coordinate_transformation_mode"));
  if (height < 1 || width < 1) {
    return invalid("roi_align output_height and output_width must be >= 1");
  }
  if (ratio < 0) return invalid("roi_align sampling_ratio must be >= 0");
  if (!std::isfinite(scale)) return invalid("roi_align spatial_scale must be finite");
  if (mode != "avg" && mode != "max") {
    return invalid("roi_align mode must be \"avg\" or \"max\", got \"" + mode + "\"");
  }
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return invalid(
        "roi_align coordinate_transformation_mode must be \"half_pixel\" or "
        "\"output_half_pixel\", got \"" +
        transform + "\"");
  }
  return TensorType{ScalarType::kFloat, {num_rois, x.shape[1], height, width}};
}

}  // namespace glassbox::aot::ops_internal

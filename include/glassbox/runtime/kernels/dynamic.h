#pragma once
/// @file
/// Kernels whose output size depends on the data (ONNX NonZero, TopK,
/// NonMaxSuppression). Each writes at most a caller-given capacity and
/// returns how many entries it wrote; the portable op then sizes its
/// dynamic output with `Tensor::resize`. Tensors are row-major contiguous.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

/// The coordinates of `x`'s non-zero elements (`element` bytes each; a
/// float -0.0 counts as zero), in row-major order: `out` is [rank, count],
/// coordinate d of the j-th element found at out[d * count + j]. Returns the
/// count, which is at most `capacity` (numel). kInvalidArgument for a rank
/// of 0, a negative size, a capacity below the element count or an element
/// size other than 1, 4 or 8.
Result<std::int64_t> non_zero(const void* x, std::size_t element, bool is_float,
                              Span<const std::int64_t> shape, std::int64_t capacity,
                              std::int64_t* out);

/// ONNX TopK along `axis` of x [outer, axis_length, inner]: the k largest
/// (or smallest) entries of each line, sorted, ties to the lower index; NaN
/// counts as larger than any number (numpy's sort order). values and
/// indices are [outer, k, inner]. `scratch` holds axis_length int64.
/// kInvalidArgument for a negative size or k > axis_length.
template <typename T>
Error top_k(const T* x, std::int64_t outer, std::int64_t axis_length, std::int64_t inner,
            std::int64_t k, bool largest, T* values, std::int64_t* indices, std::int64_t* scratch);

/// ONNX NonMaxSuppression's parameters.
struct NmsParams {
  bool center_point_box = false;  ///< boxes are x_center, y_center, width, height
  std::int64_t max_per_class = 0;
  float iou_threshold = 0.0F;
  bool has_score_threshold = false;
  float score_threshold = 0.0F;  ///< kept when score > threshold
};

/// ONNX NonMaxSuppression of boxes [batches, count, 4] and scores
/// [batches, classes, count]: per batch and class, boxes by decreasing
/// score (ties to the lower index) above the score threshold, each kept
/// unless its IoU with a kept one exceeds the IoU threshold, at most
/// max_per_class. Writes (batch, class, box) triples to `selected`
/// (room for `capacity` triples) and returns their count. `scratch` holds
/// nms_scratch_size(count) int64. kInvalidArgument when the capacity is too
/// small.
/// The int64s of non_max_suppression's scratch for `count` boxes: the
/// candidates, the kept boxes' corners and areas as floats, then their
/// lists by position along x (a link per box, 256 list heads).
constexpr std::int64_t nms_scratch_size(std::int64_t count) {
  return count + (5 * count + 1) / 2 + count + 256;
}

Result<std::int64_t> non_max_suppression(const float* boxes, const float* scores,
                                         std::int64_t batches, std::int64_t classes,
                                         std::int64_t count, const NmsParams& params,
                                         std::int64_t capacity, std::int64_t* selected,
                                         std::int64_t* scratch);

}  // namespace glassbox::runtime::kernels

#pragma once
/// @file
/// ONNX RoiAlign (opsets 10 and 16): each region of interest of an NCHW
/// feature map pooled to a fixed output_height x output_width grid of bins,
/// each bin the average (or maximum) of bilinear samples.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

enum class RoiAlignMode : std::uint8_t { kAvg, kMax };

struct RoiAlignParams {
  std::int64_t output_height = 1;  ///< >= 1
  std::int64_t output_width = 1;   ///< >= 1
  /// Samples per bin along each axis; 0 = adaptive, ceil(roi size / bins).
  std::int64_t sampling_ratio = 0;
  float spatial_scale = 1.0f;  ///< Finite: roi coordinates -> feature map.
  RoiAlignMode mode = RoiAlignMode::kAvg;
  /// ONNX's coordinate_transformation_mode: true for "half_pixel" (shift
  /// the scaled roi by -0.5), false for "output_half_pixel" (opset 10's
  /// only behaviour: no shift, and a roi smaller than 1x1 grows to 1x1).
  bool half_pixel = true;
};

/// The most samples one bin may take: an absurd roi (1e9 pixels wide with
/// an adaptive grid) is refused instead of looping for hours.
inline constexpr std::int64_t kMaxRoiAlignSamplesPerBin = std::int64_t{1} << 20;

/// y[r, c, ph, pw] for r < num_rois: roi r is rois[4r..4r+3] = x1, y1, x2, y2
/// in input coordinates, on batch entry batch_indices[r] of x. Each bin has a
/// grid of sampling points (bin start + (i + 0.5) * bin size / grid); a point
/// beyond [-1, H] x [-1, W] samples 0, others are clamped into the map and
/// read bilinearly from their four neighbours. avg: the mean over the grid
/// (0 for an empty grid). max: ONNX's definition, the maximum over the grid
/// of the largest of the four weighted neighbours (w * value), as ONNX
/// Runtime computes it. y is [num_rois, x.c, output_height, output_width].
/// kInvalidArgument for a bad parameter, a batch index outside [0, x.n), a
/// non-finite roi coordinate, more than kMaxRoiAlignSamplesPerBin samples
/// per bin, an empty map (H or W 0) with rois, or a null pointer while
/// anything is to be written.
Error roi_align(const float* x, Shape4 x_shape, const float* rois,
                const std::int64_t* batch_indices, std::int64_t num_rois,
                const RoiAlignParams& params, float* y);

}  // namespace glassbox::runtime::kernels

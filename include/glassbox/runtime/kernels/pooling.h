#pragma once
/// @file
/// 2-D pooling over NCHW tensors (PyTorch nn.MaxPool2d / nn.AvgPool2d
/// semantics, with padding allowed to differ per side).

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// Pooling window parameters. Padding is implicit: padded positions are
/// never read (they act as -inf for max and 0 for avg).
struct Pool2dParams {
  std::int64_t kernel_h = 1;
  std::int64_t kernel_w = 1;
  std::int64_t stride_h = 1;
  std::int64_t stride_w = 1;
  std::int64_t pad_top = 0;
  std::int64_t pad_left = 0;
  std::int64_t pad_bottom = 0;
  std::int64_t pad_right = 0;
  std::int64_t dilation_h = 1;  ///< max_pool2d only; avg needs 1.
  std::int64_t dilation_w = 1;  ///< max_pool2d only; avg needs 1.
  /// Round the output size up instead of down; a last window that would
  /// start inside the end padding is dropped (PyTorch's rule).
  bool ceil_mode = false;
  /// avg_pool2d only: whether padded positions count in the divisor.
  bool count_include_pad = true;
};

/// [N, C, OH, OW] with
///   OH = floor_or_ceil((H + pad_top + pad_bottom - dilation_h*(kernel_h-1)
///                       - 1) / stride_h) + 1,
/// minus 1 if ceil_mode and (OH-1)*stride_h >= H + pad_top (OW likewise).
/// kInvalidArgument unless N, C >= 0, H, W >= 1, kernel/stride/dilation
/// >= 1, pads >= 0 and OH, OW >= 1.
Result<Shape4> pool2d_output_shape(Shape4 input, const Pool2dParams& params);

/// out[n][c][oh][ow] = max over in-bounds (kh, kw) of
///   in[n][c][oh*stride_h - pad_top + kh*dilation_h]
///          [ow*stride_w - pad_left + kw*dilation_w];
/// -infinity for a window with no in-bounds element. NaN wins (like
/// PyTorch); which of +0 and -0 wins a tie between them is unspecified.
/// `output` must not overlap `input`.
Error max_pool2d(const float* input, Shape4 input_shape, const Pool2dParams& params, float* output);

/// out = (sum of the in-bounds window elements) / divisor, where the window
/// is [oh*stride_h - pad_top, +kernel_h) x [ow*stride_w - pad_left,
/// +kernel_w). divisor = count_include_pad ? the window's area clipped to
/// the padded input [-pad_top, H + pad_bottom) x [-pad_left, W + pad_right)
/// : the number of in-bounds elements (a window with none gives 0).
/// The sum is taken in float, each window column over its rows first, then
/// the column sums left to right (pooling is done separably).
/// kInvalidArgument also for dilation != 1.
Error avg_pool2d(const float* input, Shape4 input_shape, const Pool2dParams& params, float* output);

/// out[n][c][0][0] = mean of in[n][c][:][:] (sum in float, then divided by
/// H*W). kInvalidArgument for a non-positive H or W or negative N, C.
Error global_avg_pool2d(const float* input, Shape4 input_shape, float* output);

}  // namespace glassbox::runtime::kernels

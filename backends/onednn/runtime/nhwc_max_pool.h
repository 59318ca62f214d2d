#pragma once
/// @file
/// Max pooling over a dense NHWC float tensor, the layout oneDNN 2.6's
/// fastest convolutions leave their outputs in. Its own max pool over that
/// layout (`pooling: jit:avx512_core`) measured 1.4-2.6x slower than ours
/// here (googlenet's 3x3 stride-1 pool over 256x28x28: 164 against 89 us),
/// so the oneDNN delegate runs this one there. Device code: no allocation.

#include <cstdint>

namespace glassbox::backends::onednn {

/// Dims and window of one max pool; padding is never a candidate (a
/// window's max is over the input elements it covers).
struct NhwcMaxPool {
  std::int64_t n = 0, h = 0, w = 0, c = 0;  ///< input [n, h, w, c]
  std::int64_t oh = 0, ow = 0;              ///< output [n, oh, ow, c]
  std::int64_t kernel_h = 0, kernel_w = 0;
  std::int64_t stride_h = 0, stride_w = 0;
  std::int64_t pad_top = 0, pad_left = 0;

  /// True when every output's window covers at least one input element
  /// and stays within the limits the kernel assumes (positive sizes).
  bool valid() const;
};

/// y[n, oh, ow, :] = max of x over the window of (oh, ow). Splits the
/// output rows over the OpenMP threads in force.
void nhwc_max_pool(const NhwcMaxPool& p, const float* x, float* y);

}  // namespace glassbox::backends::onednn

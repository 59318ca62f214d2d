#pragma once
/// @file
/// A float depthwise convolution (one input and one output channel per
/// group) over NHWC pixels with AVX-512, for the delegate. XNNPACK 2022's
/// on AVX-512 reads every tap through a pointer of its indirection buffer
/// and keeps one accumulator per 16 channels; mobilenet_v2's first
/// depthwise convolution (32 channels at 112x112) took about twice ONNX
/// Runtime's time there (docs/benchmarks.md, issue 33). This one walks the
/// image directly: the taps of an output pixel are fixed offsets from its
/// window's first pixel, checked against the image's edges only where the
/// window crosses them, four pixels of a row at a time (each weight vector
/// loaded once for the four) with up to four channel vectors each, and
/// loads and stores unmasked wherever whole vectors exist (masked ones
/// that miss the cache were slow on Zen 5).
///
/// Each output is the bias plus the taps in row-major order.

#include <cstddef>

namespace glassbox::backends::xnnpack {

/// A depthwise convolution's sizes; the input NHWC and dense.
struct DwConvGeometry {
  std::size_t batch = 1;
  std::size_t in_h = 0, in_w = 0, channels = 0;
  std::size_t out_h = 0, out_w = 0;
  std::size_t kernel_h = 1, kernel_w = 1;
  std::size_t stride_h = 1, stride_w = 1;
  std::size_t dilation_h = 1, dilation_w = 1;
  std::size_t pad_top = 0, pad_left = 0;
  std::size_t out_pixel_stride = 0;  ///< floats between output pixels (>= channels)
  float output_min = -__builtin_inff(), output_max = __builtin_inff();  ///< the fused clamp
};

/// Whether dwconv_nhwc runs here (x86-64 with AVX-512F).
bool dwconv_nhwc_available();

/// Floats of packed weights: the bias, then per tap the channels' weights,
/// each row padded with zeros to a multiple of 16 channels.
std::size_t dwconv_nhwc_packed_floats(const DwConvGeometry& g);

/// Packs `kernel` ([channels][kernel_h][kernel_w], XNNPACK's layout for a
/// convolution of `channels` groups) and `bias` ([channels]) into `packed`.
void dwconv_nhwc_pack(const DwConvGeometry& g, const float* kernel, const float* bias,
                      float* packed);

/// A depthwise convolution bound to its buffers at init.
struct DwConv {
  DwConvGeometry geometry;
  const float* packed = nullptr;
  const float* input = nullptr;
  float* output = nullptr;
};

/// Computes output rows [first_row, end_row) of the batch * out_h rows
/// (rows are independent: threads may take a range each). Only where
/// dwconv_nhwc_available().
void dwconv_nhwc_run(const DwConvGeometry& g, const float* packed, const float* input,
                     float* output, std::size_t first_row, std::size_t end_row);

}  // namespace glassbox::backends::xnnpack

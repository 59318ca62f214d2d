#pragma once
/// @file
/// 2-D transposed convolution (ONNX ConvTranspose, PyTorch
/// nn.ConvTranspose2d), float32 NCHW.
///
///   Result<Shape4> out = conv_transpose2d_output_shape(in, w, params);
///   Error e = conv_transpose2d(x, in, wt, w, bias, params, *out, y);
///
/// Computed as a scatter: every input pixel times every kernel tap adds into
/// one output pixel, run as a row AXPY per (output channel, input channel,
/// tap, input row). No scratch; the work is exactly N * C_in * (C_out /
/// groups) * KH * KW * H * W multiply-adds.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// ConvTranspose hyper-parameters, with ONNX's auto_pad and output_shape
/// attributes already resolved into explicit pads by the caller.
struct ConvTranspose2dParams {
  std::int64_t stride_h = 1;
  std::int64_t stride_w = 1;
  std::int64_t dilation_h = 1;
  std::int64_t dilation_w = 1;
  std::int64_t pad_top = 0;  ///< Cropped from the start of the full output.
  std::int64_t pad_left = 0;
  std::int64_t pad_bottom = 0;  ///< Cropped from the end of the full output.
  std::int64_t pad_right = 0;
  std::int64_t output_padding_h = 0;  ///< Extra rows at the bottom.
  std::int64_t output_padding_w = 0;  ///< Extra columns at the right.
  std::int64_t groups = 1;
};

/// [N, weight.c * groups, OH, OW] for input [N, C_in, H, W] and weight in
/// ONNX layout [C_in, C_out / groups, KH, KW], with
///   OH = stride_h * (H - 1) + output_padding_h + (KH - 1) * dilation_h + 1
///        - pad_top - pad_bottom
/// (OW likewise). kInvalidArgument unless: N >= 0; C_in, H, W, weight.c,
/// KH, KW >= 1; weight.n == C_in; groups >= 1 divides C_in; strides and
/// dilations >= 1; pads and output paddings >= 0; OH, OW >= 1; and every
/// size fits int64.
Result<Shape4> conv_transpose2d_output_shape(Shape4 input, Shape4 weight,
                                             const ConvTranspose2dParams& params);

/// ONNX ConvTranspose:
///   out[n][oc][oh][ow] = bias[oc] + sum of
///     in[n][ic][ih][iw] * weight[ic][oc'][kh][kw]
/// over ic in oc's group (oc' is oc's index in its group), kh, kw, and
/// in-range ih, iw with
///   oh = ih * stride_h - pad_top + kh * dilation_h,
///   ow = iw * stride_w - pad_left + kw * dilation_w.
/// Output positions no tap reaches (e.g. output padding) hold bias (or 0).
/// `bias` is null or holds C_out floats. `output_shape` is the caller's
/// shape, checked against conv_transpose2d_output_shape(); `output` holds
/// its elements and must not overlap the inputs. Float32 sums, accumulated
/// per tap in (ic, kh, kw) order. kInvalidArgument for invalid shapes, a
/// mismatched output_shape, or null pointers for non-empty tensors.
Error conv_transpose2d(const float* input, Shape4 input_shape, const float* weight,
                       Shape4 weight_shape, const float* bias, const ConvTranspose2dParams& params,
                       Shape4 output_shape, float* output);

}  // namespace glassbox::runtime::kernels

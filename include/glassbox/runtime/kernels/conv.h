#pragma once
/// @file
/// 2-D convolution (PyTorch nn.Conv2d semantics, cross-correlation), NCHW.
///
///   Result<Shape4> out = conv2d_output_shape(in, w, params);
///   std::vector<float> scratch(conv2d_scratch_bytes(in, w, params) / 4);
///   Error e = conv2d(x, in, wt, w, bias, params, y, scratch);
///
/// Paths, chosen from the shapes:
/// - weight.c == 1 (depthwise, incl. channel multipliers): direct loops, no
///   scratch;
/// - 1x1 kernel, stride 1, no padding: a GEMM straight on the input planes;
/// - otherwise: implicit im2col — the GEMM's B-operand packing reads image
///   patches directly, so no K x (OH*OW) column matrix is materialised and
///   scratch stays at the GEMM's packing buffers (< 1 MiB).

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// Conv2d hyper-parameters. Padding is zero padding and may be asymmetric.
struct Conv2dParams {
  std::int64_t stride_h = 1;
  std::int64_t stride_w = 1;
  std::int64_t pad_top = 0;
  std::int64_t pad_left = 0;
  std::int64_t pad_bottom = 0;
  std::int64_t pad_right = 0;
  std::int64_t dilation_h = 1;
  std::int64_t dilation_w = 1;
  std::int64_t groups = 1;
};

/// Output shape [N, OC, OH, OW] for input [N, C, H, W] and weight
/// [OC, C/groups, KH, KW], with
///   OH = floor((H + pad_top + pad_bottom - dilation_h*(KH-1) - 1) / stride_h) + 1
/// (OW likewise). kInvalidArgument unless: N >= 0; C, H, W, OC, KH, KW >= 1;
/// strides and dilations >= 1; pads >= 0; groups >= 1 divides C and OC;
/// weight.c * groups == C; and OH, OW >= 1.
Result<Shape4> conv2d_output_shape(Shape4 input, Shape4 weight, const Conv2dParams& params);

/// Scratch bytes `conv2d` needs for these shapes (0 for depthwise or
/// invalid shapes).
std::size_t conv2d_scratch_bytes(Shape4 input, Shape4 weight, const Conv2dParams& params);

/// out[n][oc][oh][ow] = bias[oc] + sum over ic in oc's group, kh, kw of
///   in[n][ic][oh*stride_h - pad_top + kh*dilation_h]
///         [ow*stride_w - pad_left + kw*dilation_w] * weight[oc][ic'][kh][kw]
/// (out-of-range input positions read 0; ic' is ic's index in its group).
/// `bias` is null or holds OC floats. `output` holds the
/// conv2d_output_shape() elements and must not overlap the inputs.
/// `scratch` must hold conv2d_scratch_bytes() bytes; used only during the
/// call. Float32 throughout; sums are reassociated (blocked GEMM), so
/// expect ~1e-6 relative differences from a sequential loop.
/// kInvalidArgument for invalid shapes, null pointers or short scratch.
Error conv2d(const float* input, Shape4 input_shape, const float* weight, Shape4 weight_shape,
             const float* bias, const Conv2dParams& params, float* output, Span<float> scratch);

}  // namespace glassbox::runtime::kernels

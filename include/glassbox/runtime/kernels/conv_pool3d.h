#pragma once
/// @file
/// 3-D (volumetric, NCDHW) convolution, transposed convolution and pooling:
/// ONNX Conv, ConvTranspose, MaxPool and AveragePool over three spatial
/// dims (PyTorch nn.Conv3d, nn.ConvTranspose3d, nn.MaxPool3d,
/// nn.AvgPool3d). Spatial arrays are in {D, H, W} order.
///
///   Result<Shape5> out = conv3d_output_shape(in, w, params);
///   Error e = conv3d(x, in, wt, w, bias, params, y);
///
/// Direct loops whose innermost loop runs along an output (or, transposed,
/// input) row, so a unit stride is a vectorised AXPY; no scratch. 1-D ops
/// use the 2-D kernels with a height of 1 instead (exact, and faster).

#include <array>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"

namespace glassbox::runtime::kernels {

/// A volume shape in NCDHW order (or a 3-D conv weight).
struct Shape5 {
  std::int64_t n = 0;
  std::int64_t c = 0;
  std::int64_t d = 0;
  std::int64_t h = 0;
  std::int64_t w = 0;

  std::int64_t numel() const { return n * c * d * h * w; }
  friend bool operator==(const Shape5&, const Shape5&) = default;
};

using Spatial3 = std::array<std::int64_t, 3>;

/// Conv3d and ConvTranspose3d hyper-parameters (zero padding, may be
/// asymmetric). output_padding is for the transposed convolution only.
struct Conv3dParams {
  Spatial3 stride{1, 1, 1};
  Spatial3 dilation{1, 1, 1};
  Spatial3 pad_begin{0, 0, 0};
  Spatial3 pad_end{0, 0, 0};
  Spatial3 output_padding{0, 0, 0};  ///< Extra positions at each dim's end.
  std::int64_t groups = 1;
};

/// [N, OC, OD, OH, OW] for input [N, C, D, H, W] and weight [OC, C/groups,
/// KD, KH, KW], each output size as conv2d's. kInvalidArgument unless N >= 0;
/// C, spatial sizes, OC and the kernel >= 1; strides and dilations >= 1;
/// pads >= 0; groups >= 1 divides C and OC; weight.c * groups == C; and
/// every output size >= 1.
Result<Shape5> conv3d_output_shape(Shape5 input, Shape5 weight, const Conv3dParams& params);

/// out[n][oc][od][oh][ow] = bias[oc] + sum over ic in oc's group and taps
/// (kd, kh, kw) of in[n][ic][od*sd - pd + kd*dd][...][...] *
/// weight[oc][ic'][kd][kh][kw] (out-of-range inputs read 0). Sums in float,
/// in (ic, kd, kh, kw) order. `bias` is null or holds OC floats; `output`
/// holds conv3d_output_shape() elements and must not overlap the inputs.
Error conv3d(const float* input, Shape5 input_shape, const float* weight, Shape5 weight_shape,
             const float* bias, const Conv3dParams& params, float* output);

/// [N, weight.c * groups, OD, OH, OW] for input [N, C_in, D, H, W] and weight
/// in ONNX layout [C_in, C_out/groups, KD, KH, KW], each size as
/// conv_transpose2d's. Same rules as conv_transpose2d_output_shape.
Result<Shape5> conv_transpose3d_output_shape(Shape5 input, Shape5 weight,
                                             const Conv3dParams& params);

/// ONNX ConvTranspose in 3-D: every input element times every tap adds into
/// out[n][oc][id*sd - pd + kd*dd][...][...] (positions outside the output
/// are dropped); positions no tap reaches hold bias (or 0). `output_shape`
/// must equal conv_transpose3d_output_shape(). Sums in (ic, kd, kh, kw)
/// order.
Error conv_transpose3d(const float* input, Shape5 input_shape, const float* weight,
                       Shape5 weight_shape, const float* bias, const Conv3dParams& params,
                       Shape5 output_shape, float* output);

/// Pooling window parameters, as Pool2dParams over three dims: padded
/// positions are never read.
struct Pool3dParams {
  Spatial3 kernel{1, 1, 1};
  Spatial3 stride{1, 1, 1};
  Spatial3 dilation{1, 1, 1};  ///< max_pool3d only; avg needs 1.
  Spatial3 pad_begin{0, 0, 0};
  Spatial3 pad_end{0, 0, 0};
  bool ceil_mode = false;         ///< PyTorch's rule, as pool2d_output_shape.
  bool count_include_pad = true;  ///< avg_pool3d only.
};

/// [N, C, OD, OH, OW], each size as pool2d_output_shape computes it.
Result<Shape5> pool3d_output_shape(Shape5 input, const Pool3dParams& params);

/// Max over each window's in-bounds elements (-infinity for none); NaN wins.
Error max_pool3d(const float* input, Shape5 input_shape, const Pool3dParams& params, float* output);

/// Sum of each window's in-bounds elements (in float, d then h then w
/// order) divided by count_include_pad ? the window's volume clipped to the
/// padded input : the in-bounds count (0 gives 0). kInvalidArgument also for
/// a dilation other than 1.
Error avg_pool3d(const float* input, Shape5 input_shape, const Pool3dParams& params, float* output);

}  // namespace glassbox::runtime::kernels

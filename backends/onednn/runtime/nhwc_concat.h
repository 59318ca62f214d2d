#pragma once
/// @file
/// Concatenation over channels of dense NHWC float tensors, the layout
/// oneDNN 2.6's fastest convolutions leave their outputs in. Its own
/// concat over that layout (`concat: simple:any`) measured 1.4-2.1x slower
/// than this one here (squeezenet's first fire module, 2 x 64 channels
/// over 55x55, warm: 74 against 35 us; its eight concats took 8% of the
/// model), so the oneDNN delegate runs this one there
/// (`concat: glassbox:nhwc`). Device code: no allocation.

#include <cstdint>

namespace glassbox::backends::onednn {

/// y[p, first_k + c] = inputs[k][p, c] for each pixel p < `pixels` (N * H
/// * W), input k of `channels[k]` channels, first_k the sum of the channels
/// before it; y has the sum of all of them. Splits the pixels over the
/// OpenMP threads in force.
void nhwc_concat(std::int64_t pixels, std::uint32_t num_inputs, const float* const* inputs,
                 const std::int64_t* channels, float* y);

}  // namespace glassbox::backends::onednn

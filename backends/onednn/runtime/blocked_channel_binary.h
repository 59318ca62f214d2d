#pragma once
/// @file
/// A binary operation between a channel-blocked 4-D tensor and one value
/// per image and channel: a squeeze-excite's scale over the output of a
/// grouped convolution, which oneDNN 2.6 leaves in channel blocks of 8 or
/// 16 (aBcd8b, aBcd16b). oneDNN runs that broadcast on its reference
/// kernel, about 100 ns an element (aBcd8b on an AVX-512 CPU, or a scale
/// in plain order): regnet_y_400mf's 16 SE multiplies took 42 of its 52
/// ms there. The oneDNN delegate runs this one instead
/// (`binary: glassbox:blocked_channel`). Device code: no allocation.

#include <cstdint>

#include "backends/onednn/onednn_format.h"

namespace glassbox::backends::onednn {

/// y = x `op` s for x and y [N, C, H, W] (`dims`) in channel blocks of
/// `block`: [N][ceil(C / block)][H][W][block], the last block's lanes past
/// C padding; s [N, C] in plain order. Writes every lane of y, padding
/// lanes as 0 (oneDNN expects padding zero). Splits the blocks over the
/// OpenMP threads in force.
void blocked_channel_binary(DnnBinary op, const std::int64_t* dims, std::int64_t block,
                            const float* x, const float* s, float* y);

}  // namespace glassbox::backends::onednn

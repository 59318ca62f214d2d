#pragma once
/// @file
/// The fewest dims a broadcast binary operation can be seen with. oneDNN
/// 2.6's jit binary kernel recognises a few broadcast patterns (a scalar,
/// per channel, per batch and spatial...) and runs every other one on its
/// reference kernel, about 100 ns an element: swin_t's window-mask add,
/// [1,64,3,49,49] + [1,64,1,49,49], took 44 ms there. Seen as [64,3,2401]
/// + [64,1,2401] (the same bytes) it takes the jit kernel.

#include <cstdint>

namespace glassbox::backends::onednn {

/// For x (`x_dims`) op y (`y_dims`, x's rank, each 1 or x's), dense and
/// row-major: drops the dims of size 1 on both sides and merges
/// neighbours that y both broadcasts or both matches. Writes the merged
/// dims to `x_out` and `y_out` (room for `rank`) and returns their count,
/// at least 1 (all dims of size 1: [1] and [1]).
int merge_broadcast_dims(const std::int64_t* x_dims, const std::int64_t* y_dims, int rank,
                         std::int64_t* x_out, std::int64_t* y_out);

}  // namespace glassbox::backends::onednn

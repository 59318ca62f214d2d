#pragma once
/// @file
/// Convolutions in blocks of output channels. On one thread XNNPACK's
/// f32 GEMM/IGEMM runs a tile of a few output pixels (7 on AVX-512)
/// against every output channel before it moves to the next pixels, so a
/// convolution whose packed weights do not fit in the core's L2 cache
/// reads them all from L3 once per tile: squeezenet1_1's classifier
/// (512 -> 1000 channels, 2 MB of weights at 13x13) reads them 25 times.
/// Split into blocks of output channels whose weights fit, each block is
/// its own XNNPACK operator writing its channels of the same output (with
/// the output's pixel stride), and keeps its weights in L2 over all the
/// pixels. The result is the same to the bit: each output channel is
/// computed by the same kernel over the same inputs in the same order.
///
/// The gain is small because XNNPACK's loop, not the weights' traffic,
/// bounds these convolutions: alone, on a Zen 5 core, squeezenet's
/// classifier 1.08 -> 1.04 ms, mobilenet_v2's 960 -> 320 and 320 -> 1280
/// 1x1 convolutions 3-4%, a 3x3 256 -> 512 at 14x14 4.5%, and none
/// slower (docs/benchmarks.md, issue 33). Only on one thread: with a
/// pool XNNPACK already splits the channels between the threads.

#include <cstddef>

namespace glassbox::backends::xnnpack {

/// Packed weights per block at most this many bytes (half of a 1 MB L2:
/// the input's pixels stream through the other half).
inline constexpr std::size_t kChannelBlockBytes = 512 * 1024;
/// Blocks are a multiple of this many channels (the widest AVX-512 f32
/// microkernel's 16 columns, whole tiles), so no block pads a tile.
inline constexpr std::size_t kChannelBlockQuantum = 16;

/// The output channels per block of a convolution with one group and
/// `out_channels` channels, each with `weights_per_channel` kernel
/// values (kh * kw * input channels, plus its bias), over `output_pixels`
/// pixels: `out_channels` (one block) unless its weights exceed
/// kChannelBlockBytes and there are pixels enough for more than one tile
/// to reuse them.
std::size_t channels_per_block(std::size_t out_channels, std::size_t weights_per_channel,
                               std::size_t output_pixels);

}  // namespace glassbox::backends::xnnpack

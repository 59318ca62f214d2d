#include "backends/xnnpack/runtime/channel_blocks.h"

#include <algorithm>

namespace glassbox::backends::xnnpack {

namespace {
// Pixels per tile of the AVX-512 f32 GEMM (7x16): with no more pixels than
// this the weights are read once whatever the blocks.
constexpr std::size_t kTilePixels = 7;
}  // namespace

std::size_t channels_per_block(std::size_t out_channels, std::size_t weights_per_channel,
                               std::size_t output_pixels) {
  const std::size_t bytes_per_channel =
      std::max<std::size_t>(weights_per_channel, 1) * sizeof(float);
  if (output_pixels <= kTilePixels || out_channels * bytes_per_channel <= kChannelBlockBytes) {
    return out_channels;
  }
  const std::size_t fit = kChannelBlockBytes / bytes_per_channel;
  const std::size_t block =
      std::max(fit / kChannelBlockQuantum, std::size_t{1}) * kChannelBlockQuantum;
  return std::min(block, out_channels);
}

}  // namespace glassbox::backends::xnnpack

#include "backends/onednn/runtime/nhwc_concat.h"

#include <cstring>

#include "backends/onednn/runtime/thread_ranges.h"

namespace glassbox::backends::onednn {
namespace {

// Pixels [first, end): each pixel's output row is written once, front to
// back, from every input in turn (each input's rows are read in order).
void concat_pixels(std::int64_t first, std::int64_t end, std::uint32_t num_inputs,
                   const float* const* inputs, const std::int64_t* channels,
                   std::int64_t out_channels, float* y) {
  for (std::int64_t p = first; p < end; ++p) {
    float* out = y + p * out_channels;
    for (std::uint32_t k = 0; k < num_inputs; ++k) {
      const std::int64_t c = channels[k];
      std::memcpy(out, inputs[k] + p * c, static_cast<std::size_t>(c) * sizeof(float));
      out += c;
    }
  }
}

}  // namespace

void nhwc_concat(std::int64_t pixels, std::uint32_t num_inputs, const float* const* inputs,
                 const std::int64_t* channels, float* y) {
  std::int64_t out_channels = 0;
  for (std::uint32_t k = 0; k < num_inputs; ++k) out_channels += channels[k];
  for_each_thread_range(pixels, [&](std::int64_t first, std::int64_t end) {
    concat_pixels(first, end, num_inputs, inputs, channels, out_channels, y);
  });
}

}  // namespace glassbox::backends::onednn

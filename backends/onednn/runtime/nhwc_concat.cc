#include "backends/onednn/runtime/nhwc_concat.h"

#include <cstring>

#ifdef _OPENMP
#include <omp.h>
#endif

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
#pragma omp parallel
  {
#ifdef _OPENMP
    const std::int64_t threads = omp_get_num_threads();
    const std::int64_t id = omp_get_thread_num();
#else
    const std::int64_t threads = 1;
    const std::int64_t id = 0;
#endif
    concat_pixels(pixels * id / threads, pixels * (id + 1) / threads, num_inputs, inputs, channels,
                  out_channels, y);
  }
}

}  // namespace glassbox::backends::onednn

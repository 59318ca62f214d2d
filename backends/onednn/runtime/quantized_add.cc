#include "backends/onednn/runtime/quantized_add.h"

#include "backends/onednn/runtime/thread_ranges.h"

namespace glassbox::backends::onednn {
namespace {

template <class T>
void add_range(const QuantizedAddParams& p, const T* a, const T* b, T* y, std::int64_t first,
               std::int64_t end) {
  // Requantizer's steps (quantized_internal.h): clamp to the range less
  // the zero point, round by adding and subtracting 1.5 * 2^23, add it.
  const float lo = static_cast<float>(p.y_min - p.y_zero_point);
  const float hi = static_cast<float>(p.y_max - p.y_zero_point);
  const std::int32_t za = p.a_zero_point, zb = p.b_zero_point, zy = p.y_zero_point;
  const float ra = p.ratio_a, rb = p.ratio_b;
  constexpr float kMagic = 12582912.0f;
  // Each element on its own: vectorizing changes no result (no sum is
  // reassociated). GCC at -O2 leaves the loop scalar without the pragma.
#pragma omp simd
  for (std::int64_t i = first; i < end; ++i) {
    float v = static_cast<float>(a[i] - za) * ra + static_cast<float>(b[i] - zb) * rb;
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    y[i] = static_cast<T>(static_cast<std::int32_t>((v + kMagic) - kMagic) + zy);
  }
}

}  // namespace

void quantized_add(const QuantizedAddParams& p, const void* a, const void* b, void* y,
                   std::int64_t n) {
  // Below this, one thread: waking the others costs more than the loop.
  constexpr std::int64_t kMinParallel = 1 << 14;
  const auto run = [&](std::int64_t first, std::int64_t end) {
    if (p.is_signed) {
      add_range(p, static_cast<const std::int8_t*>(a), static_cast<const std::int8_t*>(b),
                static_cast<std::int8_t*>(y), first, end);
    } else {
      add_range(p, static_cast<const std::uint8_t*>(a), static_cast<const std::uint8_t*>(b),
                static_cast<std::uint8_t*>(y), first, end);
    }
  };
  if (n < kMinParallel) {
    run(0, n);
    return;
  }
  for_each_thread_range(n, run);
}

}  // namespace glassbox::backends::onednn

#include "glassbox/runtime/kernels/cumsum.h"

namespace glassbox::runtime::kernels {
namespace {

// The tensor seen as [outer, length, inner] around `axis`: each of the
// outer * inner lines is summed on its own, reading x before writing y, so
// that y may be x.
template <typename T>
Error cumsum_lines(const T* x, Span<const std::int64_t> shape, std::int64_t axis, bool exclusive,
                   bool reverse, T* y) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (rank == 0 || axis < 0 || axis >= rank) return Error::kInvalidArgument;
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < rank; ++d) {
    if (shape[static_cast<std::size_t>(d)] < 0) return Error::kInvalidArgument;
    if (d < axis) outer *= shape[static_cast<std::size_t>(d)];
    if (d > axis) inner *= shape[static_cast<std::size_t>(d)];
  }
  const std::int64_t length = shape[static_cast<std::size_t>(axis)];
  if (outer * length * inner == 0) return Error::kOk;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t base = o * length * inner + i;
      T sum = 0;
      for (std::int64_t step = 0; step < length; ++step) {
        const std::int64_t k = reverse ? length - 1 - step : step;
        const std::int64_t at = base + k * inner;
        const T value = x[at];
        if (!exclusive) sum += value;
        y[at] = sum;
        if (exclusive) sum += value;
      }
    }
  }
  return Error::kOk;
}

}  // namespace

Error cumsum(const float* x, Span<const std::int64_t> shape, std::int64_t axis, bool exclusive,
             bool reverse, float* y) {
  return cumsum_lines(x, shape, axis, exclusive, reverse, y);
}

Error cumsum(const std::int64_t* x, Span<const std::int64_t> shape, std::int64_t axis,
             bool exclusive, bool reverse, std::int64_t* y) {
  return cumsum_lines(x, shape, axis, exclusive, reverse, y);
}

}  // namespace glassbox::runtime::kernels

#pragma once
// Shared pieces of the quantized kernels (private): argument checks, the
// float -> integer step every kernel ends with, the int8/uint8 dispatch
// and the int16 dot product the conv and matmul kernels run on.

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "glassbox/runtime/kernels/quantized.h"

namespace glassbox::runtime::kernels::internal {

inline bool is_q8(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }
inline std::int32_t q8_min(ScalarType t) { return t == ScalarType::kChar ? -128 : 0; }
inline std::int32_t q8_max(ScalarType t) { return t == ScalarType::kChar ? 127 : 255; }

inline bool valid_scale(float s) { return std::isfinite(s) && s > 0.0f; }

// The one type-dispatch point: calls f(T{}) with T = int8_t or uint8_t.
template <typename F>
decltype(auto) dispatch_q8(ScalarType t, F&& f) {
  if (t == ScalarType::kChar) return f(std::int8_t{});
  return f(std::uint8_t{});
}

ErrorInfo check_input(const QuantInput& x, const char* message);

// The output's step as float bounds relative to its zero point:
// y = requantize(v) keeps v in [lo, hi] before rounding.
struct Requantizer {
  float lo = 0.0f;
  float hi = 0.0f;
  std::int32_t zero_point = 0;

  // clamp(round_half_even(v) + zero_point, range). The bounds are
  // integers, so clamping before rounding is the same as after; then
  // |v| < 2^22 and adding 1.5 * 2^23 rounds to an integer half-to-even in
  // the default rounding mode (NaN clamps to lo: callers decide NaN first).
  std::int32_t operator()(float v) const {
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
    return static_cast<std::int32_t>((v + kMagic) - kMagic) + zero_point;
  }
};

// Checks y (pointer, type, scale, zero point, range) and makes its
// requantizer. `message` names the kernel for every failure.
ErrorInfo make_requantizer(const QuantOutput& y, const char* message, Requantizer* out);

// Checks per-tensor or per-channel weights: scales count 1 or `channels`,
// zero points empty or the same count, all valid for w.type, and every
// requantization multiplier x_scale * w_scale / y_scale finite.
ErrorInfo check_weight(const QuantWeight& w, std::int64_t channels, float x_scale, float y_scale,
                       const char* message);
inline float weight_scale(const QuantWeight& w, std::int64_t c) {
  return w.quant.scales[w.quant.scales.size() == 1 ? 0 : static_cast<std::size_t>(c)];
}
inline std::int32_t weight_zero_point(const QuantWeight& w, std::int64_t c) {
  if (w.quant.zero_points.empty()) return 0;
  return w.quant.zero_points[w.quant.zero_points.size() == 1 ? 0 : static_cast<std::size_t>(c)];
}

// dot(a, b) over k int16 values, summed exactly: int32 partial sums over
// kDotBlock terms (|a|, |b| <= 255 keeps each below 2^31), added in int64.
inline constexpr std::int64_t kDotBlock = 16384;

// out[r * out_stride + c] = dot(rows[r], cols[c]) (each k int16 long,
// contiguous) for r < nrows, c < ncols: the inner loop of conv and matmul.
void dot_tile(const std::int16_t* rows, std::int64_t nrows, const std::int16_t* cols,
              std::int64_t ncols, std::int64_t k, std::int64_t* out, std::int64_t out_stride);

// Aligns a byte span's start to `align` and returns it as T*, or null if
// fewer than `count` T fit. `count` is 64-bit (tensor sizes are): on a
// 32-bit target a count past size_t is refused here, not truncated by the
// caller.
template <typename T>
T* carve(Span<std::uint8_t>* scratch, std::uint64_t count) {
  const auto addr = reinterpret_cast<std::uintptr_t>(scratch->data());
  const std::size_t pad = (alignof(T) - addr % alignof(T)) % alignof(T);
  if (scratch->size() < pad || (scratch->size() - pad) / sizeof(T) < count) return nullptr;
  T* p = reinterpret_cast<T*>(scratch->data() + pad);
  // count fits in size_t now: it is at most the span's size / sizeof(T).
  *scratch = scratch->subspan(pad + static_cast<std::size_t>(count) * sizeof(T));
  return p;
}

}  // namespace glassbox::runtime::kernels::internal

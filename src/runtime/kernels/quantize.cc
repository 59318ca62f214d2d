// quantize_linear, dequantize_linear, activation ranges and the argument
// checks every quantized kernel shares.

#include <algorithm>
#include <cmath>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_internal.h"

namespace glassbox::runtime::kernels {
namespace internal {

ErrorInfo check_input(const QuantInput& x, const char* message) {
  if (!is_q8(x.type) || !valid_scale(x.scale) || x.zero_point < q8_min(x.type) ||
      x.zero_point > q8_max(x.type))
    return make_error(Error::kInvalidArgument, message);
  return kOk;
}

ErrorInfo make_requantizer(const QuantOutput& y, const char* message, Requantizer* out) {
  if (!is_q8(y.type) || !valid_scale(y.scale) || y.zero_point < q8_min(y.type) ||
      y.zero_point > q8_max(y.type))
    return make_error(Error::kInvalidArgument, message);
  const std::int32_t lo = std::max(y.range.min, q8_min(y.type));
  const std::int32_t hi = std::min(y.range.max, q8_max(y.type));
  if (lo > hi) return make_error(Error::kInvalidArgument, message);
  *out = Requantizer{static_cast<float>(lo - y.zero_point), static_cast<float>(hi - y.zero_point),
                     y.zero_point};
  return kOk;
}

ErrorInfo check_weight(const QuantWeight& w, std::int64_t channels, float x_scale, float y_scale,
                       const char* message) {
  const std::size_t count = w.quant.scales.size();
  if (!is_q8(w.type) || (count != 1 && static_cast<std::int64_t>(count) != channels) ||
      (!w.quant.zero_points.empty() && w.quant.zero_points.size() != count))
    return make_error(Error::kInvalidArgument, message);
  for (float s : w.quant.scales)
    if (!valid_scale(s) || !std::isfinite(x_scale * s / y_scale))
      return make_error(Error::kInvalidArgument, message);
  for (std::int32_t z : w.quant.zero_points)
    if (z < q8_min(w.type) || z > q8_max(w.type))
      return make_error(Error::kInvalidArgument, message);
  return kOk;
}

}  // namespace internal

namespace {

using internal::Requantizer;

// A tensor seen as [outer, channels, inner] around the quantized axis
// (channels == 1 for per-tensor quantization).
struct AxisView {
  std::int64_t outer = 1;
  std::int64_t channels = 1;
  std::int64_t inner = 1;
};

// Checks shape, axis and parameters; `zp_min`/`zp_max` bound zero points.
ErrorInfo axis_view(Span<const std::int64_t> shape, QuantParams q, std::int64_t axis,
                    std::int64_t zp_min, std::int64_t zp_max, const char* message, AxisView* view) {
  if (!checked_numel(shape).ok() || q.scales.empty() ||
      (!q.zero_points.empty() && q.zero_points.size() != q.scales.size()))
    return make_error(Error::kInvalidArgument, message);
  for (float s : q.scales)
    if (!internal::valid_scale(s)) return make_error(Error::kInvalidArgument, message);
  for (std::int32_t z : q.zero_points)
    if (z < zp_min || z > zp_max) return make_error(Error::kInvalidArgument, message);
  AxisView v;
  if (q.scales.size() == 1) {
    v.inner = *checked_numel(shape);
  } else {
    const auto rank = static_cast<std::int64_t>(shape.size());
    if (axis < -rank || axis >= rank) return make_error(Error::kInvalidArgument, message);
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    if (shape[a] != static_cast<std::int64_t>(q.scales.size()))
      return make_error(Error::kInvalidArgument, message);
    for (std::size_t i = 0; i < a; ++i) v.outer *= shape[i];
    v.channels = shape[a];
    for (std::size_t i = a + 1; i < shape.size(); ++i) v.inner *= shape[i];
  }
  *view = v;
  return kOk;
}

template <typename T>
void quantize_run(const float* x, const AxisView& v, QuantParams q, T* y) {
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < v.channels; ++c) {
      const auto ci = static_cast<std::size_t>(c);
      const float scale = q.scales[ci];
      const std::int32_t zp = q.zero_points.empty() ? 0 : q.zero_points[ci];
      const Requantizer rq{static_cast<float>(std::numeric_limits<T>::min() - zp),
                           static_cast<float>(std::numeric_limits<T>::max() - zp), zp};
      const std::int64_t base = (o * v.channels + c) * v.inner;
      for (std::int64_t i = 0; i < v.inner; ++i) {
        float r = x[base + i] / scale;
        r = r != r ? 0.0f : r;  // NaN -> zero point
        y[base + i] = static_cast<T>(rq(r));
      }
    }
}

template <typename T>
void dequantize_run(const T* x, const AxisView& v, QuantParams q, float* y) {
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t c = 0; c < v.channels; ++c) {
      const auto ci = static_cast<std::size_t>(c);
      const float scale = q.scales[ci];
      const std::int64_t zp = q.zero_points.empty() ? 0 : q.zero_points[ci];
      const std::int64_t base = (o * v.channels + c) * v.inner;
      for (std::int64_t i = 0; i < v.inner; ++i)
        y[base + i] = static_cast<float>(static_cast<std::int64_t>(x[base + i]) - zp) * scale;
    }
}

}  // namespace

ErrorInfo quantize_linear(const float* x, Span<const std::int64_t> shape, QuantParams quant,
                          std::int64_t axis, void* y, ScalarType y_type) {
  constexpr const char* kMessage =
      "quantize_linear: bad shape, axis, output type, scale or zero point";
  if (!internal::is_q8(y_type)) return make_error(Error::kInvalidArgument, kMessage);
  AxisView v;
  if (ErrorInfo e = axis_view(shape, quant, axis, internal::q8_min(y_type),
                              internal::q8_max(y_type), kMessage, &v);
      e.code != Error::kOk)
    return e;
  if (v.outer * v.channels * v.inner == 0) return kOk;
  if (x == nullptr || y == nullptr)
    return make_error(Error::kInvalidArgument, "quantize_linear: null pointer");
  internal::dispatch_q8(y_type, [&](auto t) {
    using T = decltype(t);
    quantize_run(x, v, quant, static_cast<T*>(y));
  });
  return kOk;
}

ErrorInfo dequantize_linear(const void* x, ScalarType x_type, Span<const std::int64_t> shape,
                            QuantParams quant, std::int64_t axis, float* y) {
  constexpr const char* kMessage =
      "dequantize_linear: bad shape, axis, input type, scale or zero point";
  const bool is_int32 = x_type == ScalarType::kInt;
  if (!internal::is_q8(x_type) && !is_int32) return make_error(Error::kInvalidArgument, kMessage);
  AxisView v;
  const std::int64_t zp_min =
      is_int32 ? std::numeric_limits<std::int32_t>::min() : internal::q8_min(x_type);
  const std::int64_t zp_max =
      is_int32 ? std::numeric_limits<std::int32_t>::max() : internal::q8_max(x_type);
  if (ErrorInfo e = axis_view(shape, quant, axis, zp_min, zp_max, kMessage, &v);
      e.code != Error::kOk)
    return e;
  if (v.outer * v.channels * v.inner == 0) return kOk;
  if (x == nullptr || y == nullptr)
    return make_error(Error::kInvalidArgument, "dequantize_linear: null pointer");
  if (is_int32) {
    dequantize_run(static_cast<const std::int32_t*>(x), v, quant, y);
  } else {
    internal::dispatch_q8(x_type, [&](auto t) {
      using T = decltype(t);
      dequantize_run(static_cast<const T*>(x), v, quant, y);
    });
  }
  return kOk;
}

QuantRange quantized_relu_range(const QuantOutput& y) {
  return QuantRange{y.zero_point, std::numeric_limits<std::int32_t>::max()};
}

Result<QuantRange> quantized_clamp_range(const QuantOutput& y, float lo, float hi) {
  constexpr const char* kMessage = "quantized_clamp_range: bad bounds or output quantization";
  QuantOutput full = y;
  full.range = QuantRange{};
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(full, kMessage, &rq); e.code != Error::kOk) return e;
  if (std::isnan(lo) || std::isnan(hi) || lo > hi)
    return make_error(Error::kInvalidArgument, kMessage);
  return QuantRange{rq(lo / y.scale), rq(hi / y.scale)};
}

}  // namespace glassbox::runtime::kernels

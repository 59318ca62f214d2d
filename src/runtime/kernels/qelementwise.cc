// qlinear_add, qlinear_mul, quantized_clamp and the lookup-table ops.

#include <algorithm>
#include <cstring>

#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/broadcast_loop.h"
#include "src/runtime/kernels/quantized_internal.h"

namespace glassbox::runtime::kernels {
namespace {

using internal::Requantizer;

enum class QBinary { kAdd, kMul };

ErrorInfo qlinear_binary(QBinary op, const QuantInput& a, Span<const std::int64_t> a_shape,
                         const QuantInput& b, Span<const std::int64_t> b_shape,
                         const QuantOutput& y, const char* message) {
  Result<Dims> out = broadcast_shapes(a_shape, b_shape);
  if (!out.ok()) return out.error_info();
  if (ErrorInfo e = internal::check_input(a, message); e.code != Error::kOk) return e;
  if (ErrorInfo e = internal::check_input(b, message); e.code != Error::kOk) return e;
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(y, message, &rq); e.code != Error::kOk) return e;
  if (a.type != y.type || b.type != y.type) return make_error(Error::kInvalidArgument, message);
  const float ratio_a = a.scale / y.scale;
  const float ratio_b = b.scale / y.scale;
  const float ratio_ab = a.scale * b.scale / y.scale;
  if (!std::isfinite(ratio_a) || !std::isfinite(ratio_b) || !std::isfinite(ratio_ab))
    return make_error(Error::kInvalidArgument, message);
  if (out->numel() == 0) return kOk;
  if (a.data == nullptr || b.data == nullptr || y.data == nullptr)
    return make_error(Error::kInvalidArgument, message);
  const BroadcastWalk plan = broadcast_walk(*out, a_shape, b_shape);
  const std::int32_t za = a.zero_point;
  const std::int32_t zb = b.zero_point;
  internal::dispatch_q8(y.type, [&](auto t) {
    using T = decltype(t);
    const T* pa = static_cast<const T*>(a.data);
    const T* pb = static_cast<const T*>(b.data);
    T* py = static_cast<T*>(y.data);
    if (op == QBinary::kAdd) {
      internal::broadcast_loop(plan, pa, pb, py, [&](T u, T v) {
        return static_cast<T>(
            rq(static_cast<float>(u - za) * ratio_a + static_cast<float>(v - zb) * ratio_b));
      });
    } else {
      internal::broadcast_loop(plan, pa, pb, py, [&](T u, T v) {
        return static_cast<T>(rq(static_cast<float>((u - za) * (v - zb)) * ratio_ab));
      });
    }
  });
  return kOk;
}

}  // namespace

ErrorInfo qlinear_add(const QuantInput& a, Span<const std::int64_t> a_shape, const QuantInput& b,
                      Span<const std::int64_t> b_shape, const QuantOutput& y) {
  return qlinear_binary(QBinary::kAdd, a, a_shape, b, b_shape, y,
                        "qlinear_add: bad shapes, types, scales or zero points");
}

ErrorInfo qlinear_mul(const QuantInput& a, Span<const std::int64_t> a_shape, const QuantInput& b,
                      Span<const std::int64_t> b_shape, const QuantOutput& y) {
  return qlinear_binary(QBinary::kMul, a, a_shape, b, b_shape, y,
                        "qlinear_mul: bad shapes, types, scales or zero points");
}

ErrorInfo quantized_clamp(const void* x, ScalarType type, std::int64_t n, QuantRange range,
                          void* y) {
  constexpr const char* kMessage = "quantized_clamp: bad type, count, range or null pointer";
  if (!internal::is_q8(type) || n < 0) return make_error(Error::kInvalidArgument, kMessage);
  const std::int32_t lo = std::max(range.min, internal::q8_min(type));
  const std::int32_t hi = std::min(range.max, internal::q8_max(type));
  if (lo > hi) return make_error(Error::kInvalidArgument, kMessage);
  if (n == 0) return kOk;
  if (x == nullptr || y == nullptr) return make_error(Error::kInvalidArgument, kMessage);
  internal::dispatch_q8(type, [&](auto t) {
    using T = decltype(t);
    const T* src = static_cast<const T*>(x);
    T* dst = static_cast<T*>(y);
    const T tlo = static_cast<T>(lo);
    const T thi = static_cast<T>(hi);
    for (std::int64_t i = 0; i < n; ++i) dst[i] = std::min(std::max(src[i], tlo), thi);
  });
  return kOk;
}

ErrorInfo build_quant_lut(UnaryFloatKernel fn, const QuantInput& x, const QuantOutput& y,
                          Span<std::uint8_t> lut) {
  constexpr const char* kMessage = "build_quant_lut: bad function, quantization or table size";
  if (fn == nullptr || lut.size() < 256) return make_error(Error::kInvalidArgument, kMessage);
  if (ErrorInfo e = internal::check_input(x, kMessage); e.code != Error::kOk) return e;
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(y, kMessage, &rq); e.code != Error::kOk) return e;
  // values[i] is the input whose byte is i.
  float values[256];
  for (int i = 0; i < 256; ++i) {
    const std::int32_t q = x.type == ScalarType::kChar ? static_cast<std::int8_t>(i) : i;
    values[i] = static_cast<float>(q - x.zero_point) * x.scale;
  }
  const Error e = fn(values, values, 256);
  if (e != Error::kOk) return make_error(e, "build_quant_lut: the float kernel failed");
  for (int i = 0; i < 256; ++i) {
    float r = values[i] / y.scale;
    r = r != r ? 0.0f : r;
    // The output's bits: int8 two's complement or uint8.
    lut[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(rq(r));
  }
  return kOk;
}

ErrorInfo apply_quant_lut(const void* x, std::int64_t n, Span<const std::uint8_t> lut, void* y) {
  if (n < 0 || lut.size() < 256 || (n > 0 && (x == nullptr || y == nullptr)))
    return make_error(Error::kInvalidArgument,
                      "apply_quant_lut: bad count, table size or null pointer");
  const auto* src = static_cast<const std::uint8_t*>(x);
  auto* dst = static_cast<std::uint8_t*>(y);
  std::uint8_t table[256];
  std::memcpy(table, lut.data(), sizeof(table));
  for (std::int64_t i = 0; i < n; ++i) dst[i] = table[src[i]];
  return kOk;
}

}  // namespace glassbox::runtime::kernels

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "src/runtime/kernels/fast_math.h"

namespace glassbox::runtime::kernels {
namespace {

template <typename T>
bool valid(const T* x, const T* y, std::int64_t n) {
  return n >= 0 && (n == 0 || (x != nullptr && y != nullptr));
}

// One plain loop per op; the ops are written with selects so that NaN
// passes through and the cheap ones vectorise.
template <typename T, typename F>
Error map(const T* x, T* y, std::int64_t n, F f) {
  if (!valid(x, y, n)) return Error::kInvalidArgument;
  for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  return Error::kOk;
}

constexpr float kSqrtHalf = 0.707106781186547524f;
constexpr float kSqrtTwoOverPi = 0.797884560802865356f;
constexpr float kGeluCubic = 0.044715f;
constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

// erf, tanh, exp and the gelus use fast_math.h rather than libm: its
// branch-free versions vectorise, libm calls do not.
Error erf(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return fast_math::erf(v); });
}

Error tanh(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return fast_math::tanh(v); });
}

Error exp(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return fast_math::exp(v); });
}

Error log(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::log(v); });
}

Error neg(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return -v; });
}

Error abs(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::fabs(v); });
}

Error sqrt(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::sqrt(v); });
}

Error reciprocal(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return 1.0f / v; });
}

Error sign(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : v); });
}

Error floor(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::floor(v); });
}

Error ceil(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::ceil(v); });
}

Error round(const float* x, float* y, std::int64_t n) {
  // std::round rounds halves away from zero; ONNX wants them to even, which
  // is what the default FE_TONEAREST mode gives nearbyint.
  return map(x, y, n, [](float v) { return std::nearbyint(v); });
}

Error softplus(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) {
    return v > 0.0f ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
  });
}

Error softsign(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) {
    if (std::isinf(v)) return v > 0.0f ? 1.0f : -1.0f;
    return v / (1.0f + std::fabs(v));
  });
}

Error gelu_erf(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) {
    // -inf * erfc(+inf) would be -inf * 0 = NaN. (A select, not an early
    // return, which would keep the loop from vectorising.)
    return fast_math::select(v == -kInf, -0.0f, 0.5f * v * fast_math::erfc(-v * kSqrtHalf));
  });
}

Error gelu_tanh(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) {
    const float u = kSqrtTwoOverPi * (v + kGeluCubic * v * v * v);
    // For very negative v, exp overflows to inf and v / inf = -0: the limit.
    return fast_math::select(v == -kInf, -0.0f, v / (1.0f + fast_math::exp(-2.0f * u)));
  });
}

Error leaky_relu(const float* x, float* y, std::int64_t n, float alpha) {
  return map(x, y, n, [=](float v) { return v < 0.0f ? alpha * v : v; });
}

Error elu(const float* x, float* y, std::int64_t n, float alpha) {
  return map(x, y, n, [=](float v) { return v < 0.0f ? alpha * std::expm1(v) : v; });
}

Error selu(const float* x, float* y, std::int64_t n, float alpha, float gamma) {
  return map(x, y, n,
             [=](float v) { return v > 0.0f ? gamma * v : gamma * (alpha * std::expm1(v)); });
}

Error logical_not(const std::uint8_t* x, std::uint8_t* y, std::int64_t n) {
  return map(x, y, n, [](std::uint8_t v) -> std::uint8_t { return v == 0; });
}

// ---------------------------------------------------------------------------
// Cast.

namespace {

static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559,
              "double -> float overflow relies on IEEE inf");

// Bool is a byte of its own kind: it reads as nonzero and writes as 0/1.
struct Bool {};

// A number to a number (cast_loop handles bool on either side).
template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // static_cast is undefined for NaN and out-of-range values, so those
    // are replaced by 0 before the cast and by the saturated value after.
    // min and max + 1 = 2 * (max / 2 + 1) are powers of two (or 0), exact
    // in every float type even where max is not. Selects, not branches, so
    // that g++ vectorises the loop.
    constexpr From kLowest = static_cast<From>(std::numeric_limits<To>::min());
    constexpr From kPastMax = static_cast<From>(std::numeric_limits<To>::max() / 2 + 1) * 2;
    const bool too_high = v >= kPastMax;
    v = v == v ? v : From{0};
    v = v < kLowest ? kLowest : v;
    v = too_high ? From{0} : v;
    const To truncated = static_cast<To>(v);
    return too_high ? std::numeric_limits<To>::max() : truncated;
  } else {
    // Integer -> integer wraps (defined since C++20), anything -> floating
    // rounds to nearest.
    return static_cast<To>(v);
  }
}

// The element type a Cast type is stored as.
template <typename T>
using Stored = std::conditional_t<std::is_same_v<T, Bool>, std::uint8_t, T>;

template <typename From, typename To>
Stored<To> convert_one(Stored<From> v) {
  if constexpr (std::is_same_v<To, Bool>) {
    return v != 0 ? 1 : 0;
  } else if constexpr (std::is_same_v<From, Bool>) {
    return v != 0 ? To{1} : To{0};
  } else {
    return convert<To>(v);
  }
}

template <typename From, typename To>
void cast_loop(const void* x, void* y, std::int64_t n) {
  if (x == y) {
    // In place, each element's storage holds a From until it is written as
    // a To; bytes (memcpy) rather than typed lvalues keep that defined.
    auto* bytes = static_cast<unsigned char*>(y);
    for (std::int64_t i = 0; i < n; ++i) {
      Stored<From> v;
      std::memcpy(&v, bytes + i * sizeof(v), sizeof(v));
      const Stored<To> w = convert_one<From, To>(v);
      std::memcpy(bytes + i * sizeof(w), &w, sizeof(w));
    }
    return;
  }
  // Typed pointers let the conversion loops vectorise.
  const auto* in = static_cast<const Stored<From>*>(x);
  auto* out = static_cast<Stored<To>*>(y);
  for (std::int64_t i = 0; i < n; ++i) out[i] = convert_one<From, To>(in[i]);
}

// Calls f(Type{}) with the C++ type standing for `type`; false if `type` is
// not one Cast supports.
template <typename F>
bool with_type(ScalarType type, F f) {
  switch (type) {
    case ScalarType::kFloat: f(float{}); return true;
    case ScalarType::kDouble: f(double{}); return true;
    case ScalarType::kLong: f(std::int64_t{}); return true;
    case ScalarType::kInt: f(std::int32_t{}); return true;
    case ScalarType::kBool: f(Bool{}); return true;
    case ScalarType::kByte: f(std::uint8_t{}); return true;
    case ScalarType::kChar: f(std::int8_t{}); return true;
    default: return false;
  }
}

bool supported(ScalarType type) {
  return with_type(type, [](auto) {});
}

}  // namespace

Error cast(const void* x, ScalarType from, void* y, ScalarType to, std::int64_t n) {
  if (!supported(from) || !supported(to) || n < 0) return Error::kInvalidArgument;
  if (n == 0) return Error::kOk;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  if (x == y && element_size(from) != element_size(to)) return Error::kInvalidArgument;
  with_type(from, [&](auto from_tag) {
    with_type(to, [&](auto to_tag) { cast_loop<decltype(from_tag), decltype(to_tag)>(x, y, n); });
  });
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

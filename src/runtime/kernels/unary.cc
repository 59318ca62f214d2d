#include <cmath>

#include "glassbox/runtime/kernels/elementwise.h"
#include "src/runtime/kernels/fast_math.h"
#include "src/runtime/kernels/vector_clones.h"

namespace glassbox::runtime::kernels {
namespace {

bool valid(const float* x, const float* y, std::int64_t n) {
  return n >= 0 && (n == 0 || (x != nullptr && y != nullptr));
}

// Each op is a plain loop over one expression; written with selects rather
// than std::min/max so that NaN passes through and g++ vectorises them.
template <typename F>
Error map(const float* x, float* y, std::int64_t n, F f) {
  if (!valid(x, y, n)) return Error::kInvalidArgument;
  for (std::int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  return Error::kOk;
}

float clamp_one(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

}  // namespace

GLASSBOX_VECTOR_CLONES
Error relu(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return v < 0.0f ? 0.0f : v; });
}

GLASSBOX_VECTOR_CLONES
Error clamp(const float* x, float* y, std::int64_t n, float min_value, float max_value) {
  if (std::isnan(min_value) || std::isnan(max_value) || min_value > max_value)
    return Error::kInvalidArgument;
  return map(x, y, n, [=](float v) { return clamp_one(v, min_value, max_value); });
}

GLASSBOX_VECTOR_CLONES
Error sigmoid(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) {
    // One exp of -|v| serves both halves: 1 / (1 + e) for v >= 0 and
    // e / (1 + e) for v < 0, neither of which overflows. fast_math's exp
    // (unlike std::exp) vectorises; the select keeps the loop branch-free.
    const float e = fast_math::exp_nonpositive(-std::fabs(v));
    return fast_math::select(v < 0.0f, e, 1.0f) / (1.0f + e);
  });
}

GLASSBOX_VECTOR_CLONES
Error hardswish(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return v * clamp_one(v + 3.0f, 0.0f, 6.0f) / 6.0f; });
}

GLASSBOX_VECTOR_CLONES
Error hardsigmoid(const float* x, float* y, std::int64_t n, float alpha, float beta) {
  return map(x, y, n, [=](float v) { return clamp_one(alpha * v + beta, 0.0f, 1.0f); });
}

Error tan(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::tan(v); });
}

Error sin(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::sin(v); });
}

Error cos(const float* x, float* y, std::int64_t n) {
  return map(x, y, n, [](float v) { return std::cos(v); });
}

}  // namespace glassbox::runtime::kernels

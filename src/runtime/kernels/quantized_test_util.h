#pragma once
// Shared helpers for the quantized kernel tests: seeded int8/uint8 data
// held as raw bytes, the double-precision reference quantizer, and the
// "within one step everywhere, exact almost everywhere" comparison.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "glassbox/runtime/kernels/quantized.h"

namespace glassbox::runtime::kernels::testing {

inline std::int32_t type_min(ScalarType t) { return t == ScalarType::kChar ? -128 : 0; }
inline std::int32_t type_max(ScalarType t) { return t == ScalarType::kChar ? 127 : 255; }

// The value of raw byte `b` read as `t`.
inline std::int32_t value_of(std::uint8_t b, ScalarType t) {
  return t == ScalarType::kChar ? static_cast<std::int8_t>(b) : b;
}

// n seeded bytes; read through value_of.
inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(dist(gen));
  return v;
}

inline std::vector<std::int32_t> random_ints(std::size_t n, std::uint32_t seed, std::int32_t lo,
                                             std::int32_t hi) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int32_t> dist(lo, hi);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// The reference quantizer: round half to even in double (the default
// rounding mode), add the zero point, clamp to the type and `range`.
inline std::int32_t ref_quantize(double real, ScalarType t, std::int32_t zp,
                                 QuantRange range = {}) {
  const double lo = std::max(range.min, type_min(t));
  const double hi = std::max(lo, static_cast<double>(std::min(range.max, type_max(t))));
  if (std::isnan(real)) real = 0.0;
  const double q = std::nearbyint(std::clamp(real, -1e12, 1e12)) + zp;
  return static_cast<std::int32_t>(std::clamp(q, lo, hi));
}

// Expects |got - want| <= 1 everywhere and got == want for at least
// `min_exact` of the elements.
inline void expect_close(const std::vector<std::uint8_t>& got, ScalarType t,
                         const std::vector<std::int32_t>& want, double min_exact = 0.99) {
  ASSERT_EQ(got.size(), want.size());
  std::size_t exact = 0;
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::int32_t g = value_of(got[i], t);
    if (g == want[i]) {
      ++exact;
    } else if (std::abs(g - want[i]) > 1 && reported++ < 10) {
      ADD_FAILURE() << "at " << i << ": got " << g << ", want " << want[i];
    }
  }
  if (!got.empty()) {
    EXPECT_GE(static_cast<double>(exact), min_exact * static_cast<double>(got.size()))
        << exact << " of " << got.size() << " exact";
  }
}

// Exact equality of every element.
inline void expect_equal(const std::vector<std::uint8_t>& got, ScalarType t,
                         const std::vector<std::int32_t>& want) {
  expect_close(got, t, want, 1.0);
}

}  // namespace glassbox::runtime::kernels::testing

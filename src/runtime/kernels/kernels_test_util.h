#pragma once
// Shared helpers for the kernel tests: seeded inputs and the float32
// summation error bound used as tolerance.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace glassbox::runtime::kernels::testing {

// Uniform floats in [lo, hi) from a fixed seed, so failures reproduce.
inline std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// Unit roundoff of float32.
inline constexpr double kUnitRoundoff = 0x1p-24;

// Bound on |float32 dot product - exact| for `terms` products whose absolute
// values sum to `magnitude`, whatever the summation order (Higham,
// "Accuracy and Stability of Numerical Algorithms", 3.1: gamma_n with n =
// terms + 1 for the product rounding), plus a small floor for exact zeros.
inline double dot_tolerance(std::int64_t terms, double magnitude) {
  return static_cast<double>(terms + 1) * kUnitRoundoff * magnitude + 1e-7;
}

// A double-precision reference value and the sum of absolute products that
// went into it (the scale its float32 error is measured against).
struct RefValue {
  double value = 0.0;
  double magnitude = 0.0;
};

inline void expect_dot_near(const std::vector<float>& actual, const std::vector<RefValue>& expected,
                            std::int64_t terms) {
  ASSERT_EQ(actual.size(), expected.size());
  std::size_t failures = 0;
  for (std::size_t i = 0; i < actual.size() && failures < 10; ++i) {
    const double tol = dot_tolerance(terms, expected[i].magnitude);
    if (std::abs(actual[i] - expected[i].value) > tol) {
      ++failures;
      ADD_FAILURE() << "at " << i << ": got " << actual[i] << ", want " << expected[i].value
                    << " +- " << tol;
    }
  }
}

}  // namespace glassbox::runtime::kernels::testing

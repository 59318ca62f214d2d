#include "glassbox/runtime/kernels/elementwise_ext.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "src/runtime/kernels/fast_math.h"
#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using Shape = std::vector<std::int64_t>;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

// Libm float functions are within 1-2 ulp; the composite activations add
// a few roundings: 8 ulp covers them.
constexpr double kUlps = 8 * testing::kUnitRoundoff;

// True if `got` is `want` within `tol`, with NaN matching NaN and an
// infinity matching only itself.
bool matches(float got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return static_cast<double>(got) == want;
  return std::abs(static_cast<double>(got) - want) <= tol;
}

// Random inputs over [-8, 8) (both saturation regions of the activations),
// then the special values every op must get right.
std::vector<float> unary_inputs() {
  std::vector<float> x = testing::random_floats(997, 11, -8.0f, 8.0f);
  for (float v : {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 1e-30f, 30.0f, -30.0f, 1e30f, -1e30f,
                  kInf, -kInf, kNan})
    x.push_back(v);
  return x;
}

using UnaryFn = Error (*)(const float*, float*, std::int64_t);

// Runs `fn` out of place and in place (results must agree bit for bit),
// then checks every element against `ref` (in double) within
// ulps(x) * |ref| + 1e-37.
template <typename Ref, typename Ulps>
void check_unary(UnaryFn fn, const std::vector<float>& x, Ref ref, Ulps ulps) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<float> y(x.size(), 12345.0f);
  ASSERT_EQ(fn(x.data(), y.data(), n), Error::kOk);
  std::vector<float> in_place = x;
  ASSERT_EQ(fn(in_place.data(), in_place.data(), n), Error::kOk);
  ASSERT_EQ(std::memcmp(y.data(), in_place.data(), y.size() * sizeof(float)), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = ref(static_cast<double>(x[i]));
    // (A zero want skips ulps(x), which is inf * 0 for infinite x.)
    const double tol = (want == 0 ? 0.0 : ulps(static_cast<double>(x[i])) * std::abs(want)) + 1e-37;
    ASSERT_TRUE(matches(y[i], want, tol))
        << "x = " << x[i] << ": got " << y[i] << ", want " << want;
  }
}

template <typename Ref>
void check_unary(UnaryFn fn, const std::vector<float>& x, Ref ref) {
  check_unary(fn, x, ref, [](double) { return kUlps; });
}

// Correctly rounded ops: a double result rounded to float is exactly what
// a float op must return (double has over 2 * 24 + 2 bits).
template <typename Ref>
void check_exact(UnaryFn fn, const std::vector<float>& x, Ref ref) {
  check_unary(
      fn, x, [&](double v) { return static_cast<double>(static_cast<float>(ref(v))); },
      [](double) { return 0.0; });
}

TEST(UnaryExtTest, ExactOpsMatchDefinition) {
  const auto x = unary_inputs();
  check_exact(kernels::neg, x, [](double v) { return 0.0 - v; });
  check_exact(kernels::abs, x, [](double v) { return v < 0 ? -v : v; });
  check_exact(kernels::sqrt, x, [](double v) { return std::sqrt(v); });
  check_exact(kernels::reciprocal, x, [](double v) { return 1.0 / v; });
  check_exact(kernels::floor, x, [](double v) { return std::floor(v); });
  check_exact(kernels::ceil, x, [](double v) { return -std::floor(-v); });
  check_exact(kernels::sign, x, [](double v) {
    if (std::isnan(v)) return v;
    return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
  });
  // Halves to even, from floor and the fractional part.
  check_exact(kernels::round, x, [](double v) {
    if (!std::isfinite(v)) return v;
    const double f = std::floor(v);
    const double frac = v - f;
    if (frac != 0.5) return frac < 0.5 ? f : f + 1;
    return std::fmod(f, 2.0) == 0 ? f : f + 1;
  });
  std::vector<float> y(x.size());
  const auto n = static_cast<std::int64_t>(x.size());
  ASSERT_EQ(leaky_relu(x.data(), y.data(), n, 0.01f), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_TRUE(matches(y[i], x[i] >= 0 || std::isnan(x[i]) ? x[i] : 0.01f * x[i], 0)) << x[i];
}

TEST(UnaryExtTest, RoundAndSignEdgeCases) {
  const float x[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.49999976f};
  const float want[] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 3.0f};
  float y[7];
  ASSERT_EQ(kernels::round(x, y, 7), Error::kOk);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(y[i], want[i]) << x[i];
    EXPECT_EQ(std::signbit(y[i]), std::signbit(want[i])) << x[i];
  }
  const float s[] = {-0.0f, kNan, -kInf, 1e-45f};
  ASSERT_EQ(sign(s, y, 4), Error::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], -1.0f);
  EXPECT_EQ(y[3], 1.0f);
}

TEST(UnaryExtTest, TranscendentalsMatchDoubleReference) {
  const auto x = unary_inputs();
  check_unary(kernels::erf, x, [](double v) { return std::erf(v); });
  check_unary(kernels::tanh, x, [](double v) { return std::tanh(v); });
  check_unary(kernels::exp, x, [](double v) { return std::exp(v); });
  check_unary(kernels::log, x, [](double v) { return std::log(v); });
  // Beyond 40, log(1 + e^x) is x to double precision (and exp(x) would
  // overflow for the largest inputs).
  check_unary(kernels::softplus, x, [](double v) { return v > 40 ? v : std::log1p(std::exp(v)); });
  check_unary(kernels::softsign, x, [](double v) {
    return std::isinf(v) ? (v > 0 ? 1.0 : -1.0) : v / (1.0 + std::abs(v));
  });
  // The gelus' float arguments carry relative error ~ulp; erfc and exp
  // amplify it by about x^2 (their condition number) for negative x.
  const auto gelu_ulps = [](double v) { return kUlps * (1.0 + v * v); };
  // For negative x, 1 + erf and 1 + tanh cancel even in double, so the
  // references switch to erfc and 1 + tanh(u) = 2 e^2u / (1 + e^2u) there.
  check_unary(
      gelu_erf, x,
      [](double v) {
        if (v == -INFINITY) return 0.0;
        const double z = v / std::sqrt(2.0);
        return 0.5 * v * (v < 0 ? std::erfc(-z) : 1.0 + std::erf(z));
      },
      gelu_ulps);
  check_unary(
      gelu_tanh, x,
      [](double v) {
        if (v == -INFINITY) return 0.0;
        const double u = std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v);
        if (u >= 0) return 0.5 * v * (1.0 + std::tanh(u));
        const double e = std::exp(2 * u);
        return 0.5 * v * (2 * e / (1 + e));
      },
      gelu_ulps);
}

TEST(UnaryExtTest, ParametrisedActivations) {
  const auto x = unary_inputs();
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<float> y(x.size());
  const double alpha = 1.67326319217681884765625;
  const double gamma = 1.05070102214813232421875;
  ASSERT_EQ(selu(x.data(), y.data(), n, static_cast<float>(alpha), static_cast<float>(gamma)),
            Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double want = v > 0 ? gamma * v : gamma * (alpha * std::exp(v) - alpha);
    ASSERT_TRUE(matches(y[i], want, kUlps * std::abs(want) + 1e-37)) << v;
  }
  ASSERT_EQ(elu(x.data(), y.data(), n, 0.5f), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double want = v < 0 ? 0.5 * (std::exp(v) - 1.0) : v;
    ASSERT_TRUE(matches(y[i], want, kUlps * std::abs(want) + 1e-37)) << v;
  }
}

TEST(UnaryExtTest, SaturationLimits) {
  const float x[] = {-1e30f, -200.0f, 200.0f, 1e30f, kInf, -kInf};
  float y[6];
  ASSERT_EQ(softplus(x, y, 6), Error::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 200.0f);
  EXPECT_EQ(y[3], 1e30f);
  EXPECT_EQ(y[4], kInf);
  EXPECT_EQ(y[5], 0.0f);
  ASSERT_EQ(gelu_tanh(x, y, 6), Error::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[3], 1e30f);
  EXPECT_EQ(y[4], kInf);
  EXPECT_EQ(y[5], 0.0f);
  ASSERT_EQ(gelu_erf(x, y, 6), Error::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[3], 1e30f);
  EXPECT_EQ(y[4], kInf);
  EXPECT_EQ(y[5], 0.0f);
  ASSERT_EQ(elu(x, y, 6, 1.0f), Error::kOk);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[5], -1.0f);
}

TEST(UnaryExtTest, LogicalNot) {
  const std::uint8_t x[] = {0, 1, 2, 255};
  std::uint8_t y[4];
  ASSERT_EQ(logical_not(x, y, 4), Error::kOk);
  EXPECT_EQ(y[0], 1);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 0);
  EXPECT_EQ(y[3], 0);
}

TEST(UnaryExtTest, RejectsBadArguments) {
  const UnaryFn fns[] = {kernels::erf,  kernels::tanh,  kernels::exp,  kernels::log,
                         kernels::neg,  kernels::abs,   kernels::sqrt, kernels::reciprocal,
                         kernels::sign, kernels::floor, kernels::ceil, kernels::round,
                         softplus,      softsign,       gelu_erf,      gelu_tanh};
  float v[2] = {};
  for (UnaryFn fn : fns) {
    EXPECT_EQ(fn(nullptr, v, 2), Error::kInvalidArgument);
    EXPECT_EQ(fn(v, nullptr, 2), Error::kInvalidArgument);
    EXPECT_EQ(fn(v, v, -1), Error::kInvalidArgument);
    EXPECT_EQ(fn(nullptr, nullptr, 0), Error::kOk);
  }
  EXPECT_EQ(leaky_relu(nullptr, v, 2, 0.1f), Error::kInvalidArgument);
  EXPECT_EQ(elu(v, v, -5, 1.0f), Error::kInvalidArgument);
  EXPECT_EQ(selu(v, nullptr, 1, 1.0f, 1.0f), Error::kInvalidArgument);
  EXPECT_EQ(logical_not(nullptr, nullptr, 1), Error::kInvalidArgument);
  EXPECT_EQ(logical_not(nullptr, nullptr, kI64Min), Error::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// fast_math.h (behind erf, tanh, exp, the gelus and softmax): sweeps over
// the float bit patterns against double libm, asserting the error bounds
// its comments state.

// Position of a non-NaN float in the order of all of them (+-0 share 0).
std::int64_t float_order(float v) {
  const auto bits = std::bit_cast<std::uint32_t>(v);
  const std::int64_t magnitude = bits & 0x7fffffffu;
  return bits >> 31 ? -magnitude : magnitude;
}

float float_at_order(std::int64_t order) {
  const auto magnitude = static_cast<std::uint32_t>(order < 0 ? -order : order);
  return std::bit_cast<float>(order < 0 ? magnitude | 0x80000000u : magnitude);
}

// Every `stride`-th float from lo to hi by bit pattern (so each binade is
// sampled in proportion to the floats in it, subnormals included), then hi.
std::vector<float> float_sweep(float lo, float hi, std::int64_t stride) {
  std::vector<float> x;
  for (std::int64_t o = float_order(lo); o < float_order(hi); o += stride)
    x.push_back(float_at_order(o));
  x.push_back(hi);
  return x;
}

std::vector<float> with_specials(std::vector<float> x) {
  for (float v : {0.0f, -0.0f, 1e-45f, -1e-45f, FLT_MIN, -FLT_MIN, 1e-30f, -1e-30f, 1.0f, -1.0f,
                  1e30f, -1e30f, FLT_MAX, -FLT_MAX, kInf, -kInf, kNan})
    x.push_back(v);
  return x;
}

using ScalarFn = float (*)(float);

std::vector<float> apply_each(ScalarFn fn, const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = fn(x[i]);
  return y;
}

// Checks y[i] against ref(x[i]) within tol(x, want): NaN must match NaN,
// and a reference past FLT_MAX (or infinite) only the infinity that float
// rounds it to.
template <typename Ref, typename Tol>
void check_sweep(const std::vector<float>& x, const std::vector<float>& y, Ref ref, Tol tol) {
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double want = ref(static_cast<double>(x[i]));
    if (std::isinf(static_cast<float>(want))) want = static_cast<float>(want);
    ASSERT_TRUE(matches(y[i], want, tol(static_cast<double>(x[i]), want)))
        << std::hexfloat << "x = " << x[i] << ": got " << y[i] << ", want " << want;
  }
}

// Runs a kernel on x and checks it like check_sweep.
template <typename Ref, typename Tol>
void check_kernel_sweep(UnaryFn fn, const std::vector<float>& x, Ref ref, Tol tol) {
  std::vector<float> y(x.size());
  ASSERT_EQ(fn(x.data(), y.data(), static_cast<std::int64_t>(x.size())), Error::kOk);
  check_sweep(x, y, ref, tol);
}

// 4.3e9 floats / 9973: about 430k samples over all floats.
constexpr std::int64_t kSparse = 9973;

TEST(FastMathTest, ExpWithinTwoTenthsOfAMillionth) {
  // Relative 2e-7 (measured 8.3e-8) down to FLT_MIN; below it exp flushes
  // to 0, within FLT_MIN of the subnormal e^x.
  const auto tol = [](double, double want) { return want >= FLT_MIN ? 2e-7 * want : FLT_MIN; };
  const auto ref = [](double v) { return std::exp(v); };
  const auto x = with_specials(float_sweep(-kInf, kInf, kSparse));
  check_sweep(x, apply_each(fast_math::exp, x), ref, tol);
  check_kernel_sweep(kernels::exp, x, ref, tol);
  // Densely over a few binades either side of 1 (the error is periodic in
  // x / ln2, so these cover its pattern).
  check_kernel_sweep(kernels::exp, float_sweep(0.5f, 4.0f, 97), ref, tol);
  check_kernel_sweep(kernels::exp, float_sweep(-4.0f, -0.5f, 97), ref, tol);

  // The edges: the last normal and finite results, and one float past.
  EXPECT_GE(fast_math::exp(-0x1.5d589ep+6f), FLT_MIN);
  EXPECT_EQ(fast_math::exp(-0x1.5d58a0p+6f), 0.0f);
  EXPECT_FLOAT_EQ(fast_math::exp(0x1.62e42ep+6f),
                  static_cast<float>(std::exp(double{0x1.62e42ep+6f})));
  EXPECT_EQ(fast_math::exp(0x1.62e430p+6f), kInf);
  EXPECT_EQ(fast_math::exp(-kInf), 0.0f);
  EXPECT_EQ(fast_math::exp(-0.0f), 1.0f);
  EXPECT_EQ(fast_math::exp(1e-45f), 1.0f);
  EXPECT_TRUE(std::isnan(fast_math::exp(kNan)));
  EXPECT_TRUE(std::isnan(fast_math::exp(std::bit_cast<float>(0xffc00001u))));
}

TEST(FastMathTest, ExpNonpositiveAsAccurateAsExp) {
  // As exp (measured 8.2e-8).
  const auto tol = [](double, double want) { return want >= FLT_MIN ? 2e-7 * want : FLT_MIN; };
  const auto ref = [](double v) { return std::exp(v); };
  auto x = float_sweep(-kInf, 0.0f, kSparse);
  for (float v : {-0.0f, -1e-45f, -FLT_MIN, -1e-30f, -87.0f, -0x1.5d589ep+6f, -0x1.5d58a0p+6f,
                  -88.5f, -103.9f, -104.0f, -1e30f, -FLT_MAX, kNan})
    x.push_back(v);
  check_sweep(x, apply_each(fast_math::exp_nonpositive, x), ref, tol);
  const auto dense = float_sweep(-4.0f, -0.5f, 97);
  check_sweep(dense, apply_each(fast_math::exp_nonpositive, dense), ref, tol);
  EXPECT_EQ(fast_math::exp_nonpositive(-kInf), 0.0f);
  EXPECT_EQ(fast_math::exp_nonpositive(-0x1.5d58a0p+6f), 0.0f);
  EXPECT_EQ(fast_math::exp_nonpositive(0.0f), 1.0f);
}

TEST(FastMathTest, ErfWithinHalfAMillionth) {
  // Relative 4.5e-7 (measured 3.8e-7), so absolute 4.5e-7 too (|erf| <= 1),
  // well inside the 1e-6 asked of it; subnormal results are off by a few
  // of their ulp.
  const auto tol = [](double, double want) { return 4.5e-7 * std::abs(want) + 1e-44; };
  const auto ref = [](double v) { return std::erf(v); };
  const auto x = with_specials(float_sweep(-kInf, kInf, kSparse));
  check_sweep(x, apply_each(fast_math::erf, x), ref, tol);
  check_kernel_sweep(kernels::erf, x, ref, tol);
  // Densely where the error peaks, just below saturation.
  check_kernel_sweep(kernels::erf, float_sweep(2.0f, 4.0f, 97), ref, tol);
  check_kernel_sweep(kernels::erf, float_sweep(-4.0f, -2.0f, 97), ref, tol);
  check_kernel_sweep(kernels::erf, float_sweep(-1.0f, 1.0f, 9973), ref, tol);

  EXPECT_EQ(fast_math::erf(kInf), 1.0f);
  EXPECT_EQ(fast_math::erf(-kInf), -1.0f);
  EXPECT_EQ(fast_math::erf(3.9193f), 1.0f);
  EXPECT_TRUE(std::signbit(fast_math::erf(-0.0f)));
  EXPECT_TRUE(std::isnan(fast_math::erf(kNan)));
  // Never past +-1, where rounding near saturation could take it.
  for (float v : float_sweep(3.0f, 4.0f, 101)) {
    ASSERT_LE(fast_math::erf(v), 1.0f) << v;
    ASSERT_GE(fast_math::erf(-v), -1.0f) << v;
  }
}

TEST(FastMathTest, ErfcKeepsRelativePrecisionInTheTail) {
  // Relative 4.5e-7 + 6.5e-8 x^2 (measured below 3.8e-7 + 6.3e-8 x^2)
  // while erfc(x) >= FLT_MIN, and within FLT_MIN (it flushes to 0) after.
  const auto tol = [](double v, double want) {
    return want >= FLT_MIN ? (4.5e-7 + 6.5e-8 * v * v) * want : FLT_MIN;
  };
  const auto ref = [](double v) { return std::erfc(v); };
  const auto x = with_specials(float_sweep(-kInf, kInf, kSparse));
  check_sweep(x, apply_each(fast_math::erfc, x), ref, tol);
  const auto tail = float_sweep(1.0f, 9.5f, 97);
  check_sweep(tail, apply_each(fast_math::erfc, tail), ref, tol);
  EXPECT_EQ(fast_math::erfc(kInf), 0.0f);
  EXPECT_EQ(fast_math::erfc(-kInf), 2.0f);
  EXPECT_EQ(fast_math::erfc(10.0f), 0.0f);
  EXPECT_TRUE(std::isnan(fast_math::erfc(kNan)));
}

TEST(FastMathTest, TanhWithinHalfAMillionth) {
  // Relative 4.5e-7 (measured 3.4e-7), inside the 1e-6 absolute asked of
  // it.
  const auto tol = [](double, double want) { return 4.5e-7 * std::abs(want) + 1e-44; };
  const auto ref = [](double v) { return std::tanh(v); };
  const auto x = with_specials(float_sweep(-kInf, kInf, kSparse));
  check_sweep(x, apply_each(fast_math::tanh, x), ref, tol);
  check_kernel_sweep(kernels::tanh, x, ref, tol);
  check_kernel_sweep(kernels::tanh, float_sweep(4.0f, 9.1f, 97), ref, tol);
  check_kernel_sweep(kernels::tanh, float_sweep(-9.1f, -4.0f, 97), ref, tol);
  check_kernel_sweep(kernels::tanh, float_sweep(-1.0f, 1.0f, 9973), ref, tol);

  EXPECT_EQ(fast_math::tanh(kInf), 1.0f);
  EXPECT_EQ(fast_math::tanh(-kInf), -1.0f);
  EXPECT_EQ(fast_math::tanh(9.02f), 1.0f);
  EXPECT_TRUE(std::signbit(fast_math::tanh(-0.0f)));
  EXPECT_TRUE(std::isnan(fast_math::tanh(kNan)));
  for (float v : float_sweep(5.0f, 9.1f, 101)) {
    ASSERT_LE(fast_math::tanh(v), 1.0f) << v;
    ASSERT_GE(fast_math::tanh(-v), -1.0f) << v;
  }
}

TEST(FastMathTest, SelectIsBitExact) {
  EXPECT_TRUE(std::signbit(fast_math::select(true, -0.0f, 1.0f)));
  EXPECT_FALSE(std::signbit(fast_math::select(false, -0.0f, 0.0f)));
  EXPECT_TRUE(std::isnan(fast_math::select(false, 1.0f, kNan)));
  EXPECT_EQ(fast_math::select(true, kInf, kNan), kInf);
}

// The gelus over a sweep of [-20, 20] (past which they are 0 and x), with
// the references and tolerance of TranscendentalsMatchDoubleReference.
TEST(UnaryExtTest, GelusMatchDoubleReferenceOnSweep) {
  const auto x = with_specials(float_sweep(-20.0f, 20.0f, kSparse));
  // (A zero want skips the x^2 term, which is inf * 0 for infinite x.)
  const auto tol = [](double v, double want) {
    return (want == 0 ? 0.0 : kUlps * (1.0 + v * v) * std::abs(want)) + 1e-37;
  };
  check_kernel_sweep(
      gelu_erf, x,
      [](double v) {
        if (v == -INFINITY) return 0.0;
        const double z = v / std::sqrt(2.0);
        return 0.5 * v * (v < 0 ? std::erfc(-z) : 1.0 + std::erf(z));
      },
      tol);
  check_kernel_sweep(
      gelu_tanh, x,
      [](double v) {
        if (v == -INFINITY) return 0.0;
        const double u = std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v);
        if (u >= 0) return 0.5 * v * (1.0 + std::tanh(u));
        const double e = std::exp(2 * u);
        return 0.5 * v * (2 * e / (1 + e));
      },
      tol);
}

// ---------------------------------------------------------------------------
// Broadcasting reference: walks the output's multi-index with nested
// counters and recomputes each input's offset from scratch per element.

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d;
  return n;
}

std::vector<std::size_t> broadcast_offsets(const Shape& out, const Shape& in) {
  std::vector<std::size_t> offsets;
  std::vector<std::int64_t> index(out.size(), 0);
  for (std::int64_t e = 0; e < numel(out); ++e) {
    std::int64_t offset = 0;
    std::int64_t stride = 1;
    for (std::size_t j = in.size(); j-- > 0;) {
      const std::size_t od = j + out.size() - in.size();
      if (in[j] != 1) offset += index[od] * stride;
      stride *= in[j];
    }
    offsets.push_back(static_cast<std::size_t>(offset));
    for (std::size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

struct BinaryCase {
  Shape a, b, out;
};

// Same shapes, scalars (rank 0 and [1]), trailing and leading
// broadcasting, broadcasting on both sides, negative-free rank 6, and
// empty outputs.
const BinaryCase kBinaryCases[] = {
    {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
    {{}, {}, {}},
    {{37}, {}, {37}},
    {{}, {5, 7}, {5, 7}},
    {{1}, {6, 5}, {6, 5}},
    {{2, 8, 16}, {16}, {2, 8, 16}},
    {{2, 3, 1}, {1, 4}, {2, 3, 4}},
    {{5}, {3, 1}, {3, 5}},
    {{2, 8, 5, 7}, {1, 8, 1, 1}, {2, 8, 5, 7}},
    {{4, 1, 6}, {4, 5, 1}, {4, 5, 6}},
    {{1, 2, 1, 3, 1, 2}, {2, 1, 2, 1, 2, 1}, {2, 2, 2, 3, 2, 2}},
    {{3, 1, 1}, {1, 1, 1}, {3, 1, 1}},
    {{0, 3}, {1, 3}, {0, 3}},
    {{4, 0}, {}, {4, 0}},
};

// Random values in [-4, 4) with zeros, infinities and NaNs sprinkled in at
// positions that differ between the two inputs.
std::vector<float> float_operand(const Shape& s, std::uint32_t seed) {
  auto v = testing::random_floats(static_cast<std::size_t>(numel(s)), seed, -4.0f, 4.0f);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::size_t k = (i + seed) % 23;
    if (k == 3) v[i] = 0.0f;
    if (k == 7) v[i] = kNan;
    if (k == 11) v[i] = kInf;
    if (k == 13) v[i] = -kInf;
    if (k == 17) v[i] = std::round(v[i]);  // exact integers for mod
  }
  return v;
}

double python_mod(double a, double b) {
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || b == 0) return NAN;
  if (std::isinf(b)) {
    if (a == 0) return std::copysign(0.0, b);
    return (a < 0) == (b < 0) ? a : b;
  }
  const double r = a - b * std::floor(a / b);
  return r == 0 ? std::copysign(0.0, b) : r;
}

// The exact reference value (before rounding to float) and the tolerance
// in absolute terms.
struct FloatRef {
  double value;
  double tol;
};

FloatRef float_reference(ElementwiseOp op, double a, double b) {
  const bool any_nan = std::isnan(a) || std::isnan(b);
  switch (op) {
    case ElementwiseOp::kAdd: return {a + b, 0};
    case ElementwiseOp::kSub: return {a - b, 0};
    case ElementwiseOp::kMul: return {a * b, 0};
    case ElementwiseOp::kDiv: return {a / b, 0};
    case ElementwiseOp::kPow: {
      const double p = std::pow(a, b);
      return {p, kUlps * std::abs(p)};
    }
    case ElementwiseOp::kMin: return {any_nan ? NAN : std::fmin(a, b), 0};
    case ElementwiseOp::kMax: return {any_nan ? NAN : std::fmax(a, b), 0};
    case ElementwiseOp::kMod:
      // One float rounding of r + b at most.
      return {python_mod(a, b), std::abs(b) * testing::kUnitRoundoff};
    case ElementwiseOp::kFmod: return {std::fmod(a, b), 0};
    case ElementwiseOp::kPrelu: return {(a >= 0 || std::isnan(a)) ? a : a * b, 0};
    default: return {NAN, 0};
  }
}

constexpr ElementwiseOp kFloatOps[] = {
    ElementwiseOp::kAdd,  ElementwiseOp::kSub,  ElementwiseOp::kMul, ElementwiseOp::kDiv,
    ElementwiseOp::kPow,  ElementwiseOp::kMin,  ElementwiseOp::kMax, ElementwiseOp::kMod,
    ElementwiseOp::kFmod, ElementwiseOp::kPrelu};

TEST(BinaryExtTest, FloatOpsBroadcastLikeNumpy) {
  for (const BinaryCase& c : kBinaryCases) {
    const auto a = float_operand(c.a, 1);
    const auto b = float_operand(c.b, 2);
    const auto a_off = broadcast_offsets(c.out, c.a);
    const auto b_off = broadcast_offsets(c.out, c.b);
    for (ElementwiseOp op : kFloatOps) {
      SCOPED_TRACE(::testing::Message() << "op " << static_cast<int>(op) << " shapes " << c.a.size()
                                        << "," << c.b.size());
      std::vector<float> out(static_cast<std::size_t>(numel(c.out)), 777.0f);
      ASSERT_EQ(binary_float(op, a.data(), c.a, b.data(), c.b, out.data()), Error::kOk);
      for (std::size_t i = 0; i < out.size(); ++i) {
        const double x = a[a_off[i]];
        const double y = b[b_off[i]];
        FloatRef ref = float_reference(op, x, y);
        // Exact ops: the double result rounded once to float.
        if (ref.tol == 0) ref.value = static_cast<float>(ref.value);
        ASSERT_TRUE(matches(out[i], ref.value, ref.tol))
            << "a = " << x << ", b = " << y << ": got " << out[i] << ", want " << ref.value;
      }
    }
  }
}

TEST(BinaryExtTest, FloatSpecialValues) {
  const std::int64_t s[] = {4};
  const float a[] = {-3.0f, 3.0f, 6.0f, -0.0f};
  const float b[] = {2.0f, -2.0f, 3.0f, 2.0f};
  float out[4];
  ASSERT_EQ(binary_float(ElementwiseOp::kMod, a, s, b, s, out), Error::kOk);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -1.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_FALSE(std::signbit(out[3]));
  ASSERT_EQ(binary_float(ElementwiseOp::kFmod, a, s, b, s, out), Error::kOk);
  EXPECT_EQ(out[0], -1.0f);
  EXPECT_EQ(out[1], 1.0f);
  const float n[] = {kNan, 1.0f, kNan, -1.0f};
  const float m[] = {1.0f, kNan, kNan, 2.0f};
  for (ElementwiseOp op : {ElementwiseOp::kMin, ElementwiseOp::kMax}) {
    ASSERT_EQ(binary_float(op, n, s, m, s, out), Error::kOk);
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1]) && std::isnan(out[2]));
    EXPECT_EQ(out[3], op == ElementwiseOp::kMin ? -1.0f : 2.0f);
  }
}

// An int64 operand: small values (so Div/Mod results are varied), full
// range values, and the values at the edges of overflow.
std::vector<std::int64_t> int_operand(const Shape& s, std::uint32_t seed) {
  std::mt19937_64 gen(seed);
  const std::int64_t specials[] = {0, 1, -1, kI64Min, kI64Max, 7, -7};
  std::vector<std::int64_t> v(static_cast<std::size_t>(numel(s)));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint64_t r = gen();
    switch (r % 4) {
      case 0: v[i] = specials[(r >> 8) % 7]; break;
      case 1: v[i] = static_cast<std::int64_t>(r); break;
      default: v[i] = static_cast<std::int64_t>(r >> 40) % 2001 - 1000;
    }
  }
  return v;
}

// Reference in 128-bit arithmetic; `ok` false where the op is undefined.
std::int64_t int_reference(ElementwiseOp op, std::int64_t x, std::int64_t y, bool* ok) {
  __extension__ typedef __int128 W;  // exact for every int64 op here
  const auto wrap = [](W v) { return static_cast<std::int64_t>(static_cast<std::uint64_t>(v)); };
  *ok = true;
  switch (op) {
    case ElementwiseOp::kAdd: return wrap(W{x} + y);
    case ElementwiseOp::kSub: return wrap(W{x} - y);
    case ElementwiseOp::kMul: return wrap(W{x} * y);
    case ElementwiseOp::kMin: return x < y ? x : y;
    case ElementwiseOp::kMax: return x < y ? y : x;
    default: break;
  }
  if (y == 0) {
    *ok = false;
    return 0;
  }
  const W q = W{x} / y;  // truncated, exact in 128 bits
  if (op == ElementwiseOp::kDiv) {
    *ok = q <= kI64Max;
    return *ok ? static_cast<std::int64_t>(q) : 0;
  }
  const W r = W{x} - q * y;
  if (op == ElementwiseOp::kFmod) return static_cast<std::int64_t>(r);
  const W floored = (r != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  return static_cast<std::int64_t>(W{x} - floored * y);
}

TEST(BinaryExtTest, Int64OpsBroadcastAndWrap) {
  const ElementwiseOp ops[] = {ElementwiseOp::kAdd, ElementwiseOp::kSub, ElementwiseOp::kMul,
                               ElementwiseOp::kDiv, ElementwiseOp::kMin, ElementwiseOp::kMax,
                               ElementwiseOp::kMod, ElementwiseOp::kFmod};
  for (const BinaryCase& c : kBinaryCases) {
    const auto a = int_operand(c.a, 3);
    const auto b = int_operand(c.b, 4);
    const auto a_off = broadcast_offsets(c.out, c.a);
    const auto b_off = broadcast_offsets(c.out, c.b);
    for (ElementwiseOp op : ops) {
      SCOPED_TRACE(::testing::Message() << "op " << static_cast<int>(op));
      std::vector<std::int64_t> out(static_cast<std::size_t>(numel(c.out)), 12345);
      const Error e = binary_int64(op, a.data(), c.a, b.data(), c.b, out.data());
      bool all_ok = true;
      for (std::size_t i = 0; i < out.size(); ++i) {
        bool ok = true;
        const std::int64_t want = int_reference(op, a[a_off[i]], b[b_off[i]], &ok);
        all_ok = all_ok && ok;
        ASSERT_EQ(out[i], want) << a[a_off[i]] << ", " << b[b_off[i]];
      }
      EXPECT_EQ(e, all_ok ? Error::kOk : Error::kInvalidArgument);
    }
  }
}

TEST(BinaryExtTest, Int64UndefinedElementsAreZeroAndReported) {
  const std::int64_t s[] = {4};
  const std::int64_t a[] = {7, kI64Min, kI64Min, -7};
  const std::int64_t b[] = {0, -1, -1, 2};
  const std::int64_t one[] = {1};
  std::int64_t out[4];
  EXPECT_EQ(binary_int64(ElementwiseOp::kDiv, a, s, b, s, out), Error::kInvalidArgument);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[3], -3);  // truncation toward zero
  EXPECT_EQ(binary_int64(ElementwiseOp::kMod, a + 1, one, b + 1, one, out), Error::kOk);
  EXPECT_EQ(out[0], 0);  // INT64_MIN mod -1
  EXPECT_EQ(binary_int64(ElementwiseOp::kMod, a + 3, one, b + 3, one, out), Error::kOk);
  EXPECT_EQ(out[0], 1);  // -7 mod 2 takes the divisor's sign
  EXPECT_EQ(binary_int64(ElementwiseOp::kFmod, a + 3, one, b + 3, one, out), Error::kOk);
  EXPECT_EQ(out[0], -1);
}

template <typename T>
bool compare_reference(ElementwiseOp op, T x, T y) {
  switch (op) {
    case ElementwiseOp::kEqual: return !(x < y) && !(y < x) && x == x && y == y;
    case ElementwiseOp::kLess: return x < y;
    case ElementwiseOp::kGreater: return y < x;
    case ElementwiseOp::kLessOrEqual: return x < y || x == y;
    case ElementwiseOp::kGreaterOrEqual: return y < x || x == y;
    default: return false;
  }
}

constexpr ElementwiseOp kCompareOps[] = {ElementwiseOp::kEqual, ElementwiseOp::kLess,
                                         ElementwiseOp::kGreater, ElementwiseOp::kLessOrEqual,
                                         ElementwiseOp::kGreaterOrEqual};

TEST(BinaryExtTest, ComparisonsProduceBool) {
  for (const BinaryCase& c : kBinaryCases) {
    // Rounded values so that equality actually occurs.
    auto fa = float_operand(c.a, 5);
    auto fb = float_operand(c.b, 6);
    for (float& v : fa) v = std::round(v);
    for (float& v : fb) v = std::round(v);
    const auto ia = int_operand(c.a, 7);
    const auto ib = int_operand(c.b, 8);
    const auto a_off = broadcast_offsets(c.out, c.a);
    const auto b_off = broadcast_offsets(c.out, c.b);
    for (ElementwiseOp op : kCompareOps) {
      std::vector<std::uint8_t> out(static_cast<std::size_t>(numel(c.out)), 9);
      ASSERT_EQ(compare_float(op, fa.data(), c.a, fb.data(), c.b, out.data()), Error::kOk);
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], compare_reference(op, fa[a_off[i]], fb[b_off[i]]))
            << static_cast<int>(op) << ": " << fa[a_off[i]] << ", " << fb[b_off[i]];
      ASSERT_EQ(compare_int64(op, ia.data(), c.a, ib.data(), c.b, out.data()), Error::kOk);
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], compare_reference(op, ia[a_off[i]], ib[b_off[i]]));
    }
  }
}

TEST(BinaryExtTest, LogicalOpsTreatNonzeroAsTrue) {
  for (const BinaryCase& c : kBinaryCases) {
    std::vector<std::uint8_t> a(static_cast<std::size_t>(numel(c.a)));
    std::vector<std::uint8_t> b(static_cast<std::size_t>(numel(c.b)));
    const std::uint8_t values[] = {0, 1, 2, 255, 0};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = values[i % 5];
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = values[(i * 3 + 1) % 5];
    const auto a_off = broadcast_offsets(c.out, c.a);
    const auto b_off = broadcast_offsets(c.out, c.b);
    for (ElementwiseOp op : {ElementwiseOp::kAnd, ElementwiseOp::kOr, ElementwiseOp::kXor}) {
      std::vector<std::uint8_t> out(static_cast<std::size_t>(numel(c.out)), 9);
      ASSERT_EQ(logical(op, a.data(), c.a, b.data(), c.b, out.data()), Error::kOk);
      for (std::size_t i = 0; i < out.size(); ++i) {
        const bool x = a[a_off[i]] != 0;
        const bool y = b[b_off[i]] != 0;
        const bool want = op == ElementwiseOp::kAnd  ? (x && y)
                          : op == ElementwiseOp::kOr ? (x || y)
                                                     : (x != y);
        ASSERT_EQ(out[i], want ? 1 : 0);
      }
    }
  }
}

TEST(BinaryExtTest, OutputMayAliasSameShapeInput) {
  const Shape big = {3, 4, 5};
  const Shape row = {5};
  auto a = float_operand(big, 9);
  const auto b = float_operand(row, 10);
  std::vector<float> want(a.size());
  ASSERT_EQ(binary_float(ElementwiseOp::kSub, a.data(), big, b.data(), row, want.data()),
            Error::kOk);
  ASSERT_EQ(binary_float(ElementwiseOp::kSub, a.data(), big, b.data(), row, a.data()), Error::kOk);
  EXPECT_EQ(std::memcmp(a.data(), want.data(), a.size() * sizeof(float)), 0);
  auto c = float_operand(big, 11);
  ASSERT_EQ(binary_float(ElementwiseOp::kSub, b.data(), row, c.data(), big, want.data()),
            Error::kOk);
  ASSERT_EQ(binary_float(ElementwiseOp::kSub, b.data(), row, c.data(), big, c.data()), Error::kOk);
  EXPECT_EQ(std::memcmp(c.data(), want.data(), c.size() * sizeof(float)), 0);
}

TEST(BinaryExtTest, RejectsBadArguments) {
  const std::int64_t s23[] = {2, 3};
  const std::int64_t s43[] = {4, 3};
  const std::int64_t too_deep[] = {1, 1, 1, 1, 1, 1, 1};
  const std::int64_t negative[] = {2, -3};
  const std::int64_t huge[] = {std::int64_t{1} << 32, std::int64_t{1} << 32};
  const std::int64_t too_many_bytes[] = {std::int64_t{1} << 62};
  const std::int64_t empty_but_huge[] = {kI64Max, kI64Max, 0};
  float f[16] = {};
  std::int64_t i[16] = {};
  std::uint8_t u[16] = {};
  const auto add = ElementwiseOp::kAdd;
  EXPECT_EQ(binary_float(add, f, s23, f, s43, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, f, too_deep, f, s23, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, f, negative, f, s23, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, f, huge, f, {}, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, f, too_many_bytes, f, {}, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, nullptr, empty_but_huge, nullptr, {}, nullptr), Error::kOk);
  EXPECT_EQ(binary_float(add, nullptr, s23, f, s23, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, f, s23, nullptr, s23, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(add, f, s23, f, s23, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(ElementwiseOp::kLess, f, s23, f, s23, f), Error::kInvalidArgument);
  EXPECT_EQ(binary_float(static_cast<ElementwiseOp>(200), f, s23, f, s23, f),
            Error::kInvalidArgument);
  EXPECT_EQ(binary_int64(ElementwiseOp::kPow, i, s23, i, s23, i), Error::kInvalidArgument);
  EXPECT_EQ(binary_int64(add, i, s23, i, s43, i), Error::kInvalidArgument);
  EXPECT_EQ(compare_float(add, f, s23, f, s23, u), Error::kInvalidArgument);
  EXPECT_EQ(compare_int64(ElementwiseOp::kEqual, i, s23, nullptr, s23, u), Error::kInvalidArgument);
  EXPECT_EQ(logical(ElementwiseOp::kMax, u, s23, u, s23, u), Error::kInvalidArgument);
  EXPECT_EQ(logical(ElementwiseOp::kAnd, u, huge, u, huge, u), Error::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Where.

struct WhereCase {
  Shape cond, x, y, out;
};

template <std::size_t kBytes>
void check_where(const WhereCase& c) {
  SCOPED_TRACE(::testing::Message() << "element size " << kBytes);
  std::mt19937 gen(static_cast<std::uint32_t>(kBytes));
  // uint64 backing keeps every element size aligned.
  const auto bytes_of = [&](const Shape& s) {
    std::vector<std::uint64_t> v((static_cast<std::size_t>(numel(s)) * kBytes + 7) / 8 + 1);
    for (auto& w : v) w = (std::uint64_t{gen()} << 32) | gen();
    return v;
  };
  std::vector<std::uint8_t> cond(static_cast<std::size_t>(numel(c.cond)));
  for (auto& v : cond) v = static_cast<std::uint8_t>(gen() % 3 * 127);
  const auto x = bytes_of(c.x);
  const auto y = bytes_of(c.y);
  auto out = bytes_of(c.out);
  ASSERT_EQ(where(cond.data(), c.cond, x.data(), c.x, y.data(), c.y, kBytes, out.data()),
            Error::kOk);
  const auto cond_off = broadcast_offsets(c.out, c.cond);
  const auto x_off = broadcast_offsets(c.out, c.x);
  const auto y_off = broadcast_offsets(c.out, c.y);
  const auto* xb = reinterpret_cast<const unsigned char*>(x.data());
  const auto* yb = reinterpret_cast<const unsigned char*>(y.data());
  const auto* ob = reinterpret_cast<const unsigned char*>(out.data());
  for (std::size_t i = 0; i < cond_off.size(); ++i) {
    const unsigned char* want =
        cond[cond_off[i]] != 0 ? xb + x_off[i] * kBytes : yb + y_off[i] * kBytes;
    ASSERT_EQ(std::memcmp(ob + i * kBytes, want, kBytes), 0) << "at " << i;
  }
}

TEST(WhereTest, BroadcastsThreeWaysForEveryElementSize) {
  const WhereCase cases[] = {
      {{2, 3, 4}, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}},
      {{}, {5}, {5}, {5}},
      {{4, 1, 1}, {1, 3, 1}, {1, 1, 7}, {4, 3, 7}},
      {{1, 1, 8, 8}, {2, 4, 8, 8}, {}, {2, 4, 8, 8}},  // attention mask
      {{6}, {}, {}, {6}},
      {{2, 1, 3, 1, 2, 1}, {1, 2, 1, 2, 1, 2}, {2}, {2, 2, 3, 2, 2, 2}},
      {{0, 2}, {2}, {1}, {0, 2}},
  };
  for (const WhereCase& c : cases) {
    check_where<1>(c);
    check_where<2>(c);
    check_where<4>(c);
    check_where<8>(c);
  }
}

TEST(WhereTest, InPlaceAndFloatValues) {
  const std::int64_t s[] = {4};
  const std::int64_t scalar[] = {1};
  const std::uint8_t cond[] = {1, 0, 2, 0};
  float x[] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float zero = -0.0f;
  ASSERT_EQ(where(cond, s, x, s, &zero, scalar, sizeof(float), x), Error::kOk);
  EXPECT_EQ(x[0], 1.0f);
  EXPECT_TRUE(x[1] == 0.0f && std::signbit(x[1]));
  EXPECT_EQ(x[2], 3.0f);
}

TEST(WhereTest, RejectsBadArguments) {
  const std::int64_t s[] = {4};
  const std::int64_t t[] = {3};
  std::uint64_t buf[4] = {};
  const std::uint8_t cond[4] = {};
  for (std::size_t bad_size : {std::size_t{0}, std::size_t{3}, std::size_t{16}})
    EXPECT_EQ(where(cond, s, buf, s, buf, s, bad_size, buf), Error::kInvalidArgument);
  EXPECT_EQ(where(cond, s, buf, t, buf, s, 4, buf), Error::kInvalidArgument);
  EXPECT_EQ(where(nullptr, s, buf, s, buf, s, 4, buf), Error::kInvalidArgument);
  EXPECT_EQ(where(cond, s, buf, s, nullptr, s, 4, buf), Error::kInvalidArgument);
  EXPECT_EQ(where(cond, s, buf, s, buf, s, 8, nullptr), Error::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Cast.

// The supported types, each with the values worth converting from it.
struct CastType {
  ScalarType type;
  std::size_t size;
  bool is_float;
  bool is_signed;
};

constexpr CastType kCastTypes[] = {
    {ScalarType::kFloat, 4, true, true},  {ScalarType::kDouble, 8, true, true},
    {ScalarType::kLong, 8, false, true},  {ScalarType::kInt, 4, false, true},
    {ScalarType::kBool, 1, false, false}, {ScalarType::kByte, 1, false, false},
    {ScalarType::kChar, 1, false, true}};

// Source values as long double (which holds every float, double and int64
// exactly), before conversion to the source type.
const long double kFloatSources[] = {0.0L,
                                     -0.0L,
                                     0.5L,
                                     -0.5L,
                                     1.9L,
                                     -1.9L,
                                     100.7L,
                                     -100.7L,
                                     127.5L,
                                     128.0L,
                                     -128.7L,
                                     -129.0L,
                                     200.3L,
                                     255.9L,
                                     256.0L,
                                     40000.5L,
                                     3e9L,
                                     -3e9L,
                                     5e18L,
                                     -5e18L,
                                     1e10L,
                                     -1e10L,
                                     2147483648.0L,
                                     -2147483649.0L,
                                     9223372036854775808.0L,
                                     -9223372036854775808.0L,
                                     1e30L,
                                     -1e30L,
                                     1e300L,
                                     HUGE_VALL,
                                     -HUGE_VALL,
                                     NAN};
const std::int64_t kIntSources[] = {0,
                                    1,
                                    -1,
                                    2,
                                    127,
                                    128,
                                    -128,
                                    -129,
                                    255,
                                    256,
                                    65537,
                                    std::numeric_limits<std::int32_t>::max(),
                                    std::numeric_limits<std::int32_t>::min(),
                                    kI64Max,
                                    kI64Min,
                                    (std::int64_t{1} << 53) + 1};

// Writes `v` as type `t` (integers wrap, doubles round to float).
void put(const CastType& t, long double v, unsigned char* p) {
  switch (t.type) {
    case ScalarType::kFloat: {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case ScalarType::kDouble: {
      const double d = static_cast<double>(v);
      std::memcpy(p, &d, 8);
      break;
    }
    default: {
      const auto bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      std::memcpy(p, &bits, t.size);  // little-endian: the low bytes
    }
  }
}

// Reads an element of type `t` as long double (bools as their raw byte).
long double get(const CastType& t, const unsigned char* p) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, p, t.size);
  switch (t.type) {
    case ScalarType::kFloat: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case ScalarType::kDouble: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    default: break;
  }
  if (!t.is_signed) return static_cast<long double>(bits);
  const int shift = 64 - 8 * static_cast<int>(t.size);
  return static_cast<long double>(static_cast<std::int64_t>(bits << shift) >> shift);
}

// The value `v` (of type `from`) converted to `to`, as long double.
long double cast_reference(const CastType& from, long double v, const CastType& to) {
  if (to.type == ScalarType::kBool) return v != 0 ? 1 : 0;
  if (from.type == ScalarType::kBool) return v != 0 ? 1 : 0;
  if (to.type == ScalarType::kFloat) return static_cast<float>(v);
  if (to.type == ScalarType::kDouble) return static_cast<double>(v);
  const int bits = 8 * static_cast<int>(to.size);
  const long double lo = to.is_signed ? -std::ldexp(1.0L, bits - 1) : 0;
  const long double past_hi = to.is_signed ? std::ldexp(1.0L, bits - 1) : std::ldexp(1.0L, bits);
  if (from.is_float) {
    if (std::isnan(v)) return 0;
    const long double t = std::trunc(v);
    if (t < lo) return lo;
    if (t >= past_hi) return past_hi - 1;
    return t;
  }
  // Integer to integer: modulo 2^bits into [lo, past_hi).
  const long double span = std::ldexp(1.0L, bits);
  long double r = std::fmod(v, span);
  if (r < lo) r += span;
  if (r >= past_hi) r -= span;
  return r;
}

TEST(CastTest, AllSupportedPairsMatchReference) {
  for (const CastType& from : kCastTypes) {
    std::vector<long double> sources;
    if (from.is_float) {
      sources.assign(std::begin(kFloatSources), std::end(kFloatSources));
    } else if (from.type == ScalarType::kBool) {
      sources = {0, 1, 2, 255};
    } else {
      for (std::int64_t v : kIntSources) sources.push_back(v);
    }
    const std::size_t n = sources.size();
    std::vector<std::uint64_t> x(n), y(n);  // 8 bytes a slot: any type fits
    auto* xb = reinterpret_cast<unsigned char*>(x.data());
    for (std::size_t i = 0; i < n; ++i) put(from, sources[i], xb + i * from.size);
    for (const CastType& to : kCastTypes) {
      SCOPED_TRACE(::testing::Message()
                   << static_cast<int>(from.type) << " -> " << static_cast<int>(to.type));
      ASSERT_EQ(cast(x.data(), from.type, y.data(), to.type, static_cast<std::int64_t>(n)),
                Error::kOk);
      const auto* yb = reinterpret_cast<const unsigned char*>(y.data());
      for (std::size_t i = 0; i < n; ++i) {
        const long double v = get(from, xb + i * from.size);
        const long double want = cast_reference(from, v, to);
        const long double got = get(to, yb + i * to.size);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << "from " << static_cast<double>(v);
        } else {
          EXPECT_EQ(got, want) << "from " << static_cast<double>(v);
        }
      }
    }
  }
}

TEST(CastTest, InPlaceSameSize) {
  float v[] = {1.5f, -2.5f, kNan, 3e9f};
  ASSERT_EQ(cast(v, ScalarType::kFloat, v, ScalarType::kInt, 4), Error::kOk);
  std::int32_t got[4];
  std::memcpy(got, v, sizeof got);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], -2);
  EXPECT_EQ(got[2], 0);
  EXPECT_EQ(got[3], std::numeric_limits<std::int32_t>::max());
}

TEST(CastTest, RejectsBadArguments) {
  std::uint64_t buf[2] = {};
  EXPECT_EQ(cast(buf, ScalarType::kHalf, buf, ScalarType::kFloat, 1), Error::kInvalidArgument);
  EXPECT_EQ(cast(buf, ScalarType::kFloat, buf, ScalarType::kShort, 1), Error::kInvalidArgument);
  EXPECT_EQ(cast(buf, static_cast<ScalarType>(99), buf, ScalarType::kFloat, 1),
            Error::kInvalidArgument);
  EXPECT_EQ(cast(buf, ScalarType::kFloat, buf, ScalarType::kLong, -1), Error::kInvalidArgument);
  EXPECT_EQ(cast(nullptr, ScalarType::kFloat, buf, ScalarType::kLong, 1), Error::kInvalidArgument);
  EXPECT_EQ(cast(buf, ScalarType::kFloat, nullptr, ScalarType::kLong, 1), Error::kInvalidArgument);
  EXPECT_EQ(cast(nullptr, ScalarType::kFloat, nullptr, ScalarType::kLong, 0), Error::kOk);
  // In place only between same-size types.
  EXPECT_EQ(cast(buf, ScalarType::kInt, buf, ScalarType::kLong, 1), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

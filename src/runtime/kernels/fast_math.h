#pragma once
// Branch-free float approximations of exp, erf, erfc and tanh for the
// portable kernels (internal: include only from src/runtime/kernels).
//
// libm's expf/erff/tanhf are scalar calls, so a loop over them cannot
// vectorise; these are plain inline arithmetic, selects and bit casts (no
// branches, no tables), so a loop that calls them vectorises under -O3 on
// baseline SSE2. Each is accurate to a few ulp over every float input, and
// keeps the IEEE limits: inf and NaN inputs behave as libm's.
//
// Polynomial and rational coefficients are near-minimax fits of relative
// error (Lawson's iteratively reweighted least squares, with Loeb's
// linearisation for the rationals) to mpmath references, rounded to float.
// The errors quoted are measured in float against double libm (std::exp,
// std::erf, std::erfc, std::tanh) over every float in the stated range; the
// fits themselves are 10x tighter, so the rest is float rounding.

#include <bit>
#include <cstdint>

namespace glassbox::runtime::kernels::fast_math {
namespace detail {

// min/max as selects: a NaN fails both comparisons and passes through, and
// g++ turns each into a compare and a blend.
inline float clamp(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

// 2^n for -126 <= n <= 127, built from its exponent field.
inline float exp2i(std::int32_t n) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(n + 127) << 23);
}

}  // namespace detail

/// e^x. Cody-Waite range reduction x = n ln2 + r, |r| <= ln2 / 2, then
/// e^r = 1 + r + r^2 P(r) with P of degree 4 (fit error 3.1e-9), then the
/// scale 2^n applied as two exact powers of two so that results in the
/// subnormal range round once and the overflow edge is exact.
/// Measured max relative error 1.2e-7 (about 1 ulp) over [-87, 88];
/// +inf past 88.72, subnormal below -87.34, 0 below -103.98, NaN -> NaN.
inline float exp(float x) {
  // Past these e^x is inf or 0 anyway; the clamp keeps n in [-216, 185],
  // where both halves of the scale below are normal powers of two.
  x = detail::clamp(x, -150.0f, 128.0f);
  // n = round(x / ln2) by the 1.5 * 2^23 trick: adding it leaves n in the
  // low mantissa bits (round to nearest), subtracting it gives n as a float.
  // No float -> int conversion, which would be undefined for NaN.
  constexpr float kRoundingShift = 0x1.8p23f;
  const float shifted = x * 1.44269504f + kRoundingShift;
  const float n = shifted - kRoundingShift;
  // ln2 split so that n * kLn2High is exact (|n| <= 216 needs 8 bits, the
  // high part has 15) and x - n * kLn2High is exact (Sterbenz).
  constexpr float kLn2High = 0x1.62e4p-1f;
  constexpr float kLn2Low = 0x1.7f7d1cp-20f;
  const float r = (x - n * kLn2High) - n * kLn2Low;
  const float p =
      1.0f +
      (r + r * r * (0.49999994f +
                    r * (0.166665196f +
                         r * (0.0416684076f +
                              r * (0.00836891402f + r * 0.00138141913f)))));
  // 2^n = 2^half * 2^(n - half): p * 2^half is exact, the second product
  // rounds once (to a subnormal, 0 or inf where e^x does).
  const std::int32_t n_int = std::bit_cast<std::int32_t>(shifted) -
                             std::bit_cast<std::int32_t>(kRoundingShift);
  const std::int32_t half = n_int >> 1;
  return p * detail::exp2i(half) * detail::exp2i(n_int - half);
}

/// erf(x) as x P(x^2) / Q(x^2) with P and Q of degree 5 (fit relative error
/// 1.9e-8) on |x| <= 3.925; beyond that erf(x) rounds to +-1 in float.
/// No exp, so it is cheaper than the erfc route. Measured max relative
/// error 2.4e-7 (absolute 1.2e-7) over all floats; erf(+-inf) = +-1,
/// erf(-0) = -0, NaN -> NaN, subnormals give 2x / sqrt(pi).
inline float erf(float x) {
  const float c = detail::clamp(x, -3.925f, 3.925f);
  const float s = c * c;
  const float p =
      1.12837911f +
      s * (0.190594137f +
           s * (0.0527693555f +
                s * (0.00377256842f +
                     s * (0.000284844311f + s * 2.04602952e-06f))));
  const float q =
      1.0f +
      s * (0.502242386f +
           s * (0.114182882f +
                s * (0.014983234f +
                     s * (0.00116386288f + s * 3.80478377e-05f))));
  // Rounding could take the result a hair past 1 near the clamp.
  return detail::clamp(c * p / q, -1.0f, 1.0f);
}

/// erfc(x) = 1 - erf(x) with full relative precision where it is tiny:
/// erfc(|x|) = e^(-x^2) erfcx(|x|), the scaled erfcx a rational P(w) / Q(w)
/// of degree 4 / 5 (fit relative error 6.2e-9) on 0 <= w <= 10.5 (past
/// 10.5 erfc underflows to 0), and erfc(x) = 2 - erfc(-x) for x < 0.
/// The square is formed exactly (Dekker's product without FMA), so its
/// rounding does not grow the error with x^2.
/// Measured max relative error 1.9e-7 wherever erfc(x) >= FLT_MIN
/// (x <= 9.19); erfc(+inf) = 0, erfc(-inf) = 2, NaN -> NaN.
inline float erfc(float x) {
  const float w = detail::clamp(x < 0.0f ? -x : x, 0.0f, 10.5f);
  // w^2 = square + tail exactly: w = high + low with 12 significant bits in
  // high, so high * high, high * low and low * low are exact.
  const float high =
      std::bit_cast<float>(std::bit_cast<std::uint32_t>(w) & 0xfffff000u);
  const float low = w - high;
  const float square = w * w;
  const float tail = ((high * high - square) + 2.0f * high * low) + low * low;
  // e^-(square + tail) = e^-square (1 - tail): |tail| <= 2^-24 square, so
  // the dropped tail^2 / 2 is below 2^-30.
  const float gauss = exp(-square) * (1.0f - tail);
  const float p =
      1.0f +
      w * (1.24166965f +
           w * (0.735024452f + w * (0.230851635f + w * 0.0331401713f)));
  const float q =
      1.0f +
      w * (2.37004948f +
           w * (2.40932894f +
                w * (1.33175421f +
                     w * (0.409198731f + w * 0.0587387756f))));
  const float tail_value = gauss * p / q;
  return x < 0.0f ? 2.0f - tail_value : tail_value;
}

/// tanh(x) as x P(x^2) / Q(x^2) with P and Q of degree 4 (fit relative
/// error 2.1e-8) on |x| <= 9.02; beyond that tanh(x) rounds to +-1.
/// Measured max relative error 1.8e-7 over all floats; tanh(+-inf) = +-1,
/// tanh(-0) = -0, NaN -> NaN.
inline float tanh(float x) {
  const float c = detail::clamp(x, -9.02f, 9.02f);
  const float s = c * c;
  const float p =
      1.0f + s * (0.133797213f +
                  s * (0.00349403918f +
                       s * (2.05835531e-05f + s * 1.33191609e-08f)));
  const float q =
      1.0f + s * (0.467130363f +
                  s * (0.0258710906f +
                       s * (0.000328310009f + s * 7.76205809e-07f)));
  return detail::clamp(c * p / q, -1.0f, 1.0f);
}

}  // namespace glassbox::runtime::kernels::fast_math

#pragma once
// Branch-free float exp, erf, erfc and tanh for the portable kernels
// (internal to src/runtime/kernels).
//
// libm's expf/erff/tanhf are calls, so a loop over them stays scalar. These
// are inline arithmetic, bit casts and mask selects (no branches, no
// tables), so a loop that calls them vectorises under -O3 on baseline
// SSE2. NaN in gives NaN out, and +-inf give the limits libm gives.
//
// Coefficients are near-minimax fits of relative error (Lawson's
// iteratively reweighted least squares; Loeb's linearisation for the
// rationals) to mpmath references, rounded to float; erf's and tanh's were
// then nudged by a few ulp each to lower the error measured in float. The
// errors quoted are measured against double libm over every float in the
// stated range (g++ 12 -O3, SSE2, so no FMA contraction); the FastMathTest
// sweeps in elementwise_ext_test.cc check them on a sample. The fits alone
// are 15-60x tighter: the rest is float rounding in the evaluation.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace glassbox::runtime::kernels::fast_math {

/// cond ? a : b, both computed, through a bit mask. A plain ?: does not
/// stay a select once a side costs something: g++ -O3 moves that work into
/// a branch (e.g. jump threading through a clamp folds it to a constant on
/// one path, and -ftrapping-math then forbids computing it on both), and a
/// loop with a branch does not vectorise. A mask is a compare and 2-3
/// logic ops.
inline float select(bool cond, float a, float b) {
  const std::uint32_t mask = cond ? 0xffffffffu : 0u;
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(a) & mask) |
                              (std::bit_cast<std::uint32_t>(b) & ~mask));
}

namespace detail {

// n = round(x) for |x| < 2^22 by the 1.5 * 2^23 trick: adding it leaves n
// in the low mantissa bits (two's complement, round to nearest), so
// subtracting it again gives n as a float. No float -> int conversion,
// which would be undefined for NaN and huge x.
constexpr float kRoundingShift = 0x1.8p23f;

// 2^n, -126 <= n <= 127, from shifted = n + kRoundingShift: adding 127 to
// its bits leaves 127 + n in the low bits, and shifting by 23 moves them
// into the exponent field and drops the rest. n = -127 gives 0 and n = 128
// inf; beyond that the result is garbage.
inline float pow2_of_shifted(float shifted) {
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(shifted) + 127u) << 23);
}

// |magnitude| with the sign of `sign`, for magnitude >= +0 or NaN: one
// logic op fewer than std::copysign, which clears the sign first.
inline float with_sign_of(float magnitude, float sign) {
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) |
                              (std::bit_cast<std::uint32_t>(sign) & 0x80000000u));
}

// e^x = p * 2^n (for |x| < 2^21) by Cody-Waite range reduction
// x = n ln2 + r, |r| <= ln2 / 2, and e^r = 1 + r + r^2 P(r), P of degree 4
// (fit error 3.1e-9). Returns p; `shifted` receives x / ln2 plus
// kRoundingShift, whose low bits are n.
inline float exp_reduced(float x, float& shifted) {
  shifted = x * 1.44269504f + kRoundingShift;
  const float n = shifted - kRoundingShift;
  // ln2 split so that n * kLn2High is exact (|n| <= 128 needs 8 bits, the
  // high part has 15) and x - n * kLn2High is exact (Sterbenz).
  constexpr float kLn2High = 0x1.62e4p-1f;
  constexpr float kLn2Low = 0x1.7f7d1cp-20f;
  const float r = (x - n * kLn2High) - n * kLn2Low;
  // Estrin's scheme: shorter dependency chains than Horner's, so more loop
  // iterations overlap.
  const float r2 = r * r;
  const float poly = (0.49999994f + r * 0.166665196f) +
                     r2 * ((0.0416684076f + r * 0.00836891402f) + r2 * 0.00138141913f);
  return 1.0f + (r + r2 * poly);
}

// The last float whose e^x is normal.
constexpr float kExpMinNormalArg = -0x1.5d589ep+6f;  // -87.3365402

}  // namespace detail

/// e^x: detail::exp_reduced, then n added to p's exponent field.
/// Measured max relative error 8.3e-8 (0.7 ulp) over [-87.34, 88.72].
/// +inf above 88.7228 (where e^x rounds past FLT_MAX), NaN -> NaN, and 0
/// below -87.3365 (where e^x < FLT_MIN): results that would be subnormal
/// flush to zero, which saves the two-step scaling gradual underflow needs.
inline float exp(float x) {
  float shifted;
  const float p = detail::exp_reduced(x, shifted);
  // p * 2^n by integer addition: the low bits of `shifted` shifted up by
  // 23 are n in the exponent field (the bits above them fall off). Exact
  // while the result is normal, n = 128 included (then r < 0 and p < 1);
  // elsewhere, and for |x| >= 2^22 where the rounding trick breaks, the
  // bits are garbage, and the selects below replace them.
  const float scaled = std::bit_cast<float>(std::bit_cast<std::uint32_t>(p) +
                                            (std::bit_cast<std::uint32_t>(shifted) << 23));
  const float y = select(x < detail::kExpMinNormalArg, 0.0f, scaled);
  // One select for overflow and NaN (whose comparison is false): there
  // x + inf is +inf or NaN.
  constexpr float kMaxFiniteArg = 0x1.62e42ep+6f;  // 88.7228317
  return select(x <= kMaxFiniteArg, y, x + std::numeric_limits<float>::infinity());
}

/// e^x for x <= 0 (and NaN), as exp() but four operations cheaper: 2^n
/// applied by a multiply, which passes NaN through, and no overflow
/// handling (positive x are right up to 88.37, then give inf where exp()
/// is still finite, and garbage from 2^22 on). For softmax's x - max,
/// erfc's -x^2 and sigmoid's -|x|.
/// Measured max relative error 8.2e-8 down to -87.3365, 0 below.
inline float exp_nonpositive(float x) {
  float shifted;
  const float p = detail::exp_reduced(x, shifted);
  const float y = p * detail::pow2_of_shifted(shifted);
  // Below it n < -126, where pow2_of_shifted goes wrong.
  return select(x < detail::kExpMinNormalArg, 0.0f, y);
}

/// erf(x) = sign(x) a P(a^2) / Q(a^2), a = min(|x|, 3.9193), P and Q of
/// degree 5 (fit relative error 1.9e-8); from 3.9192 on erf(x) rounds to
/// +-1. No exp: cheaper than going through erfc, at the cost of a few ulp
/// near +-1.
/// Measured max relative error 3.8e-7 (at |x| ~ 0.23) and max absolute
/// error 3.5e-7 (at |x| ~ 3.4). erf(+-inf) = +-1, erf(-0) = -0,
/// NaN -> NaN, subnormal x give 2 x / sqrt(pi) rounded.
inline float erf(float x) {
  constexpr float kSaturation = 3.9193f;
  const float magnitude = std::fabs(x);
  const float a = select(magnitude > kSaturation, kSaturation, magnitude);
  // Estrin's scheme (pairs, then powers of s^2): shorter dependency chains
  // than Horner's let more loop iterations overlap (7% faster).
  const float s = a * a;
  const float s2 = s * s;
  const float p =
      (1.12837923f + s * 0.190594062f) +
      s2 * ((0.0527693592f + s * 0.00377256866f) + s2 * (0.00028484434f + s * 2.04602884e-06f));
  const float q = (1.0f + s * 0.502242386f) + s2 * ((0.114182875f + s * 0.014983234f) +
                                                    s2 * (0.00116386288f + s * 3.8047845e-05f));
  const float y = a * p / q;
  // Rounding takes some results near the saturation one ulp past 1.
  return detail::with_sign_of(select(y > 1.0f, 1.0f, y), x);
}

/// erfc(x) = 1 - erf(x), with full relative precision where it is tiny:
/// erfc(w) = e^(-w^2) erfcx(w) for w = |x|, erfcx (the scaled erfc) a
/// rational P(w) / Q(w) of degree 4 / 5 (fit relative error 6.2e-9) on
/// [0, 10.5], past which erfc underflows; erfc(x) = 2 - erfc(-x) for x < 0.
/// Measured relative error below 3.8e-7 + 6.3e-8 x^2 where erfc(x) >=
/// FLT_MIN (x <= 9.19). The x^2 term is the rounding of x^2; the rounding
/// of x itself costs as much (erfc's condition number is 2 x^2). Subnormal
/// from 9.19, 0 from 9.35 on (where e^(-x^2) would be subnormal);
/// erfc(+inf) = 0, erfc(-inf) = 2, NaN -> NaN.
inline float erfc(float x) {
  const float magnitude = std::fabs(x);
  const float w = select(magnitude > 10.5f, 10.5f, magnitude);
  const float w2 = w * w;
  const float p =
      (1.0f + w * 1.24166965f) + w2 * ((0.735024452f + w * 0.230851635f) + w2 * 0.0331401713f);
  const float q = (1.0f + w * 2.37004948f) +
                  w2 * ((2.40932894f + w * 1.33175421f) + w2 * (0.409198731f + w * 0.0587387756f));
  const float upper_tail = exp_nonpositive(-w2) * p / q;
  return select(x < 0.0f, 2.0f - upper_tail, upper_tail);
}

/// tanh(x) = sign(x) a P(a^2) / Q(a^2), a = min(|x|, 9.02), P and Q of
/// degree 4 (fit relative error 2.1e-8); from 9.011 on tanh(x) rounds to
/// +-1. Cheaper than 1 - 2 / (e^2x + 1), which also needs a polynomial
/// near 0.
/// Measured max relative error 3.4e-7, which is also the max absolute
/// error (at |x| ~ 7.1; 3.2e-7 for |x| < 0.5). tanh(+-inf) = +-1,
/// tanh(-0) = -0, NaN -> NaN.
inline float tanh(float x) {
  constexpr float kSaturation = 9.02f;
  const float magnitude = std::fabs(x);
  const float a = select(magnitude > kSaturation, kSaturation, magnitude);
  const float s = a * a;
  const float s2 = s * s;
  const float p = (1.0f + s * 0.133797213f) +
                  s2 * ((0.00349403918f + s * 2.05835513e-05f) + s2 * 1.33191609e-08f);
  const float q = (1.0f + s * 0.467130363f) +
                  s2 * ((0.0258710906f + s * 0.000328310009f) + s2 * 7.76205979e-07f);
  const float y = a * p / q;
  return detail::with_sign_of(select(y > 1.0f, 1.0f, y), x);
}

}  // namespace glassbox::runtime::kernels::fast_math

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime::kernels {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using testing::expect_close;
using testing::expect_equal;
using testing::random_bytes;
using testing::ref_quantize;
using testing::value_of;
using Shape = std::vector<std::int64_t>;

Pool2dParams pool(std::int64_t k, std::int64_t s, std::int64_t pad, bool ceil_mode,
                  bool include_pad) {
  Pool2dParams p;
  p.kernel_h = p.kernel_w = k;
  p.stride_h = p.stride_w = s;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
  p.ceil_mode = ceil_mode;
  p.count_include_pad = include_pad;
  return p;
}

// Average (is_max false) or max over each window, from the quantized
// values, in double; avg is then quantized with y's parameters.
std::vector<std::int32_t> reference(const std::vector<std::uint8_t>& x, Shape4 is,
                                    const Pool2dParams& p, Shape4 os, const QuantInput& xq,
                                    const QuantOutput& yq, bool is_max) {
  std::vector<std::int32_t> out;
  for (std::int64_t pl = 0; pl < is.n * is.c; ++pl)
    for (std::int64_t oh = 0; oh < os.h; ++oh)
      for (std::int64_t ow = 0; ow < os.w; ++ow) {
        std::int32_t best = testing::type_min(xq.type);
        double sum = 0.0;
        std::int64_t valid = 0, padded = 0;
        for (std::int64_t kh = 0; kh < p.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
            const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            if (ih < is.h + p.pad_bottom && iw < is.w + p.pad_right) ++padded;
            if (ih < 0 || ih >= is.h || iw < 0 || iw >= is.w) continue;
            const std::int32_t v =
                value_of(x[static_cast<std::size_t>((pl * is.h + ih) * is.w + iw)], xq.type);
            best = std::max(best, v);
            sum += (v - xq.zero_point) * double{xq.scale};
            ++valid;
          }
        if (is_max) {
          out.push_back(best);
        } else {
          const std::int64_t divisor = p.count_include_pad ? padded : valid;
          const double mean = divisor > 0 ? sum / static_cast<double>(divisor) : 0.0;
          out.push_back(ref_quantize(mean / yq.scale, yq.type, yq.zero_point, yq.range));
        }
      }
  return out;
}

TEST(QLinearAvgPool2dTest, MatchesReference) {
  Pool2dParams asym = pool(3, 2, 0, true, true);
  asym.pad_top = 1;
  asym.pad_right = 2;
  Pool2dParams rect = pool(2, 1, 0, false, true);
  rect.kernel_w = 4;
  rect.stride_h = 3;
  const Pool2dParams all[] = {pool(2, 2, 0, false, true),
                              pool(3, 1, 1, false, true),
                              pool(3, 1, 1, false, false),
                              pool(3, 2, 1, true, false),
                              asym,
                              rect};
  std::uint32_t seed = 1;
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte})
    for (const Pool2dParams& p : all) {
      const Shape4 is{2, 3, 9, 8};
      const std::vector<std::uint8_t> x = random_bytes(static_cast<std::size_t>(is.numel()), seed);
      const Shape4 os = *pool2d_output_shape(is, p);
      std::vector<std::uint8_t> y(static_cast<std::size_t>(os.numel()));
      const std::int32_t lo = testing::type_min(t);
      const QuantInput xq{x.data(), t, 0.05f, lo + 127};
      // Output quantization differs from the input's. The scale ratio is
      // no short binary fraction, so exact ties (where float and double
      // may round apart) stay rare; TiesRoundHalfToEven covers them.
      const QuantOutput yq{y.data(), t, 0.0173f, lo + 133, {}};
      ASSERT_THAT(qlinear_avg_pool2d(xq, is, p, yq), IsOk());
      SCOPED_TRACE(seed);
      expect_close(y, t, reference(x, is, p, os, xq, yq, false));
      ++seed;
    }
}

TEST(QLinearAvgPool2dTest, TiesRoundHalfToEven) {
  // Window sums 5, 7, -5 and 3 (x - zp) over 2 elements, scales 1: means
  // 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, 1.5 -> 2.
  const Shape4 is{1, 1, 1, 8};
  const std::int8_t x[8] = {2, 3, 3, 4, -2, -3, 1, 2};
  std::int8_t y[4];
  Pool2dParams p = pool(1, 1, 0, false, true);
  p.kernel_w = p.stride_w = 2;
  ASSERT_THAT(qlinear_avg_pool2d({x, ScalarType::kChar, 1.0f, 0}, is, p,
                                 {y, ScalarType::kChar, 1.0f, 0, {}}),
              IsOk());
  EXPECT_THAT(y, ::testing::ElementsAre(2, 4, -2, 2));
}

TEST(QLinearAvgPool2dTest, SaturatesAndRejectsBadArguments) {
  // All inputs at 127 with zero point -128 average to 255 steps of 1.0:
  // saturates an int8 output of scale 1 at 127.
  const Shape4 is{1, 1, 2, 2};
  const std::int8_t x[4] = {127, 127, 127, 127};
  std::int8_t y[1];
  const QuantInput xq{x, ScalarType::kChar, 1.0f, -128};
  ASSERT_THAT(
      qlinear_avg_pool2d(xq, is, pool(2, 2, 0, false, true), {y, ScalarType::kChar, 1.0f, 0, {}}),
      IsOk());
  EXPECT_EQ(y[0], 127);
  EXPECT_THAT(
      qlinear_avg_pool2d(xq, is, pool(3, 1, 0, false, true), {y, ScalarType::kChar, 1.0f, 0, {}}),
      ErrorIs(Error::kInvalidArgument, {"pool2d"}));
  Pool2dParams dilated = pool(1, 1, 0, false, true);
  dilated.dilation_h = 2;
  EXPECT_THAT(qlinear_avg_pool2d(xq, is, dilated, {y, ScalarType::kChar, 1.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument, {"dilation"}));
  EXPECT_THAT(
      qlinear_avg_pool2d(xq, is, pool(2, 2, 0, false, true), {y, ScalarType::kByte, 1.0f, 0, {}}),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(qlinear_avg_pool2d(xq, is, pool(2, 2, 0, false, true),
                                 {nullptr, ScalarType::kChar, 1.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument, {"null"}));
  EXPECT_THAT(qlinear_avg_pool2d({x, ScalarType::kChar, 1.0f, -129}, is, pool(2, 2, 0, false, true),
                                 {y, ScalarType::kChar, 1.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument));
}

TEST(QLinearGlobalAvgPool2dTest, MatchesReference) {
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    const Shape4 is{2, 5, 7, 9};
    const std::vector<std::uint8_t> x = random_bytes(static_cast<std::size_t>(is.numel()), 9);
    std::vector<std::uint8_t> y(10);
    const std::int32_t lo = testing::type_min(t);
    const QuantInput xq{x.data(), t, 0.1f, lo + 120};
    // A fine output scale: the means of ~63 random values spread out.
    const QuantOutput yq{y.data(), t, 0.02f, lo + 128, {}};
    ASSERT_THAT(qlinear_global_avg_pool2d(xq, is, yq), IsOk());
    Pool2dParams whole = pool(1, 1, 0, false, true);
    whole.kernel_h = 7;
    whole.kernel_w = 9;
    expect_close(y, t, reference(x, is, whole, {2, 5, 1, 1}, xq, yq, false), 1.0);
  }
  std::uint8_t v = 0;
  EXPECT_THAT(qlinear_global_avg_pool2d({&v, ScalarType::kByte, 1.0f, 0}, {1, 1, 0, 1},
                                        {&v, ScalarType::kByte, 1.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument, {"qlinear_global_avg_pool2d"}));
  EXPECT_THAT(qlinear_global_avg_pool2d({&v, ScalarType::kByte, 1.0f, 0}, {1, 1, 1, 1},
                                        {&v, ScalarType::kByte, 0.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument));
}

TEST(QuantizedMaxPool2dTest, MatchesReferenceWithDilationAndCeilMode) {
  Pool2dParams dilated = pool(3, 2, 1, true, true);
  dilated.dilation_h = 2;
  dilated.pad_right = 0;
  const Pool2dParams all[] = {pool(2, 2, 0, false, true), pool(3, 1, 1, false, true), dilated};
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte})
    for (const Pool2dParams& p : all) {
      const Shape4 is{2, 3, 10, 9};
      const std::vector<std::uint8_t> x = random_bytes(static_cast<std::size_t>(is.numel()), 4);
      const Shape4 os = *pool2d_output_shape(is, p);
      std::vector<std::uint8_t> y(static_cast<std::size_t>(os.numel()));
      ASSERT_THAT(quantized_max_pool2d(x.data(), t, is, p, y.data()), IsOk());
      const QuantInput xq{x.data(), t, 1.0f, 0};
      expect_equal(y, t, reference(x, is, p, os, xq, {}, true));
    }
  std::uint8_t v = 0;
  EXPECT_THAT(
      quantized_max_pool2d(&v, ScalarType::kInt, {1, 1, 1, 1}, pool(1, 1, 0, false, true), &v),
      ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantized_max_pool2d(nullptr, ScalarType::kChar, {1, 1, 1, 1},
                                   pool(1, 1, 0, false, true), &v),
              ErrorIs(Error::kInvalidArgument));
}

TEST(QLinearConcatTest, CopiesOrRequantizesEachInput) {
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    const std::int32_t lo = testing::type_min(t);
    // [2, 3, 4] ++ [2, 1, 4] ++ [2, 2, 4] along axis 1 (= -2).
    const Shape s0{2, 3, 4}, s1{2, 1, 4}, s2{2, 2, 4};
    const std::vector<std::uint8_t> a = random_bytes(24, 1), b = random_bytes(8, 2),
                                    c = random_bytes(16, 3);
    const QuantConcatInput inputs[] = {{{a.data(), t, 0.1f, lo + 128}, s0},
                                       {{b.data(), t, 0.27f, lo + 100}, s1},
                                       {{c.data(), t, 0.03f, lo + 140}, s2}};
    std::vector<std::uint8_t> y(48);
    const QuantOutput yq{y.data(), t, 0.1f, lo + 128, {}};
    ASSERT_THAT(qlinear_concat(inputs, -2, yq), IsOk());
    std::vector<std::int32_t> want;
    for (std::int64_t o = 0; o < 2; ++o)
      for (const QuantConcatInput& in : inputs) {
        const std::int64_t block = in.shape[1] * 4;
        const auto* src = static_cast<const std::uint8_t*>(in.x.data) + o * block;
        for (std::int64_t i = 0; i < block; ++i) {
          const double real = (value_of(src[i], t) - in.x.zero_point) * double{in.x.scale};
          want.push_back(ref_quantize(real / yq.scale, t, yq.zero_point));
        }
      }
    expect_close(y, t, want);
    // The first input shares y's quantization: a bit-exact copy.
    for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(y[i], a[i]);
  }
}

TEST(QLinearConcatTest, RejectsBadArguments) {
  std::uint8_t a[4] = {}, y[8] = {};
  const Shape s{2, 2}, other{3, 2}, flat{4};
  const QuantInput q{a, ScalarType::kChar, 1.0f, 0};
  const QuantOutput out{y, ScalarType::kChar, 1.0f, 0, {}};
  const QuantConcatInput ok[] = {{q, s}, {q, s}};
  EXPECT_THAT(qlinear_concat(ok, 0, out), IsOk());
  EXPECT_THAT(qlinear_concat({}, 0, out), ErrorIs(Error::kInvalidArgument, {"qlinear_concat"}));
  EXPECT_THAT(qlinear_concat(ok, 2, out), ErrorIs(Error::kInvalidArgument));
  const QuantConcatInput mismatched[] = {{q, s}, {q, other}};
  EXPECT_THAT(qlinear_concat(mismatched, 1, out), ErrorIs(Error::kInvalidArgument));
  const QuantConcatInput ranks[] = {{q, s}, {q, flat}};
  EXPECT_THAT(qlinear_concat(ranks, 0, out), ErrorIs(Error::kInvalidArgument));
  const QuantConcatInput types[] = {{q, s}, {{a, ScalarType::kByte, 1.0f, 0}, s}};
  EXPECT_THAT(qlinear_concat(types, 0, out), ErrorIs(Error::kInvalidArgument));
  const QuantConcatInput null_input[] = {{q, s}, {{nullptr, ScalarType::kChar, 1.0f, 0}, s}};
  EXPECT_THAT(qlinear_concat(null_input, 0, out), ErrorIs(Error::kInvalidArgument, {"null"}));
  EXPECT_THAT(qlinear_concat(ok, 0, {nullptr, ScalarType::kChar, 1.0f, 0, {}}),
              ErrorIs(Error::kInvalidArgument, {"null"}));
  EXPECT_THAT(qlinear_concat(ok, 0, {y, ScalarType::kChar, 1.0f, 200, {}}),
              ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::runtime::kernels

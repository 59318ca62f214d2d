#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/kernels_test_util.h"
#include "src/runtime/kernels/quantized_test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runtime::kernels {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using ::glassbox::testing::IsOkAndHolds;
using testing::expect_close;
using testing::expect_equal;
using testing::random_bytes;
using testing::ref_quantize;
using testing::value_of;
using Shape = std::vector<std::int64_t>;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// quantize_linear of a per-tensor float vector into raw bytes.
std::vector<std::uint8_t> quantize(const std::vector<float>& x, ScalarType t, float scale,
                                   std::int32_t zp) {
  std::vector<std::uint8_t> y(x.size());
  const Shape shape{static_cast<std::int64_t>(x.size())};
  EXPECT_THAT(quantize_linear(x.data(), shape, {{&scale, 1}, {&zp, 1}}, 0, y.data(), t), IsOk());
  return y;
}

TEST(QuantizeLinearTest, TiesRoundHalfToEven) {
  // scale 0.5: x / scale = 2.5, 3.5, -2.5, 0.5, -0.5, 1.5, -3.5 exactly.
  const std::vector<float> x{1.25f, 1.75f, -1.25f, 0.25f, -0.25f, 0.75f, -1.75f};
  expect_equal(quantize(x, ScalarType::kChar, 0.5f, 0), ScalarType::kChar, {2, 4, -2, 0, 0, 2, -4});
  expect_equal(quantize(x, ScalarType::kByte, 0.5f, 100), ScalarType::kByte,
               {102, 104, 98, 100, 100, 102, 96});
}

TEST(QuantizeLinearTest, SaturatesAtBothLimits) {
  const std::vector<float> x{1000.0f, -1000.0f, kInf, -kInf, 127.4f, -128.6f};
  expect_equal(quantize(x, ScalarType::kChar, 1.0f, 0), ScalarType::kChar,
               {127, -128, 127, -128, 127, -128});
  // uint8 with zero point 10: -10.4 -> 0, -11 -> 0 (saturated), 245.4 -> 255.
  const std::vector<float> u{1000.0f, -1000.0f, -10.4f, -11.0f, 245.4f, 246.0f};
  expect_equal(quantize(u, ScalarType::kByte, 1.0f, 10), ScalarType::kByte,
               {255, 0, 0, 0, 255, 255});
}

TEST(QuantizeLinearTest, NaNGivesZeroPoint) {
  expect_equal(quantize({kNaN, -kNaN}, ScalarType::kChar, 0.1f, -7), ScalarType::kChar, {-7, -7});
  expect_equal(quantize({kNaN}, ScalarType::kByte, 0.1f, 200), ScalarType::kByte, {200});
}

TEST(QuantizeLinearTest, MatchesDoubleReferencePerTensor) {
  const std::vector<float> x = testing::random_floats(4096, 1, -40.0f, 40.0f);
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    const std::int32_t zp = t == ScalarType::kChar ? -3 : 131;
    const float scale = 0.173f;
    std::vector<std::int32_t> want;
    for (float v : x) want.push_back(ref_quantize(static_cast<double>(v) / scale, t, zp));
    expect_close(quantize(x, t, scale, zp), t, want);
  }
}

TEST(QuantizeLinearTest, PerAxisAppliesEachChannelsParameters) {
  // [2, 3, 4] quantized along axis 1 (also spelled -2).
  const Shape shape{2, 3, 4};
  const std::vector<float> x = testing::random_floats(24, 2, -5.0f, 5.0f);
  const float scales[] = {0.05f, 0.1f, 0.02f};
  const std::int32_t zps[] = {-10, 0, 20};
  for (std::int64_t axis : {1, -2}) {
    std::vector<std::uint8_t> y(24);
    ASSERT_THAT(quantize_linear(x.data(), shape, {scales, zps}, axis, y.data(), ScalarType::kChar),
                IsOk());
    std::vector<std::int32_t> want;
    for (std::size_t i = 0; i < 24; ++i) {
      const std::size_t c = (i / 4) % 3;
      want.push_back(
          ref_quantize(static_cast<double>(x[i]) / scales[c], ScalarType::kChar, zps[c]));
    }
    expect_close(y, ScalarType::kChar, want);
  }
}

TEST(DequantizeLinearTest, ExactForEveryType) {
  const std::vector<std::uint8_t> bytes = random_bytes(256, 3);
  for (ScalarType t : {ScalarType::kChar, ScalarType::kByte}) {
    const std::int32_t zp = t == ScalarType::kChar ? 5 : 128;
    std::vector<float> y(bytes.size());
    const Shape shape{16, 16};
    const float scale = 0.037f;
    ASSERT_THAT(dequantize_linear(bytes.data(), t, shape, {{&scale, 1}, {&zp, 1}}, 0, y.data()),
                IsOk());
    for (std::size_t i = 0; i < y.size(); ++i)
      EXPECT_EQ(y[i], static_cast<float>(value_of(bytes[i], t) - zp) * scale);
  }
  // int32 (biases), per axis 0 of [2, 2], zero points absent (0).
  const std::int32_t x32[] = {1 << 30, -(1 << 30), 7, -7};
  const float scales[] = {1e-6f, 0.5f};
  const Shape shape{2, 2};
  float y[4];
  ASSERT_THAT(dequantize_linear(x32, ScalarType::kInt, shape, {scales, {}}, 0, y), IsOk());
  EXPECT_EQ(y[0], static_cast<float>(1 << 30) * 1e-6f);
  EXPECT_EQ(y[1], static_cast<float>(-(1 << 30)) * 1e-6f);
  EXPECT_EQ(y[2], 3.5f);
  EXPECT_EQ(y[3], -3.5f);
}

TEST(QuantizeLinearTest, RejectsBadArguments) {
  const float x[4] = {};
  std::uint8_t y[4];
  const Shape shape{2, 2};
  const float one = 1.0f;
  const std::int32_t zero = 0;
  const QuantParams ok{{&one, 1}, {&zero, 1}};
  EXPECT_THAT(quantize_linear(nullptr, shape, ok, 0, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument, {"null"}));
  EXPECT_THAT(quantize_linear(x, shape, ok, 0, nullptr, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantize_linear(x, shape, ok, 0, y, ScalarType::kFloat),
              ErrorIs(Error::kInvalidArgument, {"quantize_linear"}));
  for (float bad : {0.0f, -1.0f, kNaN, kInf}) {
    EXPECT_THAT(quantize_linear(x, shape, {{&bad, 1}, {}}, 0, y, ScalarType::kChar),
                ErrorIs(Error::kInvalidArgument))
        << bad;
  }
  for (std::int32_t bad_zp : {-129, 128}) {
    EXPECT_THAT(quantize_linear(x, shape, {{&one, 1}, {&bad_zp, 1}}, 0, y, ScalarType::kChar),
                ErrorIs(Error::kInvalidArgument));
  }
  const std::int32_t minus_one = -1;
  EXPECT_THAT(quantize_linear(x, shape, {{&one, 1}, {&minus_one, 1}}, 0, y, ScalarType::kByte),
              ErrorIs(Error::kInvalidArgument));
  // Per-axis counts: 3 scales for a dim of 2, zero points 1 vs 2 scales.
  const float three[] = {1.0f, 1.0f, 1.0f};
  EXPECT_THAT(quantize_linear(x, shape, {three, {}}, 0, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantize_linear(x, shape, {{three, 2}, {&zero, 1}}, 0, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantize_linear(x, shape, {{three, 2}, {}}, 2, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantize_linear(x, shape, {{three, 2}, {}}, -3, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantize_linear(x, shape, {{}, {}}, 0, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
  const Shape negative{-1, 2};
  EXPECT_THAT(quantize_linear(x, negative, ok, 0, y, ScalarType::kChar),
              ErrorIs(Error::kInvalidArgument));
}

TEST(DequantizeLinearTest, RejectsBadArguments) {
  const std::uint8_t x[4] = {};
  float y[4];
  const Shape shape{4};
  const float one = 1.0f;
  const std::int32_t big = 300;
  EXPECT_THAT(dequantize_linear(x, ScalarType::kByte, shape, {{&one, 1}, {&big, 1}}, 0, y),
              ErrorIs(Error::kInvalidArgument, {"dequantize_linear"}));
  EXPECT_THAT(dequantize_linear(x, ScalarType::kFloat, shape, {{&one, 1}, {}}, 0, y),
              ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(dequantize_linear(nullptr, ScalarType::kChar, shape, {{&one, 1}, {}}, 0, y),
              ErrorIs(Error::kInvalidArgument, {"null"}));
  const float zero_scale = 0.0f;
  EXPECT_THAT(dequantize_linear(x, ScalarType::kChar, shape, {{&zero_scale, 1}, {}}, 0, y),
              ErrorIs(Error::kInvalidArgument));
  // Empty tensors need no data.
  const Shape empty{0, 3};
  EXPECT_THAT(dequantize_linear(nullptr, ScalarType::kChar, empty, {{&one, 1}, {}}, 0, nullptr),
              IsOk());
}

TEST(QuantizedRangeTest, ReluAndClampRanges) {
  QuantOutput y{nullptr, ScalarType::kChar, 0.05f, -20, {}};
  const QuantRange relu = quantized_relu_range(y);
  EXPECT_EQ(relu.min, -20);
  // ReLU6: 6 / 0.05 = 120 -> 100, saturating at 127 would be 7.35.
  EXPECT_THAT(quantized_clamp_range(y, 0.0f, 6.0f),
              IsOkAndHolds(::testing::AllOf(::testing::Field(&QuantRange::min, -20),
                                            ::testing::Field(&QuantRange::max, 100))));
  EXPECT_THAT(quantized_clamp_range(y, -kInf, kInf),
              IsOkAndHolds(::testing::AllOf(::testing::Field(&QuantRange::min, -128),
                                            ::testing::Field(&QuantRange::max, 127))));
  EXPECT_THAT(quantized_clamp_range(y, 1.0f, 0.0f), ErrorIs(Error::kInvalidArgument));
  EXPECT_THAT(quantized_clamp_range(y, kNaN, 0.0f), ErrorIs(Error::kInvalidArgument));
  y.scale = -1.0f;
  EXPECT_THAT(quantized_clamp_range(y, 0.0f, 1.0f), ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::runtime::kernels

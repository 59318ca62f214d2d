#include "glassbox/runtime/kernels/layer_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

constexpr float kEps = 1e-5f;

// Mean and population variance of the values at `index(0..m-1)`, in long
// double, by the textbook definition.
template <typename Index>
std::pair<long double, long double> stats(const std::vector<float>& x, std::int64_t m,
                                          Index index) {
  long double sum = 0.0L;
  for (std::int64_t i = 0; i < m; ++i) sum += x[index(i)];
  const long double mean = sum / m;
  long double var = 0.0L;
  for (std::int64_t i = 0; i < m; ++i) {
    const long double d = x[index(i)] - mean;
    var += d * d;
  }
  return {mean, var / m};
}

// The header promises ~6 float ulp of |norm * scale| + |bias|: about one
// rounding for each of x - hi, - lo, * inv_std, * scale, + bias and the
// float inv_std; 8 leaves a margin. (A float x - float(mean) over values
// near 1000 is off by ~100 ulp, and one float pass E[x^2] - mean^2 by
// whole units.)
void expect_normalized(float got, long double x, long double mean, long double var, float eps,
                       float scale, float bias) {
  const long double norm = (x - mean) / std::sqrt(var + eps) * scale;
  const double want = static_cast<double>(norm + bias);
  const double tol =
      8 * testing::kUnitRoundoff * static_cast<double>(std::abs(norm) + std::abs(bias)) + 1e-30;
  ASSERT_NEAR(got, want, tol);
}

void check_layer_norm(std::int64_t rows, std::int64_t cols, float offset, bool with_bias) {
  SCOPED_TRACE(::testing::Message()
               << rows << "x" << cols << " offset " << offset << " bias " << with_bias);
  const auto n = static_cast<std::size_t>(rows * cols);
  const auto x = testing::random_floats(n, 101, offset - 1.0f, offset + 1.0f);
  const auto scale = testing::random_floats(static_cast<std::size_t>(cols), 102, 0.5f, 2.0f);
  const auto bias = testing::random_floats(static_cast<std::size_t>(cols), 103);
  std::vector<float> y(n, NAN);
  ASSERT_EQ(layer_norm(x.data(), rows, cols, scale.data(), with_bias ? bias.data() : nullptr, kEps,
                       y.data()),
            Error::kOk);
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto [mean, var] =
        stats(x, cols, [&](std::int64_t c) { return static_cast<std::size_t>(r * cols + c); });
    for (std::int64_t c = 0; c < cols; ++c) {
      const auto i = static_cast<std::size_t>(r * cols + c);
      const auto k = static_cast<std::size_t>(c);
      expect_normalized(y[i], x[i], mean, var, kEps, scale[k], with_bias ? bias[k] : 0.0f);
    }
  }
}

TEST(LayerNormTest, MatchesDefinition) {
  check_layer_norm(3, 7, 0.0f, true);
  check_layer_norm(4, 768, 0.0f, true);
  check_layer_norm(2, 4096, 0.0f, false);
  check_layer_norm(5, 1, 0.0f, true);  // var = 0: y = bias
}

TEST(LayerNormTest, LargeOffsetKeepsPrecision) {
  check_layer_norm(3, 768, 1000.0f, true);
  check_layer_norm(1, 4096, -3000.0f, true);
}

TEST(LayerNormTest, InPlaceAndSpecialValues) {
  std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 5.0f, 5.0f, 5.0f, NAN, 0.0f, 1.0f, 2.0f};
  const float scale[] = {1.0f, 1.0f, 1.0f, 1.0f};
  ASSERT_EQ(layer_norm(x.data(), 3, 4, scale, nullptr, 0.0f, x.data()), Error::kOk);
  const double s = std::sqrt(1.25);  // population std of 1, 2, 3, 4
  EXPECT_FLOAT_EQ(x[0], static_cast<float>(-1.5 / s));
  EXPECT_FLOAT_EQ(x[3], static_cast<float>(1.5 / s));
  // A constant row with epsilon 0 is 0 / 0, as in the ONNX reference.
  EXPECT_TRUE(std::isnan(x[4]));
  for (std::size_t i = 8; i < 12; ++i) EXPECT_TRUE(std::isnan(x[i])) << i;
}

TEST(LayerNormTest, RejectsBadArguments) {
  float x[4] = {};
  float y[4] = {};
  const float scale[2] = {1.0f, 1.0f};
  EXPECT_EQ(layer_norm(x, -1, 2, scale, nullptr, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(x, 2, -2, scale, nullptr, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(x, 2, 2, scale, nullptr, -1.0f, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(x, 2, 2, scale, nullptr, NAN, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(x, 2, 2, nullptr, nullptr, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(nullptr, 2, 2, scale, nullptr, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(x, 2, 2, scale, nullptr, kEps, nullptr), Error::kInvalidArgument);
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  EXPECT_EQ(layer_norm(x, kHuge, kHuge, scale, nullptr, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(layer_norm(nullptr, 0, 5, nullptr, nullptr, kEps, nullptr), Error::kOk);
  EXPECT_EQ(layer_norm(nullptr, 5, 0, nullptr, nullptr, kEps, nullptr), Error::kOk);
}

// Group norm element by element: element (b, c, s) belongs to group
// c / (channels / groups); its statistics are gathered from every element
// of that (b, group).
void check_group_norm(std::int64_t n, std::int64_t channels, std::int64_t spatial,
                      std::int64_t groups, std::int64_t scale_size, float offset) {
  SCOPED_TRACE(::testing::Message() << "n " << n << " c " << channels << " spatial " << spatial
                                    << " groups " << groups << " scale " << scale_size);
  const auto count = static_cast<std::size_t>(n * channels * spatial);
  const auto x = testing::random_floats(count, 111, offset - 2.0f, offset + 2.0f);
  const auto scale = testing::random_floats(static_cast<std::size_t>(scale_size), 112, 0.5f, 2.0f);
  const auto bias = testing::random_floats(static_cast<std::size_t>(scale_size), 113);
  std::vector<float> y(count, NAN);
  ASSERT_EQ(group_norm(x.data(), n, channels, spatial, groups, scale.data(), bias.data(),
                       scale_size, kEps, y.data()),
            Error::kOk);
  const std::int64_t per_group = channels / groups;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t c = 0; c < channels; ++c) {
      const std::int64_t g = c / per_group;
      const auto [mean, var] = stats(x, per_group * spatial, [&](std::int64_t i) {
        const std::int64_t ch = g * per_group + i / spatial;
        return static_cast<std::size_t>((b * channels + ch) * spatial + i % spatial);
      });
      const auto p = static_cast<std::size_t>(scale_size == channels ? c : g);
      for (std::int64_t s = 0; s < spatial; ++s) {
        const auto i = static_cast<std::size_t>((b * channels + c) * spatial + s);
        expect_normalized(y[i], x[i], mean, var, kEps, scale[p], bias[p]);
      }
    }
  }
}

TEST(GroupNormTest, PerGroupAndPerChannelAffine) {
  check_group_norm(2, 6, 5, 3, 3, 0.0f);     // opset 18
  check_group_norm(2, 6, 5, 3, 6, 0.0f);     // opset 21
  check_group_norm(1, 8, 49, 1, 8, 100.0f);  // one group: layer norm over CHW
  check_group_norm(2, 4, 7, 4, 4, 0.0f);     // one channel per group
  check_group_norm(3, 2, 1, 2, 2, 0.0f);     // spatial 1: var 0, y = bias
}

TEST(GroupNormTest, InstanceNormIsOneGroupPerChannel) {
  const std::int64_t n = 2, channels = 3, spatial = 50;
  auto x = testing::random_floats(n * channels * spatial, 121, 9.0f, 11.0f);
  const auto scale = testing::random_floats(channels, 122, 0.5f, 2.0f);
  const auto bias = testing::random_floats(channels, 123);
  std::vector<float> want(x.size());
  ASSERT_EQ(group_norm(x.data(), n, channels, spatial, channels, scale.data(), bias.data(),
                       channels, kEps, want.data()),
            Error::kOk);
  check_group_norm(n, channels, spatial, channels, channels, 10.0f);
  // In place, and without a bias.
  ASSERT_EQ(
      instance_norm(x.data(), n, channels, spatial, scale.data(), bias.data(), kEps, x.data()),
      Error::kOk);
  EXPECT_EQ(x, want);
  // A null bias is a zero bias.
  const std::vector<float> zeros(channels, 0.0f);
  ASSERT_EQ(group_norm(x.data(), n, channels, spatial, channels, scale.data(), zeros.data(),
                       channels, kEps, want.data()),
            Error::kOk);
  std::vector<float> no_bias(x.size());
  ASSERT_EQ(
      instance_norm(x.data(), n, channels, spatial, scale.data(), nullptr, kEps, no_bias.data()),
      Error::kOk);
  EXPECT_EQ(no_bias, want);
}

TEST(GroupNormTest, RejectsBadArguments) {
  float x[12] = {};
  float y[12] = {};
  const float scale[6] = {1, 1, 1, 1, 1, 1};
  EXPECT_EQ(group_norm(x, 1, 6, 2, 4, scale, nullptr, 6, kEps, y),
            Error::kInvalidArgument);  // 6 % 4 != 0
  EXPECT_EQ(group_norm(x, 1, 6, 2, 3, scale, nullptr, 2, kEps, y),
            Error::kInvalidArgument);  // scale size neither 3 nor 6
  EXPECT_EQ(group_norm(x, 1, 6, 2, 0, scale, nullptr, 6, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(x, 1, 6, 2, -3, scale, nullptr, 6, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(x, -1, 6, 2, 3, scale, nullptr, 3, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(x, 1, 6, -2, 3, scale, nullptr, 3, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(x, 1, 6, 2, 3, scale, nullptr, 3, -kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(x, 1, 6, 2, 3, nullptr, nullptr, 3, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(nullptr, 1, 6, 2, 3, scale, nullptr, 3, kEps, y), Error::kInvalidArgument);
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  EXPECT_EQ(group_norm(x, kHuge, 6, kHuge, 3, scale, nullptr, 3, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(group_norm(nullptr, 0, 6, 2, 3, nullptr, nullptr, 3, kEps, nullptr), Error::kOk);
  EXPECT_EQ(instance_norm(nullptr, 2, 0, 5, nullptr, nullptr, kEps, nullptr), Error::kOk);
  EXPECT_EQ(instance_norm(x, 2, -1, 5, scale, nullptr, kEps, y), Error::kInvalidArgument);
  EXPECT_EQ(instance_norm(x, 2, 3, 2, nullptr, nullptr, kEps, y), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

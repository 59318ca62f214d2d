#include "glassbox/runtime/kernels/normalization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

TEST(BatchNormTest, MatchesFormula) {
  const Shape4 s{2, 5, 3, 7};
  const auto x = testing::random_floats(static_cast<std::size_t>(s.numel()), 71, -4.0f, 4.0f);
  const auto mean = testing::random_floats(5, 72);
  const auto var = testing::random_floats(5, 73, 0.1f, 3.0f);
  const auto gamma = testing::random_floats(5, 74, 0.5f, 2.0f);
  const auto beta = testing::random_floats(5, 75);
  const float eps = 1e-5f;
  std::vector<float> y(x.size());
  ASSERT_EQ(batch_norm(x.data(), s, mean.data(), var.data(), gamma.data(),
                       beta.data(), eps, y.data()),
            Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t c = (i / 21) % 5;
    const double scale = gamma[c] / std::sqrt(double{var[c]} + eps);
    const double want = (x[i] - double{mean[c]}) * scale + beta[c];
    // scale and shift are rounded once each, then one multiply-add: a few
    // ulp of the largest intermediate, |x * scale| + |shift| (<= ~40 here).
    const double mag = std::abs(x[i] * scale) + std::abs(beta[c] - mean[c] * scale);
    EXPECT_NEAR(y[i], want, 8 * testing::kUnitRoundoff * mag) << i;
  }
}

TEST(BatchNormTest, NullGammaBetaAndInPlace) {
  std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
  const float mean[] = {1.0f, 3.0f};
  const float var[] = {4.0f, 1.0f};
  ASSERT_EQ(batch_norm(x.data(), {1, 2, 1, 2}, mean, var, nullptr, nullptr,
                       0.0f, x.data()),
            Error::kOk);
  EXPECT_EQ(x, (std::vector<float>{0.0f, 0.5f, 0.0f, 1.0f}));
  EXPECT_EQ(batch_norm(x.data(), {1, 2, 1, 2}, mean, var, nullptr, nullptr,
                       -1.0f, x.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(batch_norm(x.data(), {1, 2, 1, 2}, nullptr, var, nullptr, nullptr,
                       0.0f, x.data()),
            Error::kInvalidArgument);
}

// exp(x - max) / sum, in double.
std::vector<double> reference_softmax(const std::vector<float>& x,
                                      std::vector<std::int64_t> shape,
                                      std::size_t axis) {
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= shape[i];
  for (std::size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
  const std::int64_t len = shape[axis];
  std::vector<double> y(x.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < inner; ++j) {
      auto at = [&](std::int64_t a) {
        return static_cast<std::size_t>((o * len + a) * inner + j);
      };
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t a = 0; a < len; ++a) mx = std::max(mx, double{x[at(a)]});
      double sum = 0.0;
      for (std::int64_t a = 0; a < len; ++a) sum += std::exp(x[at(a)] - mx);
      for (std::int64_t a = 0; a < len; ++a) y[at(a)] = std::exp(x[at(a)] - mx) / sum;
    }
  return y;
}

void check_softmax(std::vector<std::int64_t> shape, std::int64_t axis,
                   float scale) {
  SCOPED_TRACE(::testing::Message() << "axis " << axis << " scale " << scale);
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  auto x = testing::random_floats(static_cast<std::size_t>(n), 81, -scale, scale);
  std::vector<float> y(x.size(), NAN);
  ASSERT_EQ(softmax(x.data(), shape, axis, y.data()), Error::kOk);
  const std::size_t ax = static_cast<std::size_t>(
      axis < 0 ? axis + static_cast<std::int64_t>(shape.size()) : axis);
  const auto want = reference_softmax(x, shape, ax);
  // Each output: exp (~1 ulp) of an exactly-rounded difference, divided by
  // a float sum of len terms: relative error <= (len + 4) * u.
  const double rel = static_cast<double>(shape[ax] + 4) * testing::kUnitRoundoff;
  for (std::size_t i = 0; i < y.size(); ++i) {
    ASSERT_TRUE(std::isfinite(y[i])) << i;
    // The input difference x - max is rounded in float before exp; that is
    // |x - max| * u relative, up to 2 * scale * u.
    const double tol = (rel + 2.0 * scale * testing::kUnitRoundoff) * want[i] + 1e-30;
    ASSERT_NEAR(y[i], want[i], tol) << i;
  }
}

TEST(SoftmaxTest, AnyAxis) {
  check_softmax({7, 5, 3}, 0, 4.0f);
  check_softmax({7, 5, 3}, 1, 4.0f);
  check_softmax({7, 5, 3}, -1, 4.0f);
  check_softmax({3, 37}, 0, 4.0f);   // inner 37: two full 16-lane chunks + 5
  check_softmax({1000}, 0, 4.0f);
}

TEST(SoftmaxTest, StableForLargeInputs) {
  // exp(80) overflows float: a naive softmax returns inf/inf = NaN here.
  check_softmax({4, 50}, -1, 1000.0f);
  check_softmax({50, 4}, 0, 1000.0f);
  const float x[] = {1e30f, 1e30f, -1e30f};
  float y[3];
  const std::int64_t s[] = {3};
  ASSERT_EQ(softmax(x, s, 0, y), Error::kOk);
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 0.0f);
}

TEST(SoftmaxTest, RejectsBadAxisOrShape) {
  float buf[8] = {};
  const std::int64_t s[] = {2, 4};
  EXPECT_EQ(softmax(buf, s, 2, buf), Error::kInvalidArgument);
  EXPECT_EQ(softmax(buf, s, -3, buf), Error::kInvalidArgument);
  EXPECT_EQ(softmax(buf, {}, 0, buf), Error::kInvalidArgument);
  const std::int64_t negative[] = {2, -4};
  EXPECT_EQ(softmax(buf, negative, 0, buf), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

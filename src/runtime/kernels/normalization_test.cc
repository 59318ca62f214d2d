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
  ASSERT_EQ(
      batch_norm(x.data(), s, mean.data(), var.data(), gamma.data(), beta.data(), eps, y.data()),
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
  ASSERT_EQ(batch_norm(x.data(), {1, 2, 1, 2}, mean, var, nullptr, nullptr, 0.0f, x.data()),
            Error::kOk);
  EXPECT_EQ(x, (std::vector<float>{0.0f, 0.5f, 0.0f, 1.0f}));
  EXPECT_EQ(batch_norm(x.data(), {1, 2, 1, 2}, mean, var, nullptr, nullptr, -1.0f, x.data()),
            Error::kInvalidArgument);
  EXPECT_EQ(batch_norm(x.data(), {1, 2, 1, 2}, nullptr, var, nullptr, nullptr, 0.0f, x.data()),
            Error::kInvalidArgument);
}

// exp(x - max) / sum, in double.
std::vector<double> reference_softmax(const std::vector<float>& x, std::vector<std::int64_t> shape,
                                      std::size_t axis) {
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= shape[i];
  for (std::size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
  const std::int64_t len = shape[axis];
  std::vector<double> y(x.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < inner; ++j) {
      auto at = [&](std::int64_t a) { return static_cast<std::size_t>((o * len + a) * inner + j); };
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t a = 0; a < len; ++a) mx = std::max(mx, double{x[at(a)]});
      double sum = 0.0;
      for (std::int64_t a = 0; a < len; ++a) sum += std::exp(x[at(a)] - mx);
      for (std::int64_t a = 0; a < len; ++a) y[at(a)] = std::exp(x[at(a)] - mx) / sum;
    }
  return y;
}

void check_softmax(std::vector<std::int64_t> shape, std::int64_t axis, float scale) {
  SCOPED_TRACE(::testing::Message() << "axis " << axis << " scale " << scale);
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  auto x = testing::random_floats(static_cast<std::size_t>(n), 81, -scale, scale);
  std::vector<float> y(x.size(), NAN);
  ASSERT_EQ(softmax(x.data(), shape, axis, y.data()), Error::kOk);
  const std::size_t ax =
      static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(shape.size()) : axis);
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
  check_softmax({3, 37}, 0, 4.0f);  // inner 37: two full 16-lane chunks + 5
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

TEST(SoftmaxTest, RowsOfAnyLength) {
  // The last axis runs through a contiguous-row path with 4- and 8-wide
  // accumulators and scalar tails: lengths around those widths, and
  // attention's 197.
  for (std::int64_t len : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 197})
    check_softmax({3, len}, -1, 8.0f);
  check_softmax({2, 3, 197}, 2, 30.0f);
}

TEST(SoftmaxTest, InPlaceMatchesOutOfPlace) {
  for (std::int64_t axis : {0, 1}) {
    const std::vector<std::int64_t> shape{37, 29};
    auto x = testing::random_floats(37 * 29, 82, -6.0f, 6.0f);
    std::vector<float> y(x.size());
    ASSERT_EQ(softmax(x.data(), shape, axis, y.data()), Error::kOk);
    ASSERT_EQ(softmax(x.data(), shape, axis, x.data()), Error::kOk);
    EXPECT_EQ(x, y) << "axis " << axis;
  }
}

// Masked attention puts -inf (or -1e9) in the scores: those weights are
// exactly 0 and the rest renormalise; a NaN or +inf makes its slice NaN,
// and so does a slice of -inf only (-inf - -inf is NaN), as in PyTorch.
TEST(SoftmaxTest, MaskedAndNonFiniteInputs) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Rows of 9 (row path, axis 1) and the same values as columns (axis 0).
  const std::vector<std::vector<float>> rows = {
      {1.0f, -inf, 2.0f, -inf, 3.0f, -1e9f, 0.5f, -inf, 1.5f},
      {-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, 0.0f},
      {1.0f, 2.0f, nan, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f},
      {1.0f, 2.0f, inf, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f},
      {-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf},
  };
  const std::int64_t n = static_cast<std::int64_t>(rows.size());
  std::vector<float> as_rows, as_columns(rows.size() * 9);
  for (const auto& r : rows) as_rows.insert(as_rows.end(), r.begin(), r.end());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < 9; ++j) as_columns[j * rows.size() + i] = rows[i][j];
  std::vector<float> y_rows(as_rows.size()), y_columns(as_columns.size());
  ASSERT_EQ(softmax(as_rows.data(), std::vector<std::int64_t>{n, 9}, 1, y_rows.data()), Error::kOk);
  ASSERT_EQ(softmax(as_columns.data(), std::vector<std::int64_t>{9, n}, 0, y_columns.data()),
            Error::kOk);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < 9; ++j) {
      SCOPED_TRACE(::testing::Message() << "row " << i << " element " << j);
      const float by_row = y_rows[i * 9 + j];
      const float by_column = y_columns[j * rows.size() + i];
      if (i >= 2) {
        EXPECT_TRUE(std::isnan(by_row));
        EXPECT_TRUE(std::isnan(by_column));
        continue;
      }
      // Masked entries must come out exactly 0 (the tolerance is then 0).
      double want = 0.0;
      if (rows[i][j] > -1e9f) {
        double sum = 0.0;
        for (float v : rows[i])
          if (v > -1e9f) sum += std::exp(double{v});
        want = std::exp(double{rows[i][j]}) / sum;
      }
      EXPECT_NEAR(by_row, want, 1e-6 * want);
      EXPECT_NEAR(by_column, want, 1e-6 * want);
    }
  }
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

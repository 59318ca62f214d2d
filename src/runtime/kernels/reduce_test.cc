#include "glassbox/runtime/kernels/reduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

using Shape = std::vector<std::int64_t>;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

constexpr ReduceOp kAllOps[] = {ReduceOp::kMean, ReduceOp::kSum,       ReduceOp::kMax,
                                ReduceOp::kMin,  ReduceOp::kProd,      ReduceOp::kL1,
                                ReduceOp::kL2,   ReduceOp::kSumSquare, ReduceOp::kLogSumExp};

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

// The values that reduce into each output, gathered element by element:
// decompose every input index into coordinates and drop the reduced ones.
std::vector<std::vector<float>> gather(const std::vector<float>& x, const Shape& shape,
                                       const Shape& axes) {
  std::vector<bool> reduced(shape.size(), false);
  for (std::int64_t a : axes) reduced[static_cast<std::size_t>(a)] = true;
  std::int64_t outputs = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!reduced[d]) outputs *= shape[d];
  std::vector<std::vector<float>> slices(static_cast<std::size_t>(outputs));
  for (std::int64_t i = 0; i < numel(shape); ++i) {
    std::int64_t rest = i;
    std::vector<std::int64_t> coord(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
      coord[d] = rest % shape[d];
      rest /= shape[d];
    }
    std::int64_t out = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) out = out * shape[d] + coord[d];
    slices[static_cast<std::size_t>(out)].push_back(x[static_cast<std::size_t>(i)]);
  }
  return slices;
}

// Every op over one slice, straight from the definitions, in double (long
// double for the exps, which overflow double at 710), with the sum of
// |terms| as the scale the rounding error is measured against.
struct SliceStats {
  double sum = 0.0, abs_sum = 0.0, squares = 0.0, prod = 1.0;
  long double exps = 0.0L;
  double hi = -std::numeric_limits<double>::infinity();
  double lo = std::numeric_limits<double>::infinity();
  bool nan = false;
  double n = 0.0;
};

SliceStats stats_of(const std::vector<float>& v) {
  SliceStats s;
  for (float f : v) {
    const double d = f;
    s.sum += d;
    s.abs_sum += std::abs(d);
    s.squares += d * d;
    s.prod *= d;
    s.exps += std::exp(static_cast<long double>(f));
    s.nan = s.nan || std::isnan(d);
    s.hi = std::max(s.hi, d);
    s.lo = std::min(s.lo, d);
  }
  s.n = static_cast<double>(v.size());
  return s;
}

testing::RefValue reference(ReduceOp op, const SliceStats& s) {
  switch (op) {
    case ReduceOp::kMean: return {s.sum / s.n, s.abs_sum / s.n};
    case ReduceOp::kSum: return {s.sum, s.abs_sum};
    case ReduceOp::kMax: return {s.nan ? NAN : s.hi, 0.0};
    case ReduceOp::kMin: return {s.nan ? NAN : s.lo, 0.0};
    case ReduceOp::kProd: return {s.prod, std::abs(s.prod)};
    case ReduceOp::kL1: return {s.abs_sum, s.abs_sum};
    case ReduceOp::kL2: return {std::sqrt(s.squares), std::sqrt(s.squares)};
    case ReduceOp::kSumSquare: return {s.squares, s.squares};
    case ReduceOp::kLogSumExp: {
      const auto lse = static_cast<double>(std::log(s.exps));
      return {lse, std::abs(lse)};
    }
  }
  return {};
}

// Checks every op on (shape, axes) against the reference. The kernel keeps
// double accumulators and rounds once, so it must be within 2 float ulp of
// the exact value, plus a tiny floor, relative to the sum of |terms|, for
// the cancellation a double sum may still show (a float accumulator over
// thousands of terms misses this by orders of magnitude).
void check_reduce(const Shape& shape, const Shape& axes, const std::vector<float>& x) {
  SCOPED_TRACE(::testing::Message() << "shape rank " << shape.size() << ", " << axes.size()
                                    << " axes, first axis " << (axes.empty() ? -1 : axes[0]));
  std::vector<SliceStats> stats;
  for (const auto& slice : gather(x, shape, axes)) stats.push_back(stats_of(slice));
  for (ReduceOp op : kAllOps) {
    std::vector<float> y(stats.size(), -12345.0f);
    ASSERT_EQ(reduce(op, x.data(), shape, axes, y.data()), Error::kOk);
    for (std::size_t i = 0; i < stats.size(); ++i) {
      const testing::RefValue want = reference(op, stats[i]);
      if (std::isnan(want.value)) {
        ASSERT_TRUE(std::isnan(y[i])) << "op " << int(op) << " at " << i;
        continue;
      }
      if (std::isinf(want.value)) {  // e.g. the product of 50k values ~1000
        ASSERT_EQ(y[i], want.value) << "op " << int(op) << " at " << i;
        continue;
      }
      const double tol =
          2 * testing::kUnitRoundoff * std::abs(want.value) + 1e-12 * want.magnitude + 1e-30;
      ASSERT_NEAR(y[i], want.value, tol) << "op " << int(op) << " at " << i;
    }
  }
}

void check_reduce(const Shape& shape, const Shape& axes) {
  // [0.5, 2): products of a few dozen terms stay well inside float range.
  check_reduce(shape, axes,
               testing::random_floats(static_cast<std::size_t>(numel(shape)), 81, 0.5f, 2.0f));
  // Signed values: sums cancel, L1 differs from the sum.
  auto signed_x = testing::random_floats(static_cast<std::size_t>(numel(shape)), 82, -3.0f, 3.0f);
  check_reduce(shape, axes, signed_x);
}

TEST(ReduceTest, Int64MinAndMaxMatchANaiveLoop) {
  // x [2, 3, 4] of distinct-ish values; every axis set against a loop.
  const Shape shape = {2, 3, 4};
  std::vector<std::int64_t> x(24);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = (static_cast<std::int64_t>(i) * 7919) % 31 - 15;
  }
  for (const Shape& axes : {Shape{0}, Shape{1}, Shape{2}, Shape{0, 2}, Shape{0, 1, 2}}) {
    for (bool is_max : {false, true}) {
      bool reduced[3] = {};
      for (std::int64_t a : axes) reduced[a] = true;
      const std::int64_t out_n = (reduced[0] ? 1 : 2) * (reduced[1] ? 1 : 3) * (reduced[2] ? 1 : 4);
      std::vector<std::int64_t> want(static_cast<std::size_t>(out_n)), got(want.size());
      std::vector<bool> seen(want.size());
      for (std::int64_t i = 0; i < 2; ++i) {
        for (std::int64_t j = 0; j < 3; ++j) {
          for (std::int64_t k = 0; k < 4; ++k) {
            const std::int64_t o =
                ((reduced[0] ? 0 : i) * (reduced[1] ? 1 : 3) + (reduced[1] ? 0 : j)) *
                    (reduced[2] ? 1 : 4) +
                (reduced[2] ? 0 : k);
            const std::int64_t v = x[static_cast<std::size_t>((i * 3 + j) * 4 + k)];
            auto& w = want[static_cast<std::size_t>(o)];
            if (!seen[static_cast<std::size_t>(o)] || (is_max ? v > w : v < w)) w = v;
            seen[static_cast<std::size_t>(o)] = true;
          }
        }
      }
      ASSERT_EQ(reduce_extreme_int64(is_max, x.data(), shape, axes, got.data()), Error::kOk);
      EXPECT_EQ(got, want) << (is_max ? "max" : "min") << " over " << axes.size() << " axes";
    }
  }
  // An empty reduced axis has no int64 answer.
  std::int64_t y[2];
  EXPECT_EQ(reduce_extreme_int64(false, x.data(), Shape{2, 0}, Shape{1}, y),
            Error::kInvalidArgument);
}

TEST(ReduceTest, InnermostAxes) {
  check_reduce({2, 3, 4}, {2});
  check_reduce({2, 3, 4}, {1, 2});
  check_reduce({3, 37}, {1});  // not a multiple of the row lanes
}

TEST(ReduceTest, OuterAndMiddleAxes) {
  check_reduce({2, 3, 4}, {0});
  check_reduce({2, 3, 4}, {1});
  check_reduce({5, 3, 4}, {0, 1});
  check_reduce({2, 7, 7, 130}, {1, 2});  // NHWC spatial mean, 3 blocks wide
}

TEST(ReduceTest, InterleavedAxesInAnyOrder) {
  check_reduce({2, 3, 4}, {2, 0});
  check_reduce({2, 3, 2, 3, 2, 3}, {0, 3, 5});
  check_reduce({2, 3, 2, 3, 2, 3}, {4, 2, 1});
}

TEST(ReduceTest, AllAxesAndSizeOneDims) {
  check_reduce({2, 3, 4}, {0, 1, 2});
  check_reduce({4, 1, 5, 1, 3}, {1, 3});  // reduces only size-1 dims
  check_reduce({4, 1, 5, 1, 3}, {0, 1, 4});
  check_reduce({1, 1}, {0, 1});
  check_reduce({}, {});  // a scalar
}

TEST(ReduceTest, EmptyAxesReduceOverNothing) {
  // ONNX noop_with_empty_axes: y = x, but the composite ops keep their
  // element steps: |x| for L1 / L2, x^2 for SumSquare.
  check_reduce({2, 3, 4}, {});
  const std::vector<float> x = {-2.0f, 0.5f, 3.0f};
  std::vector<float> y(3);
  ASSERT_EQ(reduce(ReduceOp::kSum, x.data(), Shape{3}, {}, y.data()), Error::kOk);
  EXPECT_EQ(y, x);
  ASSERT_EQ(reduce(ReduceOp::kSumSquare, x.data(), Shape{3}, {}, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{4.0f, 0.25f, 9.0f}));
  ASSERT_EQ(reduce(ReduceOp::kL1, x.data(), Shape{3}, {}, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{2.0f, 0.5f, 3.0f}));
}

// A mean of 50k values near 1000: a float accumulator is off by far more
// than the 2-ulp bound here, whichever loop shape runs.
TEST(ReduceTest, LongMeansStayAccurate) {
  constexpr std::int64_t kLong = 50000;
  auto x = testing::random_floats(kLong * 3, 83, 999.0f, 1001.0f);
  check_reduce({1, kLong * 3}, {1}, x);     // one contiguous row
  check_reduce({kLong, 3}, {0}, x);         // column blocks
  check_reduce({3, kLong / 2, 2}, {1}, x);  // middle axis
  check_reduce({4, 768}, {1}, std::vector<float>(x.begin(), x.begin() + 4 * 768));
}

TEST(ReduceTest, ZeroSizedAxisGivesIdentity) {
  std::vector<float> y(6, 7.0f);
  const float want[] = {NAN, 0.0f, -kInf, kInf, 1.0f, 0.0f, 0.0f, 0.0f, -kInf};
  for (std::size_t k = 0; k < std::size(kAllOps); ++k) {
    ASSERT_EQ(reduce(kAllOps[k], nullptr, Shape{2, 0, 3}, Shape{1}, y.data()), Error::kOk);
    for (float v : y) {
      if (std::isnan(want[k]))
        EXPECT_TRUE(std::isnan(v));
      else
        EXPECT_EQ(v, want[k]) << "op " << k;
    }
  }
  // A zero-sized kept dim: no output, so no pointer is needed.
  EXPECT_EQ(reduce(ReduceOp::kSum, nullptr, Shape{2, 0, 3}, Shape{0, 2}, nullptr), Error::kOk);
}

TEST(ReduceTest, NanAndInfinities) {
  // Each NaN sits at a different lane position of an 11-wide row / column.
  std::vector<float> x = testing::random_floats(33, 84);
  x[3] = kNaN;        // row 0
  x[11 + 10] = kNaN;  // row 1, the scalar tail
  for (const auto& [shape, axes] :
       {std::pair{Shape{3, 11}, Shape{1}}, std::pair{Shape{11, 3}, Shape{0}}}) {
    for (ReduceOp op : kAllOps) {
      std::vector<float> y(3);
      ASSERT_EQ(reduce(op, x.data(), shape, axes, y.data()), Error::kOk);
      const auto slices = gather(x, shape, axes);
      for (std::size_t i = 0; i < 3; ++i) {
        const bool has_nan =
            std::any_of(slices[i].begin(), slices[i].end(), [](float v) { return std::isnan(v); });
        EXPECT_EQ(std::isnan(y[i]), has_nan) << "op " << int(op) << " " << i;
      }
    }
  }

  // log-sum-exp subtracts the max: no overflow, and exact infinities.
  const std::vector<float> big = {1000.0f, 1000.0f, -kInf, -kInf, kInf, 1.0f, 5.0f, -kInf};
  std::vector<float> y(4);
  ASSERT_EQ(reduce(ReduceOp::kLogSumExp, big.data(), Shape{4, 2}, Shape{1}, y.data()), Error::kOk);
  EXPECT_NEAR(y[0], 1000.0 + std::log(2.0), 1e-4);
  EXPECT_EQ(y[1], -kInf);
  EXPECT_EQ(y[2], kInf);
  EXPECT_EQ(y[3], 5.0f);
  // The same slices as columns: every column needs its own shift.
  const std::vector<float> columns = {1000.0f, -kInf, kInf, 5.0f, 1000.0f, -kInf, 1.0f, -kInf};
  ASSERT_EQ(reduce(ReduceOp::kLogSumExp, columns.data(), Shape{2, 4}, Shape{0}, y.data()),
            Error::kOk);
  EXPECT_NEAR(y[0], 1000.0 + std::log(2.0), 1e-4);
  EXPECT_EQ(y[1], -kInf);
  EXPECT_EQ(y[2], kInf);
  EXPECT_EQ(y[3], 5.0f);
  ASSERT_EQ(reduce(ReduceOp::kMax, big.data(), Shape{4, 2}, Shape{1}, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{1000.0f, -kInf, kInf, 5.0f}));
}

TEST(ReduceTest, RejectsBadArguments) {
  float x[4] = {};
  float y[4] = {};
  const Shape shape = {2, 2};
  EXPECT_EQ(reduce(ReduceOp::kSum, x, shape, Shape{2}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, shape, Shape{-1}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, shape, Shape{1, 1}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, shape, Shape{0, 1, 0}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(static_cast<ReduceOp>(99), x, shape, Shape{0}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, nullptr, shape, Shape{0}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, shape, Shape{0}, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, Shape{2, -2}, Shape{0}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, Shape{1, 1, 1, 1, 1, 1, 1}, Shape{0}, y),
            Error::kInvalidArgument);
  // Each product fits in int64, the element count does not.
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  EXPECT_EQ(reduce(ReduceOp::kSum, x, Shape{kHuge, kHuge}, Shape{0}, y), Error::kInvalidArgument);
  EXPECT_EQ(reduce(ReduceOp::kSum, x, Shape{kHuge, kHuge, 0}, Shape{2}, y),
            Error::kInvalidArgument);
}

// numpy's rule, written as its own search: the first (last) NaN if there
// is one, else the first (last) index holding the max (min).
std::int64_t reference_arg(const std::vector<float>& v, bool is_max, bool last) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) order[i] = last ? v.size() - 1 - i : i;
  for (std::size_t i : order)
    if (std::isnan(v[i])) return static_cast<std::int64_t>(i);
  const float best =
      is_max ? *std::max_element(v.begin(), v.end()) : *std::min_element(v.begin(), v.end());
  for (std::size_t i : order)
    if (v[i] == best) return static_cast<std::int64_t>(i);
  return -1;
}

void check_arg(const Shape& shape, std::int64_t axis, const std::vector<float>& x) {
  SCOPED_TRACE(::testing::Message() << "rank " << shape.size() << " axis " << axis);
  const auto slices = gather(x, shape, {axis});
  for (bool is_max : {true, false}) {
    for (bool last : {false, true}) {
      std::vector<std::int64_t> y(slices.size(), -7);
      ASSERT_EQ(arg_reduce(is_max, x.data(), shape, axis, last, y.data()), Error::kOk);
      for (std::size_t i = 0; i < slices.size(); ++i)
        ASSERT_EQ(y[i], reference_arg(slices[i], is_max, last))
            << "max " << is_max << " last " << last << " at " << i;
    }
  }
}

// Values from {0, 1, 2, 3} so that ties are common; with_nan turns about
// one value in six into NaN, so many slices hold several NaNs.
std::vector<float> tie_heavy(std::int64_t n, std::uint32_t seed, bool with_nan) {
  auto v = testing::random_floats(static_cast<std::size_t>(n), seed, 0.0f, 4.0f);
  for (float& f : v) f = with_nan && f < 0.7f ? kNaN : std::floor(f);
  return v;
}

TEST(ArgReduceTest, MatchesNumpyOnTiesAndNans) {
  for (bool with_nan : {false, true}) {
    check_arg({5}, 0, tie_heavy(5, 91, with_nan));
    for (std::int64_t axis = 0; axis < 3; ++axis)
      check_arg({3, 4, 5}, axis, tie_heavy(60, 92, with_nan));
    check_arg({2, 9, 130}, 1, tie_heavy(2 * 9 * 130, 93, with_nan));
    check_arg({2, 3, 4, 1, 2, 3}, 3, tie_heavy(144, 94, with_nan));
    check_arg({2, 3, 4, 1, 2, 3}, 5, tie_heavy(144, 95, with_nan));
  }
  // -0.0 and +0.0 tie.
  const float zeros[] = {-0.0f, 0.0f};
  std::int64_t index = -1;
  ASSERT_EQ(arg_reduce(true, zeros, Shape{2}, 0, true, &index), Error::kOk);
  EXPECT_EQ(index, 1);
}

TEST(ArgReduceTest, RejectsBadArguments) {
  float x[4] = {};
  std::int64_t y[4] = {};
  EXPECT_EQ(arg_reduce(true, x, Shape{2, 2}, 2, false, y), Error::kInvalidArgument);
  EXPECT_EQ(arg_reduce(true, x, Shape{2, 2}, -1, false, y), Error::kInvalidArgument);
  EXPECT_EQ(arg_reduce(true, x, Shape{}, 0, false, y), Error::kInvalidArgument);
  EXPECT_EQ(arg_reduce(true, x, Shape{2, 0}, 1, false, y),
            Error::kInvalidArgument);  // no index to return
  EXPECT_EQ(arg_reduce(true, nullptr, Shape{2, 0}, 0, false, nullptr),
            Error::kOk);  // zero outputs
  EXPECT_EQ(arg_reduce(true, nullptr, Shape{2, 2}, 0, false, y), Error::kInvalidArgument);
  EXPECT_EQ(arg_reduce(false, x, Shape{2, 2}, 0, false, nullptr), Error::kInvalidArgument);
  EXPECT_EQ(arg_reduce(true, x, Shape{-2, 2}, 0, false, y), Error::kInvalidArgument);
  constexpr std::int64_t kHuge = std::int64_t{1} << 40;
  EXPECT_EQ(arg_reduce(true, x, Shape{kHuge, kHuge}, 0, false, y), Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

#include "glassbox/runtime/kernels/elementwise.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "glassbox/runtime/kernels/shape.h"
#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::runtime::kernels {
namespace {

constexpr std::int64_t kN = 1000;  // not a multiple of any vector width

// Inputs over [-8, 8): covers both saturation regions of the activations.
std::vector<float> inputs() { return testing::random_floats(kN, 7, -8.0f, 8.0f); }

// Transcendentals vs a double reference: libm float functions are within
// 1-2 ulp, and sigmoid adds a division and an addition: 8 ulp covers it.
constexpr double kUlps = 8 * testing::kUnitRoundoff;

template <typename Ref>
void expect_close(const std::vector<float>& x, const std::vector<float>& y, Ref ref) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = ref(static_cast<double>(x[i]));
    ASSERT_NEAR(y[i], want, kUlps * std::abs(want) + 1e-30) << "x = " << x[i];
  }
}

TEST(UnaryTest, ExactOpsMatchDefinition) {
  const auto x = inputs();
  std::vector<float> y(kN);
  ASSERT_EQ(relu(x.data(), y.data(), kN), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] < 0 ? 0.0f : x[i]);
  ASSERT_EQ(clamp(x.data(), y.data(), kN, -1.5f, 2.0f), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], std::min(std::max(x[i], -1.5f), 2.0f));
  ASSERT_EQ(hardsigmoid(x.data(), y.data(), kN, 0.2f, 0.5f), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], std::min(std::max(0.2f * x[i] + 0.5f, 0.0f), 1.0f));
  ASSERT_EQ(hardswish(x.data(), y.data(), kN), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], x[i] * std::min(std::max(x[i] + 3.0f, 0.0f), 6.0f) / 6.0f);
}

TEST(UnaryTest, TranscendentalsMatchDoubleReference) {
  const auto x = inputs();
  std::vector<float> y(kN);
  ASSERT_EQ(sigmoid(x.data(), y.data(), kN), Error::kOk);
  expect_close(x, y, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  // tan: keep inputs away from the poles, where float input rounding alone
  // moves the result by more than any ulp bound.
  const auto t = testing::random_floats(kN, 8, -1.4f, 1.4f);
  ASSERT_EQ(kernels::tan(t.data(), y.data(), kN), Error::kOk);
  expect_close(t, y, [](double v) { return std::tan(v); });
  ASSERT_EQ(kernels::sin(x.data(), y.data(), kN), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(y[i], std::sin(double{x[i]}), 2e-7);  // |sin| <= 1: abs bound
  ASSERT_EQ(kernels::cos(x.data(), y.data(), kN), Error::kOk);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y[i], std::cos(double{x[i]}), 2e-7);
}

TEST(UnaryTest, SigmoidSaturatesWithoutOverflow) {
  const float x[] = {-1000.0f, -100.0f, 0.0f, 100.0f, 1000.0f};
  float y[5];
  ASSERT_EQ(sigmoid(x, y, 5), Error::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_GE(y[1], 0.0f);
  EXPECT_LT(y[1], 1e-40f);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 1.0f);
  EXPECT_EQ(y[4], 1.0f);
}

TEST(UnaryTest, NanPropagatesAndInPlaceWorks) {
  float v[] = {std::numeric_limits<float>::quiet_NaN(), -2.0f, 3.0f};
  ASSERT_EQ(relu(v, v, 3), Error::kOk);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], 3.0f);
  ASSERT_EQ(clamp(v, v, 3, 0.0f, 1.0f), Error::kOk);
  EXPECT_TRUE(std::isnan(v[0]));
}

TEST(UnaryTest, RejectsBadArguments) {
  float v[2] = {};
  EXPECT_EQ(relu(nullptr, v, 2), Error::kInvalidArgument);
  EXPECT_EQ(relu(v, v, -1), Error::kInvalidArgument);
  EXPECT_EQ(clamp(v, v, 2, 1.0f, 0.0f), Error::kInvalidArgument);
  EXPECT_EQ(relu(nullptr, nullptr, 0), Error::kOk);
}

// out[idx] = a[idx broadcast] op b[idx broadcast], computed index by index.
float reference_at(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::kAdd: return x + y;
    case BinaryOp::kSub: return x - y;
    case BinaryOp::kMul: return x * y;
    case BinaryOp::kDiv: return x / y;
  }
  return 0.0f;
}

std::int64_t broadcast_offset(const Dims& out, std::int64_t linear,
                              Span<const std::int64_t> shape) {
  std::int64_t offset = 0;
  std::int64_t stride = 1;
  for (std::size_t back = 0; back < shape.size(); ++back) {
    const std::size_t od = out.rank - 1 - back;
    std::int64_t coord = linear;
    for (std::size_t d = out.rank - 1; d > od; --d) coord /= out.sizes[d];
    coord %= out.sizes[od];
    const std::int64_t size = shape[shape.size() - 1 - back];
    if (size != 1) offset += coord * stride;
    stride *= size;
  }
  return offset;
}

void check_binary(std::vector<std::int64_t> as, std::vector<std::int64_t> bs,
                  std::vector<std::int64_t> want) {
  SCOPED_TRACE(::testing::Message() << "ranks " << as.size() << "," << bs.size());
  Result<Dims> out = broadcast_shapes(as, bs);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(*out, *make_dims(want));
  const auto a = testing::random_floats(static_cast<std::size_t>(*checked_numel(as)), 51);
  // b away from 0 so division is well defined.
  const auto b =
      testing::random_floats(static_cast<std::size_t>(*checked_numel(bs)), 52, 0.5f, 2.0f);
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv}) {
    std::vector<float> c(static_cast<std::size_t>(out->numel()), NAN);
    ASSERT_EQ(binary(op, a.data(), as, b.data(), bs, c.data()), Error::kOk);
    for (std::int64_t i = 0; i < out->numel(); ++i) {
      // Same single IEEE operation on the same operands: bit-exact.
      ASSERT_EQ(c[static_cast<std::size_t>(i)],
                reference_at(op, a[static_cast<std::size_t>(broadcast_offset(*out, i, as))],
                             b[static_cast<std::size_t>(broadcast_offset(*out, i, bs))]))
          << "op " << static_cast<int>(op) << " at " << i;
    }
  }
}

TEST(BinaryTest, BroadcastsLikeNumpy) {
  check_binary({2, 3, 1}, {1, 4}, {2, 3, 4});
  check_binary({2, 3, 4}, {2, 3, 4}, {2, 3, 4});
  check_binary({2, 8, 5, 7}, {1, 8, 1, 1}, {2, 8, 5, 7});
  check_binary({5}, {3, 1}, {3, 5});
  check_binary({}, {2, 3}, {2, 3});
  check_binary({1, 2, 1, 3, 1, 2}, {2, 1, 2, 1, 2, 1}, {2, 2, 2, 3, 2, 2});
  check_binary({3, 1, 1}, {1, 1, 1}, {3, 1, 1});
  check_binary({0, 3}, {1, 3}, {0, 3});
}

// The walk of x (op) y for y broadcast into x's shape: its sizes, and
// which of its dims y is broadcast along (b stride 0).
struct Walk {
  std::vector<std::int64_t> size;
  std::vector<bool> y_broadcast;
};

Walk walk_of(const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y) {
  const Result<Dims> out = broadcast_shapes(x, y);
  EXPECT_TRUE(out.ok());
  if (!out.ok()) return {};
  const BroadcastWalk w = broadcast_walk(*out, x, y);
  Walk walk;
  for (std::size_t i = 0; i < w.rank; ++i) {
    walk.size.push_back(w.size[i]);
    walk.y_broadcast.push_back(w.b_stride[i] == 0);
  }
  return walk;
}

using Sizes = std::vector<std::int64_t>;
using Flags = std::vector<bool>;

// swin_t's window mask: a broadcast along a middle dim walks three dims.
TEST(BroadcastWalkTest, MiddleBroadcastBecomesThreeDims) {
  const Walk w = walk_of({1, 64, 3, 49, 49}, {1, 64, 1, 49, 49});
  EXPECT_EQ(w.size, (Sizes{64, 3, 2401}));
  EXPECT_EQ(w.y_broadcast, (Flags{false, true, false}));
}

TEST(BroadcastWalkTest, DimsOfOneOnBothSidesAreDropped) {
  const Walk w = walk_of({4, 1, 5}, {1, 1, 5});
  EXPECT_EQ(w.size, (Sizes{4, 5}));
  EXPECT_EQ(w.y_broadcast, (Flags{true, false}));
}

TEST(BroadcastWalkTest, NeighboursOfOneKindMerge) {
  const Walk scalar = walk_of({2, 3, 4}, {1, 1, 1});
  EXPECT_EQ(scalar.size, (Sizes{24}));
  EXPECT_EQ(scalar.y_broadcast, (Flags{true}));
  const Walk same = walk_of({2, 3}, {2, 3});
  EXPECT_EQ(same.size, (Sizes{6}));
  EXPECT_EQ(same.y_broadcast, (Flags{false}));
  const Walk alternating = walk_of({2, 3, 4, 5}, {2, 1, 4, 1});
  EXPECT_EQ(alternating.size, (Sizes{2, 3, 4, 5}));
  EXPECT_EQ(alternating.y_broadcast, (Flags{false, true, false, true}));
}

TEST(BroadcastWalkTest, AllOnesIsOneDim) {
  const Walk w = walk_of({1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(w.size, (Sizes{1}));
  EXPECT_EQ(w.y_broadcast, (Flags{true}));
}

TEST(BinaryTest, NamedOpsDelegate) {
  const std::int64_t s[] = {3};
  const float a[] = {1.0f, 2.0f, 3.0f};
  const float b[] = {2.0f, 4.0f, 0.0f};
  float c[3];
  ASSERT_EQ(div(a, s, b, s, c), Error::kOk);
  EXPECT_EQ(c[0], 0.5f);
  EXPECT_EQ(c[2], std::numeric_limits<float>::infinity());
  ASSERT_EQ(sub(a, s, b, s, c), Error::kOk);
  EXPECT_EQ(c[1], -2.0f);
  ASSERT_EQ(mul(a, s, b, s, c), Error::kOk);
  EXPECT_EQ(c[1], 8.0f);
  ASSERT_EQ(add(a, s, b, s, c), Error::kOk);
  EXPECT_EQ(c[1], 6.0f);
}

TEST(BinaryTest, RejectsMismatchedShapes) {
  const std::int64_t a[] = {2, 3};
  const std::int64_t b[] = {4, 3};
  const std::int64_t too_deep[] = {1, 1, 1, 1, 1, 1, 1};
  float buf[16] = {};
  EXPECT_EQ(add(buf, a, buf, b, buf), Error::kInvalidArgument);
  EXPECT_EQ(add(buf, too_deep, buf, a, buf), Error::kInvalidArgument);
  EXPECT_EQ(add(nullptr, a, buf, a, buf), Error::kInvalidArgument);
  EXPECT_FALSE(broadcast_shapes(a, b).ok());
}

}  // namespace
}  // namespace glassbox::runtime::kernels

#include "glassbox/runtime/kernels/cumsum.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace glassbox::runtime::kernels {
namespace {

using Shape = std::vector<std::int64_t>;

// The naive reference: for every element, its coordinates, then the sum
// over the axis' coordinates the modes keep, in the order ONNX's reference
// adds them.
template <typename T>
std::vector<T> reference(const std::vector<T>& x, const Shape& shape, std::size_t axis,
                         bool exclusive, bool reverse) {
  std::vector<T> y(x.size());
  std::int64_t stride = 1;
  for (std::size_t d = axis + 1; d < shape.size(); ++d) stride *= shape[d];
  const std::int64_t length = shape[axis];
  for (std::size_t e = 0; e < x.size(); ++e) {
    const std::int64_t i = (static_cast<std::int64_t>(e) / stride) % length;
    const std::int64_t first = static_cast<std::int64_t>(e) - i * stride;
    T sum = 0;
    if (!reverse) {
      for (std::int64_t j = 0; j < (exclusive ? i : i + 1); ++j) sum += x[first + j * stride];
    } else {
      for (std::int64_t j = length - 1; j >= (exclusive ? i + 1 : i); --j) {
        sum += x[first + j * stride];
      }
    }
    y[e] = sum;
  }
  return y;
}

TEST(CumsumTest, MatchesTheReferenceOnEveryAxisAndMode) {
  const Shape shape = {2, 3, 4};
  std::vector<float> x(24);
  std::vector<std::int64_t> xi(24);
  for (std::size_t e = 0; e < x.size(); ++e) {
    x[e] = 0.25f * static_cast<float>(e) - 2.5f;
    xi[e] = static_cast<std::int64_t>(e * 7 % 11) - 5;
  }
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        SCOPED_TRACE(::testing::Message()
                     << "axis " << axis << " exclusive " << exclusive << " reverse " << reverse);
        std::vector<float> y(x.size());
        ASSERT_EQ(
            cumsum(x.data(), shape, static_cast<std::int64_t>(axis), exclusive, reverse, y.data()),
            Error::kOk);
        EXPECT_EQ(y, reference(x, shape, axis, exclusive, reverse));
        std::vector<std::int64_t> yi(xi.size());
        ASSERT_EQ(cumsum(xi.data(), shape, static_cast<std::int64_t>(axis), exclusive, reverse,
                         yi.data()),
                  Error::kOk);
        EXPECT_EQ(yi, reference(xi, shape, axis, exclusive, reverse));
      }
    }
  }
}

TEST(CumsumTest, OneDimensionalModes) {
  const Shape shape = {5};
  const std::vector<float> x = {1, 2, 3, 4, 5};
  std::vector<float> y(5);
  ASSERT_EQ(cumsum(x.data(), shape, 0, false, false, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{1, 3, 6, 10, 15}));
  ASSERT_EQ(cumsum(x.data(), shape, 0, true, false, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{0, 1, 3, 6, 10}));
  ASSERT_EQ(cumsum(x.data(), shape, 0, false, true, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{15, 14, 12, 9, 5}));
  ASSERT_EQ(cumsum(x.data(), shape, 0, true, true, y.data()), Error::kOk);
  EXPECT_EQ(y, (std::vector<float>{14, 12, 9, 5, 0}));
}

TEST(CumsumTest, InPlace) {
  const Shape shape = {2, 2};
  std::vector<float> x = {1, 2, 3, 4};
  ASSERT_EQ(cumsum(x.data(), shape, 1, false, true, x.data()), Error::kOk);
  EXPECT_EQ(x, (std::vector<float>{3, 2, 7, 4}));
}

TEST(CumsumTest, RejectsBadAxisAndRank) {
  const std::vector<float> x = {1, 2};
  std::vector<float> y(2);
  EXPECT_EQ(cumsum(x.data(), Shape{2}, 1, false, false, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(cumsum(x.data(), Shape{2}, -1, false, false, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(cumsum(x.data(), Shape{}, 0, false, false, y.data()), Error::kInvalidArgument);
  EXPECT_EQ(cumsum(static_cast<const float*>(nullptr), Shape{2}, 0, false, false, y.data()),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::runtime::kernels

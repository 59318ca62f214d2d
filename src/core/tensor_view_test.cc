#include "glassbox/core/tensor_view.h"

#include <gtest/gtest.h>

namespace glassbox {
namespace {

TEST(TensorViewTest, CountsElementsAndBytes) {
  const std::int64_t sizes[] = {2, 3, 4};
  float data[24] = {};
  TensorView t{ScalarType::kFloat, sizes, {}, data};
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 96u);
  EXPECT_TRUE(t.is_contiguous());
}

TEST(TensorViewTest, ZeroDimIsOneElement) {
  double v = 1.5;
  TensorView t{ScalarType::kDouble, {}, {}, &v};
  EXPECT_EQ(t.numel(), 1);
  EXPECT_EQ(t.nbytes(), 8u);
}

TEST(TensorViewTest, DetectsNonContiguousStrides) {
  const std::int64_t sizes[] = {2, 3};
  const std::int64_t row_major[] = {3, 1};
  const std::int64_t transposed[] = {1, 2};
  EXPECT_TRUE((TensorView{ScalarType::kInt, sizes, row_major, nullptr}.is_contiguous()));
  EXPECT_FALSE((TensorView{ScalarType::kInt, sizes, transposed, nullptr}.is_contiguous()));
}

TEST(ScalarTypeTest, SizesMatchTheSchema) {
  EXPECT_EQ(element_size(ScalarType::kHalf), 2u);
  EXPECT_EQ(element_size(ScalarType::kLong), 8u);
  EXPECT_EQ(element_size(static_cast<ScalarType>(9)), 0u);
  EXPECT_EQ(to_string(ScalarType::kBFloat16), "BFLOAT16");
  EXPECT_EQ(static_cast<int>(ScalarType::kUInt64), 29);
}

}  // namespace
}  // namespace glassbox

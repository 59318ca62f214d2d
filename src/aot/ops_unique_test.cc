// The unique shape rule (ops_unique.cc): four outputs, y, indices and
// counts dynamic with every element (or slice) distinct as their bound,
// inverse_indices static.

#include <gtest/gtest.h>

#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

using Shape = std::vector<std::int64_t>;

StatusOr<std::vector<TensorType>> infer(ScalarType dtype, AttributeMap attrs) {
  return infer_output_types(op::kUnique, std::vector<TensorType>{{dtype, Shape{2, 3, 4}}}, attrs);
}

TEST(OpsUniqueTest, BoundsFlattenedAndAlongAnAxis) {
  StatusOr<std::vector<TensorType>> flat = infer(ScalarType::kLong, {{"sorted", std::int64_t{1}}});
  ASSERT_TRUE(flat.ok()) << flat.message();
  EXPECT_EQ(*flat, (std::vector<TensorType>{{ScalarType::kLong, Shape{24}, true},
                                            {ScalarType::kLong, Shape{24}, true},
                                            {ScalarType::kLong, Shape{24}, false},
                                            {ScalarType::kLong, Shape{24}, true}}));
  StatusOr<std::vector<TensorType>> along =
      infer(ScalarType::kFloat, {{"sorted", std::int64_t{0}}, {"axis", std::int64_t{-2}}});
  ASSERT_TRUE(along.ok()) << along.message();
  EXPECT_EQ(*along, (std::vector<TensorType>{{ScalarType::kFloat, Shape{2, 3, 4}, true},
                                             {ScalarType::kLong, Shape{3}, true},
                                             {ScalarType::kLong, Shape{3}, false},
                                             {ScalarType::kLong, Shape{3}, true}}));
}

TEST(OpsUniqueTest, RefusesOtherDtypesAxesAndFlags) {
  EXPECT_FALSE(infer(ScalarType::kInt, {}).ok());
  StatusOr<std::vector<TensorType>> axis = infer(ScalarType::kFloat, {{"axis", std::int64_t{3}}});
  ASSERT_FALSE(axis.ok());
  EXPECT_NE(axis.message().find("unique axis"), std::string::npos) << axis.message();
  EXPECT_FALSE(infer(ScalarType::kFloat, {{"sorted", std::int64_t{2}}}).ok());
}

}  // namespace
}  // namespace glassbox::aot

// The cumsum shape rule (ops_extended.cc): x's type, float or int64, an
// axis in range and 0/1 modes.

#include <gtest/gtest.h>

#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

using Shape = std::vector<std::int64_t>;

StatusOr<std::vector<TensorType>> infer(ScalarType dtype, AttributeMap attrs) {
  return infer_output_types(op::kCumsum, std::vector<TensorType>{{dtype, Shape{2, 3}}}, attrs);
}

TEST(OpsCumsumTest, KeepsTheInputTypeForFloatAndLong) {
  for (ScalarType dtype : {ScalarType::kFloat, ScalarType::kLong}) {
    StatusOr<std::vector<TensorType>> t =
        infer(dtype, {{"axis", std::int64_t{-1}}, {"reverse", std::int64_t{1}}});
    ASSERT_TRUE(t.ok()) << t.message();
    ASSERT_EQ(t->size(), 1u);
    EXPECT_EQ((*t)[0], (TensorType{dtype, Shape{2, 3}}));
  }
}

TEST(OpsCumsumTest, RefusesOtherDtypesAxesAndModes) {
  const struct {
    ScalarType dtype;
    AttributeMap attrs;
    const char* fragment;
  } cases[] = {
      {ScalarType::kInt, {{"axis", std::int64_t{0}}}, "expected FLOAT or LONG"},
      {ScalarType::kFloat, {{"axis", std::int64_t{2}}}, "cumsum axis"},
      {ScalarType::kFloat, {}, "axis"},
      {ScalarType::kFloat,
       {{"axis", std::int64_t{0}}, {"exclusive", std::int64_t{2}}},
       "exclusive"},
  };
  for (const auto& c : cases) {
    StatusOr<std::vector<TensorType>> t = infer(c.dtype, c.attrs);
    ASSERT_FALSE(t.ok()) << c.fragment;
    EXPECT_NE(t.message().find(c.fragment), std::string::npos) << t.message();
  }
}

}  // namespace
}  // namespace glassbox::aot

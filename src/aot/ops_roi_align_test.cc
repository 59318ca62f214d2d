// The roi_align shape rule (ops_roi_align.cc): [R, C, oh, ow] float from
// float x and rois and int64 batch indices, attributes in range.

#include <gtest/gtest.h>

#include <vector>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

using Shape = std::vector<std::int64_t>;

AttributeMap attributes() {
  return {{"output_height", std::int64_t{3}},
          {"output_width", std::int64_t{2}},
          {"sampling_ratio", std::int64_t{0}},
          {"spatial_scale", 0.25},
          {"mode", std::string("avg")},
          {"coordinate_transformation_mode", std::string("half_pixel")}};
}

std::vector<TensorType> inputs() {
  return {{ScalarType::kFloat, Shape{2, 5, 8, 8}},
          {ScalarType::kFloat, Shape{7, 4}},
          {ScalarType::kLong, Shape{7}}};
}

TEST(OpsRoiAlignTest, GivesRoisByChannelsByTheOutputGrid) {
  StatusOr<std::vector<TensorType>> t = infer_output_types(op::kRoiAlign, inputs(), attributes());
  ASSERT_TRUE(t.ok()) << t.message();
  ASSERT_EQ(t->size(), 1u);
  EXPECT_EQ((*t)[0], (TensorType{ScalarType::kFloat, Shape{7, 5, 3, 2}}));
}

TEST(OpsRoiAlignTest, RefusesWrongDtypesShapesAndAttributes) {
  struct Case {
    std::vector<TensorType> in;
    AttributeMap attrs;
    const char* fragment;
  };
  std::vector<Case> cases;
  auto in = inputs();
  in[2].dtype = ScalarType::kFloat;
  cases.push_back({in, attributes(), "input 2 has dtype FLOAT"});
  in = inputs();
  in[1].shape = {6, 4};
  cases.push_back({in, attributes(), "roi_align rois must have shape [7, 4]"});
  in = inputs();
  in[0].shape = {2, 5, 8};
  cases.push_back({in, attributes(), "roi_align input must have rank 4"});
  auto attrs = attributes();
  attrs["output_width"] = std::int64_t{0};
  cases.push_back({inputs(), attrs, "output_width must be >= 1"});
  attrs = attributes();
  attrs["mode"] = std::string("sum");
  cases.push_back({inputs(), attrs, "mode must be"});
  attrs = attributes();
  attrs["coordinate_transformation_mode"] = std::string("asymmetric");
  cases.push_back({inputs(), attrs, "coordinate_transformation_mode must be"});
  attrs = attributes();
  attrs.erase("sampling_ratio");
  cases.push_back({inputs(), attrs, "sampling_ratio"});
  for (const Case& c : cases) {
    StatusOr<std::vector<TensorType>> t = infer_output_types(op::kRoiAlign, c.in, c.attrs);
    ASSERT_FALSE(t.ok()) << c.fragment;
    EXPECT_NE(t.message().find(c.fragment), std::string::npos) << t.message();
  }
}

}  // namespace
}  // namespace glassbox::aot

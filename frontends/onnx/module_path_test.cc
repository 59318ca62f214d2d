#include "frontends/onnx/module_path.h"

#include <gtest/gtest.h>

namespace glassbox::frontends::onnx {
namespace {

std::vector<std::string> paths(std::string_view name) {
  std::vector<std::string> out;
  for (const aot::ModuleFrame& f : module_hierarchy_of(name)) {
    EXPECT_EQ(f.type, "");  // ONNX does not record module classes.
    out.push_back(f.path);
  }
  return out;
}

TEST(ModulePathTest, FollowsPyTorchScopes) {
  EXPECT_EQ(paths("/layer1/layer1.0/conv1/Conv"),
            (std::vector<std::string>{"layer1", "layer1.0", "layer1.0.conv1"}));
  EXPECT_EQ(paths("/features/features.0/features.0.0/Conv"),
            (std::vector<std::string>{"features", "features.0", "features.0.0"}));
  EXPECT_EQ(paths("/fc/Gemm"), (std::vector<std::string>{"fc"}));
  // An attribute of a container that is not prefixed by its parent.
  EXPECT_EQ(paths("/block/conv/Conv"), (std::vector<std::string>{"block", "block.conv"}));
}

TEST(ModulePathTest, TopLevelAndForeignNamesHaveNoFrames) {
  EXPECT_TRUE(paths("/Flatten").empty());
  EXPECT_TRUE(paths("Conv_0").empty());
  EXPECT_TRUE(paths("").empty());
  EXPECT_EQ(paths("//a//Relu"), (std::vector<std::string>{"a"}));
}

}  // namespace
}  // namespace glassbox::frontends::onnx

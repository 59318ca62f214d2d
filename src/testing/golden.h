#pragma once
// Test-only: golden files. expect_golden() compares text with the file at
// `path`; with GLASSBOX_UPDATE_GOLDENS set in the environment it rewrites
// the file instead (then review the diff before committing).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace glassbox::testing {

inline void expect_golden(const std::string& path, const std::string& actual) {
  if (std::getenv("GLASSBOX_UPDATE_GOLDENS") != nullptr) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run with GLASSBOX_UPDATE_GOLDENS=1";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path;
}

}  // namespace glassbox::testing

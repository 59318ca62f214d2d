#pragma once
// Test-only: readable checks on Status and StatusOr.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "glassbox/core/status.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector::testing {

using ::glassbox::testing::IsOk;

template <typename T>
T value_of(StatusOr<T> result) {
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) std::abort();  // Every caller needs the value.
  return std::move(result).value();
}

}  // namespace glassbox::inspector::testing

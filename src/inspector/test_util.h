#pragma once
// Test-only: readable checks on Status and StatusOr.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "glassbox/core/status.h"

namespace glassbox::inspector::testing {

inline ::testing::AssertionResult IsOk(const Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << to_string(status.error()) << ": " << status.message();
}
template <typename T>
::testing::AssertionResult IsOk(const StatusOr<T>& result) {
  return IsOk(result.status());
}

template <typename T>
T value_of(StatusOr<T> result) {
  EXPECT_TRUE(IsOk(result));
  if (!result.ok()) std::abort();  // Every caller needs the value.
  return std::move(result).value();
}

}  // namespace glassbox::inspector::testing

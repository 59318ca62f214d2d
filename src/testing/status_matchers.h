#pragma once
// Test-only: `EXPECT_TRUE(IsOk(x))` for Status, StatusOr<T> and Result<T>,
// printing the error code and message when it fails. Shared by every
// layer's tests (include as "src/testing/status_matchers.h").

#include <gtest/gtest.h>

#include "glassbox/core/result.h"
#include "glassbox/core/status.h"

namespace glassbox::testing {

inline ::testing::AssertionResult IsOk(const Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << to_string(status.error()) << ": " << status.message();
}

template <typename T>
::testing::AssertionResult IsOk(const StatusOr<T>& result) {
  return IsOk(result.status());
}

template <typename T>
::testing::AssertionResult IsOk(const Result<T>& result) {
  return IsOk(Status(result.error_info()));
}

}  // namespace glassbox::testing

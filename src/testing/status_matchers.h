#pragma once
// Test-only: `EXPECT_TRUE(IsOk(x))` and `EXPECT_TRUE(HasError(x, code,
// {"fragment", ...}))` for Status, StatusOr<T> and Result<T>, printing the
// error code and message when they fail. Shared by every layer's tests
// (include as "src/testing/status_matchers.h").

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

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

// Failed with `code`, and the message contains every fragment.
template <typename S>
::testing::AssertionResult HasError(const S& result, Error code,
                                    std::initializer_list<std::string_view> fragments = {}) {
  const Status status = [&] {
    if constexpr (std::is_same_v<S, Status>) {
      return result;
    } else if constexpr (std::is_same_v<S, ErrorInfo>) {
      return Status(result);
    } else if constexpr (requires { result.status(); }) {
      return result.status();
    } else {
      return Status(result.error_info());
    }
  }();
  if (status.ok()) return ::testing::AssertionFailure() << "expected an error, got OK";
  if (status.error() != code) {
    return ::testing::AssertionFailure() << "expected " << to_string(code) << ", got "
                                         << to_string(status.error()) << ": " << status.message();
  }
  for (std::string_view fragment : fragments) {
    if (status.message().find(fragment) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << status.message() << "\" lacks \"" << fragment << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace glassbox::testing

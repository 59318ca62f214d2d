#pragma once
// Test-only gMock matchers for Status, StatusOr<T>, Result<T> and ErrorInfo,
// shared by every layer's tests (include as "src/testing/status_matchers.h"):
//
//   EXPECT_THAT(read_file(path), IsOk());
//   EXPECT_THAT(parse(bytes), IsOkAndHolds(SizeIs(3)));
//   EXPECT_THAT(parse(bad), ErrorIs(Error::kCorruptData));
//   EXPECT_THAT(parse(bad), ErrorIs(Error::kCorruptData, {"truncated", "byte 12"}));
//
// A failure prints the error code and message of the actual result.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "glassbox/core/result.h"
#include "glassbox/core/status.h"

namespace glassbox {

// gtest prints the actual value of a failed EXPECT_THAT with these (found by
// argument-dependent lookup); without them it would dump the object's bytes.
inline void PrintTo(const Status& status, std::ostream* os) {
  if (status.ok()) {
    *os << "OK";
  } else {
    *os << to_string(status.error()) << ": " << status.message();
  }
}
inline void PrintTo(const ErrorInfo& info, std::ostream* os) { PrintTo(Status(info), os); }
template <typename T>
void PrintTo(const StatusOr<T>& result, std::ostream* os) {
  PrintTo(result.status(), os);
}
template <typename T>
void PrintTo(const Result<T>& result, std::ostream* os) {
  PrintTo(result.error_info(), os);
}

namespace testing {
namespace internal {

inline Status status_of(const Status& status) { return status; }
inline Status status_of(const ErrorInfo& info) { return Status(info); }
template <typename T>
Status status_of(const StatusOr<T>& result) {
  return result.status();
}
template <typename T>
Status status_of(const Result<T>& result) {
  return Status(result.error_info());
}

class IsOkMatcher {
 public:
  template <typename R>
  bool MatchAndExplain(const R& result, ::testing::MatchResultListener* listener) const {
    const Status status = status_of(result);
    if (status.ok()) return true;
    *listener << "which failed with " << to_string(status.error()) << ": " << status.message();
    return false;
  }
  void DescribeTo(std::ostream* os) const { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is an error"; }
};

class ErrorIsMatcher {
 public:
  ErrorIsMatcher(Error code, std::vector<std::string> fragments)
      : code_(code), fragments_(std::move(fragments)) {}

  template <typename R>
  bool MatchAndExplain(const R& result, ::testing::MatchResultListener* listener) const {
    const Status status = status_of(result);
    if (status.ok()) {
      *listener << "which is OK";
      return false;
    }
    if (status.error() != code_) {
      *listener << "which failed with " << to_string(status.error()) << ": " << status.message();
      return false;
    }
    for (const std::string& fragment : fragments_) {
      if (status.message().find(fragment) == std::string::npos) {
        *listener << "whose message \"" << status.message() << "\" lacks \"" << fragment << "\"";
        return false;
      }
    }
    return true;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "fails with " << to_string(code_);
    describe_fragments(os);
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "does not fail with " << to_string(code_);
    describe_fragments(os);
  }

 private:
  void describe_fragments(std::ostream* os) const {
    if (fragments_.empty()) return;
    *os << " and a message containing";
    for (const std::string& fragment : fragments_) *os << " \"" << fragment << "\"";
  }

  Error code_;
  std::vector<std::string> fragments_;
};

template <typename R, typename InnerMatcher>
class IsOkAndHoldsMatcherImpl : public ::testing::MatcherInterface<const R&> {
 public:
  using Value = std::remove_cvref_t<decltype(*std::declval<const R&>())>;

  explicit IsOkAndHoldsMatcherImpl(const InnerMatcher& inner)
      : inner_(::testing::SafeMatcherCast<const Value&>(inner)) {}

  bool MatchAndExplain(const R& result, ::testing::MatchResultListener* listener) const override {
    const Status status = status_of(result);
    if (!status.ok()) {
      *listener << "which failed with " << to_string(status.error()) << ": " << status.message();
      return false;
    }
    ::testing::StringMatchResultListener inner_listener;
    const bool matches = inner_.MatchAndExplain(*result, &inner_listener);
    const std::string explanation = inner_listener.str();
    if (!explanation.empty()) *listener << "which holds a value " << explanation;
    return matches;
  }
  void DescribeTo(std::ostream* os) const override {
    *os << "is OK and holds a value that ";
    inner_.DescribeTo(os);
  }
  void DescribeNegationTo(std::ostream* os) const override {
    *os << "is an error or holds a value that ";
    inner_.DescribeNegationTo(os);
  }

 private:
  ::testing::Matcher<const Value&> inner_;
};

template <typename InnerMatcher>
class IsOkAndHoldsMatcher {
 public:
  explicit IsOkAndHoldsMatcher(InnerMatcher inner) : inner_(std::move(inner)) {}

  template <typename R>
  operator ::testing::Matcher<const R&>() const {  // NOLINT: gMock converts implicitly
    return ::testing::Matcher<const R&>(new IsOkAndHoldsMatcherImpl<R, InnerMatcher>(inner_));
  }

 private:
  InnerMatcher inner_;
};

}  // namespace internal

/// Matches an OK Status, StatusOr<T>, Result<T> or ErrorInfo.
inline ::testing::PolymorphicMatcher<internal::IsOkMatcher> IsOk() {
  return ::testing::MakePolymorphicMatcher(internal::IsOkMatcher());
}

/// Matches an OK StatusOr<T> or Result<T> whose value matches `matcher`
/// (a gMock matcher or a value to compare with ==).
template <typename InnerMatcher>
internal::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>> IsOkAndHolds(InnerMatcher&& matcher) {
  return internal::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>>(
      std::forward<InnerMatcher>(matcher));
}

/// Matches a Status, StatusOr<T>, Result<T> or ErrorInfo that failed with
/// `code` and whose message contains every one of `fragments`.
inline ::testing::PolymorphicMatcher<internal::ErrorIsMatcher> ErrorIs(
    Error code, std::initializer_list<std::string_view> fragments = {}) {
  return ::testing::MakePolymorphicMatcher(
      internal::ErrorIsMatcher(code, std::vector<std::string>(fragments.begin(), fragments.end())));
}

}  // namespace testing
}  // namespace glassbox

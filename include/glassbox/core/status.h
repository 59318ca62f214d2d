#pragma once
/// @file
/// Host-side errors: `Status` (an `Error` plus a formatted message) and
/// `StatusOr<T>`. Host layers (readers, Inspector, CLI) use these so that a
/// message can name the file and the offending byte; tools print the message
/// as one line on stderr. Device code uses `Result<T>` (result.h) instead.

#include <string>
#include <utility>
#include <variant>

#include "glassbox/core/check.h"
#include "glassbox/core/error.h"
#include "glassbox/core/result.h"

namespace glassbox {

class [[nodiscard]] Status {
 public:
  Status() = default;  ///< OK.
  Status(Error code, std::string message) : code_(code), message_(std::move(message)) {}
  /// From a device-side error.
  Status(ErrorInfo info)  // NOLINT: implicit for GLASSBOX_RETURN_IF_ERROR
      : code_(info.code), message_(info.message) {}

  static Status ok_status() { return Status(); }

  bool ok() const { return code_ == Error::kOk; }
  Error error() const { return code_; }
  const std::string& message() const { return message_; }

  /// `message` prefixed with `context: `, for adding a file name on the way up.
  Status with_context(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  Error code_ = Error::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : storage_(std::move(value)) {}        // NOLINT
  StatusOr(Status status) : storage_(std::move(status)) {  // NOLINT
    GLASSBOX_CHECK(!std::get<1>(storage_).ok());
  }
  StatusOr(ErrorInfo error) : StatusOr(Status(error)) {}  // NOLINT

  bool ok() const { return storage_.index() == 0; }
  Status status() const { return ok() ? Status() : std::get<1>(storage_); }
  Error error() const { return ok() ? Error::kOk : std::get<1>(storage_).error(); }
  std::string message() const { return ok() ? std::string() : std::get<1>(storage_).message(); }

  T& value() & {
    GLASSBOX_CHECK(ok());
    return std::get<0>(storage_);
  }
  const T& value() const& {
    GLASSBOX_CHECK(ok());
    return std::get<0>(storage_);
  }
  T&& value() && {
    GLASSBOX_CHECK(ok());
    return std::get<0>(std::move(storage_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> storage_;
};

namespace internal {
// The error of any of our result types, in the form the enclosing function
// returns: ErrorInfo converts to Result<T>, Status and StatusOr<T>; Status to
// Status and StatusOr<T>.
inline ErrorInfo error_of(ErrorInfo e) { return e; }
template <typename T>
ErrorInfo error_of(const Result<T>& r) {
  return r.error_info();
}
inline Status error_of(const Status& s) { return s; }
template <typename T>
Status error_of(const StatusOr<T>& s) {
  return s.status();
}
inline bool is_ok(const Status& s) { return s.ok(); }
template <typename R>
bool is_ok(const R& r) {
  return r.ok();
}
}  // namespace internal

}  // namespace glassbox

#define GLASSBOX_INTERNAL_CONCAT2(a, b) a##b
#define GLASSBOX_INTERNAL_CONCAT(a, b) GLASSBOX_INTERNAL_CONCAT2(a, b)

/// Returns the error of `expr` (a Status, Result or StatusOr) if it failed.
#define GLASSBOX_RETURN_IF_ERROR(expr)                         \
  do {                                                         \
    auto&& glassbox_status_ = (expr);                          \
    if (!::glassbox::internal::is_ok(glassbox_status_))        \
      return ::glassbox::internal::error_of(glassbox_status_); \
  } while (false)

/// `GLASSBOX_ASSIGN_OR_RETURN(auto x, load())`: binds the value or returns
/// the error.
#define GLASSBOX_ASSIGN_OR_RETURN(lhs, expr)                                                    \
  GLASSBOX_INTERNAL_ASSIGN_OR_RETURN(GLASSBOX_INTERNAL_CONCAT(glassbox_result_, __LINE__), lhs, \
                                     expr)
#define GLASSBOX_INTERNAL_ASSIGN_OR_RETURN(tmp, lhs, expr)   \
  auto tmp = (expr);                                         \
  if (!tmp.ok()) return ::glassbox::internal::error_of(tmp); \
  lhs = std::move(tmp).value()

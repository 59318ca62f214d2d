#pragma once
/// @file
/// `Result<T>`: a value or an `Error` with a static message. Device-side code
/// (runtime, ETDumpGen) uses it because it never allocates and never throws.
/// Host layers use `StatusOr<T>` (status.h), whose message is a std::string.
///
///   Result<Span<uint8_t>> r = gen.get_etdump_data();
///   if (!r.ok()) log(r.error(), r.message());

#include <type_traits>
#include <utility>
#include <variant>

#include "glassbox/core/check.h"
#include "glassbox/core/error.h"

namespace glassbox {

/// An error code plus a message with static storage duration (a literal).
struct ErrorInfo {
  Error code = Error::kInternal;
  const char* message = "";
};

/// Success, for device-side functions that return a bare `ErrorInfo` (a
/// check that either passes or says why not): `return kOk;`.
inline constexpr ErrorInfo kOk{Error::kOk, ""};

/// Makes an error for `Result<T>`. `message` must be a string literal or
/// otherwise outlive every copy of the result.
constexpr ErrorInfo make_error(Error code, const char* message) { return ErrorInfo{code, message}; }

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<T, ErrorInfo>);

 public:
  // Implicit on purpose: `return value;` and `return make_error(...)` both
  // read naturally in functions returning Result<T>.
  Result(T value) : storage_(std::move(value)) {}  // NOLINT
  Result(ErrorInfo error) : storage_(error) {      // NOLINT
    GLASSBOX_DCHECK(error.code != Error::kOk);
  }

  bool ok() const { return storage_.index() == 0; }
  Error error() const { return ok() ? Error::kOk : std::get<1>(storage_).code; }
  const char* message() const { return ok() ? "" : std::get<1>(storage_).message; }
  ErrorInfo error_info() const { return ok() ? kOk : std::get<1>(storage_); }

  /// The value. Calling these on an error is a bug (checked).
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
  std::variant<T, ErrorInfo> storage_;
};

}  // namespace glassbox

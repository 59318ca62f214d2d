#pragma once
/// @file
/// `CallSite`: where a function was called from, captured as a default
/// argument (`CallSite site = CallSite::current()`).
///
/// The same interface as std::source_location, built on the compiler
/// builtins that g++ and clang both have: clang 14 with libstdc++ 12 does
/// not provide std::source_location (it lacks __builtin_source_location),
/// and the sanitizer and fuzzer builds use clang.

#include <cstdint>

namespace glassbox {

class CallSite {
 public:
  static constexpr CallSite current(const char* file = __builtin_FILE(),
                                    std::uint32_t line = __builtin_LINE(),
                                    const char* function = __builtin_FUNCTION()) {
    return CallSite(file, line, function);
  }
  constexpr const char* file_name() const { return file_; }
  constexpr std::uint32_t line() const { return line_; }
  constexpr const char* function_name() const { return function_; }

 private:
  constexpr CallSite(const char* file, std::uint32_t line, const char* function)
      : file_(file), line_(line), function_(function) {}

  const char* file_;
  std::uint32_t line_;
  const char* function_;
};

}  // namespace glassbox

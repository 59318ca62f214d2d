#pragma once
/// @file
/// Bugs are not errors: GLASSBOX_CHECK aborts on a broken invariant inside
/// Glassbox itself. Recoverable conditions (bad input, full buffers) are
/// reported as `Error` values instead and never reach these macros.

namespace glassbox::internal {
[[noreturn]] void check_failed(const char* condition, const char* file, int line) noexcept;
}  // namespace glassbox::internal

#define GLASSBOX_CHECK(condition)                                         \
  do {                                                                    \
    if (!(condition)) [[unlikely]]                                        \
      ::glassbox::internal::check_failed(#condition, __FILE__, __LINE__); \
  } while (false)

#ifdef NDEBUG
#define GLASSBOX_DCHECK(condition) \
  do {                             \
  } while (false && (condition))
#else
#define GLASSBOX_DCHECK(condition) GLASSBOX_CHECK(condition)
#endif

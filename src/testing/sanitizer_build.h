#pragma once
// Test-only: which sanitizer this test was compiled under, and the skip of
// tests that bound time.
//
// Tests that bound time (a large input under a ctest TIMEOUT) skip
// themselves in sanitizer builds, which run them 20-50x slower; the
// default build runs them. glassbox_add_test defines
// GLASSBOX_SANITIZER_BUILD for sanitizer presets.
//
//   TEST(ScaleTest, LargeInput) { SKIP_IN_SANITIZER_BUILD(); ... }

#include <gtest/gtest.h>

#ifdef GLASSBOX_SANITIZER_BUILD
#define SKIP_IN_SANITIZER_BUILD() GTEST_SKIP() << "bounds time; the default build runs it"
#else
#define SKIP_IN_SANITIZER_BUILD() static_cast<void>(0)
#endif

namespace glassbox::testing {

// GCC says so with __SANITIZE_*__, Clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
inline constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
inline constexpr bool kThreadSanitizer = __has_feature(thread_sanitizer);
#else
inline constexpr bool kThreadSanitizer = false;
#endif

}  // namespace glassbox::testing

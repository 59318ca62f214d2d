#pragma once
// Test-only: tests that bound time (a large input under a ctest TIMEOUT)
// skip themselves in sanitizer builds, which run them 20-50x slower; the
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

#pragma once
// Test-only: readable checks on Status and StatusOr.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/inspector/inspector.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector::testing {

using ::glassbox::testing::IsOk;

/// The group named `name`, or null.
inline const EventGroup* find_group(const Inspector& insp, const std::string& name) {
  for (const EventGroup& g : insp.groups()) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

/// Whether a diagnostic of `severity` contains `fragment`.
inline bool has_diagnostic(const Inspector& insp, Severity severity, const std::string& fragment) {
  return std::any_of(
      insp.diagnostics().begin(), insp.diagnostics().end(), [&](const Diagnostic& d) {
        return d.severity == severity && d.message.find(fragment) != std::string::npos;
      });
}

template <typename T>
T value_of(StatusOr<T> result) {
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) std::abort();  // Every caller needs the value.
  return std::move(result).value();
}

}  // namespace glassbox::inspector::testing

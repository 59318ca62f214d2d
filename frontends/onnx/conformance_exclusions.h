#pragma once
// The ONNX node test cases that use only supported op types but are
// deliberately not run, each with the reason (conformance_test.cc), and
// the few run with a looser tolerance, each with the reason too.

#include <string_view>

namespace glassbox::frontends::onnx {

struct Exclusion {
  /// A case directory name; each '*' matches any run of characters.
  std::string_view name;
  std::string_view reason;
};

/// The reason `case_name` is excluded, or "" if it must pass.
std::string_view exclusion_reason(std::string_view case_name);

/// A case that runs with a looser absolute tolerance than the default,
/// because its reference outputs are less precise than float32.
struct LooserTolerance {
  std::string_view name;  ///< As Exclusion::name ('*' wildcards).
  double atol;
  std::string_view reason;
};

/// The absolute tolerance `case_name` is held to in place of the default,
/// or 0 when the default applies.
double looser_tolerance(std::string_view case_name);

}  // namespace glassbox::frontends::onnx

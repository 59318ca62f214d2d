#pragma once
// The ONNX node test cases that use only supported op types but are
// deliberately not run, each with the reason (conformance_test.cc).

#include <string_view>

namespace glassbox::frontends::onnx {

struct Exclusion {
  /// A case directory name; each '*' matches any run of characters.
  std::string_view name;
  std::string_view reason;
};

/// The reason `case_name` is excluded, or "" if it must pass.
std::string_view exclusion_reason(std::string_view case_name);

}  // namespace glassbox::frontends::onnx

#pragma once
// Test-only: the seed's demo model lowered with the demo backend, as an
// emitted program and its ETRecord, plus readable Status checks.

#include <gtest/gtest.h>

#include <string>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/etrecord/program_manager.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etrecord::testing {

using ::glassbox::testing::IsOk;

// Failed with `code` and a message containing every fragment.
template <typename S>
::testing::AssertionResult HasError(const S& result, Error code,
                                    std::initializer_list<std::string_view> fragments = {}) {
  Status status;
  if constexpr (std::is_same_v<S, Status>) {
    status = result;
  } else {
    status = result.status();
  }
  if (status.ok()) return ::testing::AssertionFailure() << "expected an error, got OK";
  if (status.error() != code) {
    return ::testing::AssertionFailure() << "expected " << to_string(code) << ", got "
                                         << to_string(status.error()) << ": " << status.message();
  }
  for (std::string_view fragment : fragments) {
    if (status.message().find(fragment) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << status.message() << "\" lacks \"" << fragment << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
T value_of(StatusOr<T> result) {
  EXPECT_TRUE(IsOk(result));
  if (!result.ok()) std::abort();  // Every caller needs the value; stop here.
  return std::move(result).value();
}

// The demo model exported with the demo backend; `ids` is the backend's
// "identifiers" compile spec: generated, int or string.
inline ExecutorchProgramManager export_demo(const std::string& ids = "generated",
                                            bool generate_etrecord = true) {
  static backends::demo::DemoBackend backend;
  Recipe recipe;
  recipe.partitioners.push_back(backends::demo::make_demo_partitioner(backend));
  recipe.compile_specs.push_back(
      aot::CompileSpec::from_string(backends::demo::kIdentifiersSpecKey, ids));
  recipe.generate_etrecord = generate_etrecord;
  return value_of(export_model(value_of(backends::demo::build_conv_relu_tan_model()), recipe));
}

inline ETRecord demo_record(const std::string& ids = "generated") {
  return value_of(export_demo(ids).get_etrecord());
}

}  // namespace glassbox::etrecord::testing

#pragma once
// Test-only: the demo model lowered with the demo backend, as an
// emitted program and its ETRecord, plus readable Status checks.

#include <gtest/gtest.h>

#include <string>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/export/program_manager.h"
#include "src/testing/status_matchers.h"

namespace glassbox::etrecord::testing {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

template <typename T>
T value_of(StatusOr<T> result) {
  EXPECT_THAT(result, IsOk());
  if (!result.ok()) std::abort();  // Every caller needs the value; stop here.
  return std::move(result).value();
}

// The demo model exported with the demo backend; `ids` is the backend's
// "identifiers" compile spec: generated, int or string.
inline exporter::ExecutorchProgramManager export_demo(const std::string& ids = "generated",
                                                      bool generate_etrecord = true) {
  static backends::demo::DemoBackend backend;
  exporter::Recipe recipe;
  recipe.partitioners.push_back(backends::demo::make_demo_partitioner(backend));
  recipe.compile_specs.push_back(aot::CompileSpec::from_string(backends::kIdentifiersSpecKey, ids));
  recipe.generate_etrecord = generate_etrecord;
  return value_of(
      exporter::export_model(value_of(backends::demo::build_conv_relu_tan_model()), recipe));
}

inline ETRecord demo_record(const std::string& ids = "generated") {
  return value_of(export_demo(ids).get_etrecord());
}

}  // namespace glassbox::etrecord::testing

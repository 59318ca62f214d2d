#pragma once
/// @file
/// Test helpers (header-only, tests and benchmark only): export a graph
/// with or without the XNNPACK partitioner, run the program, compare.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backends/common/testing/delegate_test_helpers.h"
#include "backends/xnnpack/aot/xnnpack_backend.h"
#include "backends/xnnpack/runtime/xnnpack_runtime.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::backends::xnnpack::testing {

/// Exports `graph`; with `delegated`, through the XNNPACK partitioner with
/// `specs`. Returns the error status on failure.
inline StatusOr<exporter::ExecutorchProgramManager> export_graph(
    aot::Graph graph, bool delegated, std::vector<aot::CompileSpec> specs = {}) {
  static XnnpackBackend backend;
  exporter::Recipe recipe;
  recipe.generate_etrecord = true;
  if (delegated) {
    recipe.partitioners.push_back(make_xnnpack_partitioner(backend));
    recipe.compile_specs = std::move(specs);
  }
  return exporter::export_model(std::move(graph), recipe);
}

using backends::testing::max_relative_error;
using backends::testing::random_values;

/// Output 0 of running `bytes` once on random inputs (seeded by input
/// index) under `tracer` (may be null); empty with `*error` set on failure.
inline std::vector<float> run_once(const std::vector<std::uint8_t>& bytes,
                                   runtime::EventTracer* tracer, std::string* error) {
  if (register_xnnpack_backend_runtime() != Error::kOk) {
    *error = "cannot register the runtime half";
    return {};
  }
  return backends::testing::run_program_once(bytes, tracer, error);
}

}  // namespace glassbox::backends::xnnpack::testing

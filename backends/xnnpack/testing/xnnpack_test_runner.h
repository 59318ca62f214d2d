#pragma once
/// @file
/// Test helpers (header-only, tests and benchmark only): export a graph
/// with or without the XNNPACK partitioner, run the program, compare.

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

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

/// Uniform values in [-1, 1] from a fixed seed.
inline std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

/// Output 0 of running `bytes` once on random inputs (seeded by input
/// index) under `tracer` (may be null); empty with `*error` set on failure.
inline std::vector<float> run_once(const std::vector<std::uint8_t>& bytes,
                                   runtime::EventTracer* tracer, std::string* error) {
  if (register_xnnpack_backend_runtime() != Error::kOk) {
    *error = "cannot register the runtime half";
    return {};
  }
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  if (!program.ok()) {
    *error = std::string("Program::load: ") + diag.message;
    return {};
  }
  runtime::MemoryAllocator memory, temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, tracer, &diag);
  if (!method.ok()) {
    *error = std::string("Method::load: ") + diag.message;
    return {};
  }
  for (std::size_t i = 0; i < method->num_inputs(); ++i) {
    const std::vector<float> x = random_values(static_cast<std::size_t>(method->input(i).numel()),
                                               100 + static_cast<std::uint32_t>(i));
    if (method->set_input(i, x.data(), x.size() * sizeof(float)) != Error::kOk) {
      *error = "set_input failed";
      return {};
    }
  }
  if (method->execute(&diag) != Error::kOk) {
    *error = std::string("execute: ") + diag.message;
    return {};
  }
  const runtime::Tensor& y = method->output(0);
  return std::vector<float>(y.float_data(), y.float_data() + y.numel());
}

/// max |a - b| / (1 + |b|): absolute near zero, relative for large values.
inline double max_relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double e = std::abs(double(a[i]) - b[i]) / (1.0 + std::abs(double(b[i])));
    if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;
  }
  return worst;
}

}  // namespace glassbox::backends::xnnpack::testing

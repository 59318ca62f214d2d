#pragma once
/// @file
/// Test helpers every delegate's tests share (header-only; tests and
/// benchmarks only): seeded random data, small graph pieces, one run of a
/// program, and the error measure the per-operator tests compare with.

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::backends::testing {

/// Uniform values in [-1, 1] from a fixed seed.
inline std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

/// Output 0 of running `bytes` once on random inputs (seeded by input
/// index) under `tracer` (may be null), with the backends' runtime halves
/// already registered; empty with `*error` set on failure.
inline std::vector<float> run_program_once(const std::vector<std::uint8_t>& bytes,
                                           runtime::EventTracer* tracer, std::string* error) {
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

/// A constant of `shape` with random values seeded by its name and size.
inline aot::ValueId weights(aot::GraphBuilder& b, const std::string& name,
                            std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return b.constant(
      name, shape,
      random_values(static_cast<std::size_t>(n), static_cast<std::uint32_t>(name.size() * 31 + n)));
}

/// The input "x": a batch of 2 images of `c` channels, `hw` square.
inline aot::ValueId image(aot::GraphBuilder& b, std::int64_t c = 4, std::int64_t hw = 9) {
  return b.input("x", ScalarType::kFloat, {2, c, hw, hw});
}

/// A k x k conv2d with random weights and bias (named c1, c2, ...).
inline aot::ValueId conv(aot::GraphBuilder& b, aot::ValueId x, std::int64_t cin, std::int64_t cout,
                         aot::Conv2dOptions options = {.padding = {1, 1}}, std::int64_t k = 3) {
  static int count = 0;
  const std::string name = "c" + std::to_string(++count);
  return b.conv2d(x, weights(b, name + ".w", {cout, cin / options.groups, k, k}),
                  weights(b, name + ".b", {cout}), options);
}

/// An eval-mode batch norm over `c` channels with positive variances.
inline aot::ValueId batch_norm(aot::GraphBuilder& b, aot::ValueId x, std::int64_t c) {
  std::vector<float> var = random_values(static_cast<std::size_t>(c), 3);
  for (float& v : var) v = v * v + 0.5f;
  return b.batch_norm(x, weights(b, "bn.mean", {c}), b.constant("bn.var", {c}, var),
                      weights(b, "bn.gamma", {c}), weights(b, "bn.beta", {c}), 1e-3);
}

/// relu(x)[:, index] on x [2, 7, 8] with `index` a constant, 0-d or of one
/// element, as the ONNX importer leaves ViT's class-token pick (the builder
/// has no int64 constants, so the index input is made one). The returned
/// graph's value for the index is `index_value(graph)`.
inline aot::Graph class_token_gather(bool zero_d_index, std::int64_t index) {
  aot::GraphBuilder b;
  aot::ValueId x = b.relu(b.input("x", ScalarType::kFloat, {2, 7, 8}));
  aot::ValueId i =
      b.input("index", ScalarType::kLong,
              zero_d_index ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{1});
  b.output(b.op("gather", {x, i}, {{"axis", std::int64_t{1}}}));
  aot::Graph graph = std::move(b.build()).value();
  aot::Value* value = graph.find_value(graph.inputs[1]);
  value->kind = aot::ValueKind::kConstant;
  value->int_data = {index};
  graph.inputs.pop_back();
  return graph;
}
/// The index constant of a class_token_gather() graph.
inline aot::Value& index_value(aot::Graph& graph) {
  return *graph.find_value(graph.nodes.back().inputs[1]);
}

/// The delegate-internal events of `dump`'s last run, as `map` sees them.
struct LoggedDelegateEvents {
  std::set<aot::DelegateDebugIdentifier> identifiers;
  /// The debug handles `map` gives the identifiers logged.
  std::set<DebugHandle> handles;
  /// Identifiers logged that `map` lacks.
  std::size_t unmapped = 0;
  /// Delegate events in all (one operator run once is one).
  std::size_t events = 0;
};

inline LoggedDelegateEvents logged_delegate_events(const etdump::ETDumpFile& dump,
                                                   const aot::DebugHandleMap& map) {
  LoggedDelegateEvents logged;
  for (const etdump::Event& e : dump.runs.back().events) {
    const etdump::ProfileEvent* pe = e.profile();
    if (pe == nullptr || pe->name.has_value()) continue;  // not a delegate event
    ++logged.events;
    const aot::DelegateDebugIdentifier id =
        pe->delegate_debug_id_str
            ? aot::DelegateDebugIdentifier(*pe->delegate_debug_id_str)
            : aot::DelegateDebugIdentifier(std::int64_t{pe->delegate_debug_id_int.value});
    auto it = map.find(id);
    if (it == map.end()) {
      ++logged.unmapped;
      continue;
    }
    logged.identifiers.insert(id);
    logged.handles.insert(it->second.begin(), it->second.end());
  }
  return logged;
}

/// A delegated program and its portable twin run once each on the same
/// random inputs (run_program_once): output 0 of each, and the delegated
/// run's delegate events as `map` (its delegate's) sees them. `error` says
/// which step failed; the rest is then empty.
struct DelegatedAndPortable {
  std::vector<float> delegated;
  std::vector<float> portable;
  LoggedDelegateEvents logged;
  std::string error;
};

inline DelegatedAndPortable run_delegated_and_portable(const std::vector<std::uint8_t>& delegated,
                                                       const std::vector<std::uint8_t>& portable,
                                                       const aot::DebugHandleMap& map) {
  DelegatedAndPortable out;
  etdump::ETDumpGen tracer;
  out.delegated = run_program_once(delegated, &tracer, &out.error);
  if (out.error.empty()) out.portable = run_program_once(portable, nullptr, &out.error);
  if (!out.error.empty()) return out;
  StatusOr<etdump::ETDumpFile> dump = etdump::parse_etdump(*tracer.get_etdump_data(), "run");
  if (!dump.ok()) {
    out.error = dump.message();
    return out;
  }
  out.logged = logged_delegate_events(*dump, map);
  return out;
}

}  // namespace glassbox::backends::testing

#pragma once
// Test-only: runs an imported graph through emission and the runtime's
// portable kernels, and reads its first output back as doubles;
// import_and_run does the import too.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/test_models.h"
#include "glassbox/aot/graph.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::frontends::onnx::testing {

using Shape = std::vector<std::int64_t>;

// One run's first output, whatever its dtype, as doubles.
struct Output {
  ScalarType dtype = ScalarType::kFloat;
  Shape shape;
  std::vector<double> values;
};

// An input of the run: raw bytes in the input's dtype.
template <typename T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

inline StatusOr<Output> run(const aot::Graph& graph,
                            const std::vector<std::vector<std::uint8_t>>& inputs) {
  auto program = exporter::export_model(graph, {});
  if (!program.ok()) return program.status();
  runtime::Diagnostics diag;
  auto loaded = runtime::Program::load(program->buffer(), &diag);
  if (!loaded.ok()) return Status(Error::kInternal, diag.message);
  runtime::MemoryAllocator method_memory, temp_memory;
  auto method =
      runtime::Method::load(*loaded, "forward", &method_memory, &temp_memory, nullptr, &diag);
  if (!method.ok()) return Status(Error::kInternal, diag.message);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (method->set_input(i, inputs[i].data(), inputs[i].size()) != Error::kOk) {
      return Status(Error::kInternal, "set_input " + std::to_string(i));
    }
  }
  if (method->execute(&diag) != Error::kOk) return Status(Error::kInternal, diag.message);
  const runtime::Tensor& t = method->output(0);
  Output out;
  out.dtype = t.dtype;
  out.shape.assign(t.sizes.begin(), t.sizes.end());
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype) {
      case ScalarType::kLong:
        out.values.push_back(static_cast<double>(static_cast<const std::int64_t*>(t.data)[i]));
        break;
      case ScalarType::kBool:
      case ScalarType::kByte:
        out.values.push_back(static_cast<const std::uint8_t*>(t.data)[i]);
        break;
      case ScalarType::kChar:
        out.values.push_back(static_cast<const std::int8_t*>(t.data)[i]);
        break;
      default: out.values.push_back(t.float_data()[i]); break;
    }
  }
  return out;
}

// Imports `model` and runs it on `inputs`, each expected to succeed (a
// failure fails the test and gives an empty Output). `check`, when given,
// sees the imported graph first.
inline Output import_and_run(const ModelWriter& model,
                             const std::vector<std::vector<std::uint8_t>>& inputs,
                             const std::function<void(const aot::Graph&)>& check = {}) {
  StatusOr<aot::Graph> graph = import_onnx_from_memory(model.bytes(), {}, "m.onnx");
  EXPECT_TRUE(graph.ok()) << graph.message();
  if (!graph.ok()) return {};
  if (check) check(*graph);
  StatusOr<Output> out = run(*graph, inputs);
  EXPECT_TRUE(out.ok()) << out.message();
  return out.ok() ? *out : Output{};
}

}  // namespace glassbox::frontends::onnx::testing

#pragma once
/// @file
/// A .gbx program loaded once, run with in-memory inputs and outputs: what
/// run_program (files) and the Python bindings (NumPy arrays) share.
///
///   GLASSBOX_ASSIGN_OR_RETURN(runner::LoadedProgram program,
///                             runner::LoadedProgram::load_file("m.gbx"));
///   etdump::ETDumpGen gen;
///   GLASSBOX_ASSIGN_OR_RETURN(runner::LoadedMethod method, program.load_method(&gen, {}));
///   GLASSBOX_RETURN_IF_ERROR(method.set_inputs(inputs));
///   GLASSBOX_RETURN_IF_ERROR(method.execute());
///   std::vector<runner::HostTensor> outputs = method.outputs();

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/core/scalar_type.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runtime/method.h"

namespace glassbox::runner {

/// A tensor on the host: dtype, shape and its row-major bytes.
struct HostTensor {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;
};

/// What an input takes: its dtype and shape.
struct TensorSpec {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<std::int64_t> shape;
};

/// "[1, 3, 8, 8]".
std::string shape_text(std::span<const std::int64_t> shape);

class LoadedProgram;

/// Method "forward" of a LoadedProgram, with its own memory; keeps the
/// program alive.
class LoadedMethod {
 public:
  runtime::Method& method() { return *method_; }
  std::vector<TensorSpec> input_specs() const;
  /// Copies `inputs` (one per method input, dtype and shape as
  /// input_specs() says) into the method. kInvalidArgument names the
  /// first input that does not fit.
  Status set_inputs(std::span<const HostTensor> inputs);
  /// Runs every instruction once; errors name the program.
  Status execute();
  /// Copies of the method's outputs.
  std::vector<HostTensor> outputs() const;

 private:
  friend class LoadedProgram;
  LoadedMethod() = default;
  std::shared_ptr<const void> program_;
  std::string source_name_;
  std::unique_ptr<runtime::MemoryAllocator> method_memory_, temp_memory_;
  std::optional<runtime::Method> method_;
};

class LoadedProgram {
 public:
  /// Verifies and loads `bytes`; `source_name` (a path) names it in errors.
  static StatusOr<LoadedProgram> load(std::vector<std::uint8_t> bytes, std::string source_name);
  /// load() of the file at `path`.
  static StatusOr<LoadedProgram> load_file(const std::string& path);

  const char* fingerprint() const;
  const std::string& source_name() const { return source_name_; }

  /// Prepares every backend's runtime half with `settings`, then loads
  /// method "forward" recording into `tracer` (may be null; it is given
  /// the program's fingerprint).
  StatusOr<LoadedMethod> load_method(etdump::ETDumpGen* tracer,
                                     const backends::RunSettings& settings) const;

 private:
  struct State;
  LoadedProgram() = default;
  std::shared_ptr<const State> state_;
  std::string source_name_;
};

}  // namespace glassbox::runner

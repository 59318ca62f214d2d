#pragma once
/// @file
/// `Program`: a verified view of a `.gbx` buffer (schema/program.fbs).
///
///   runtime::Diagnostics diag;
///   Result<Program> program = Program::load(bytes, &diag);
///   if (!program.ok()) fail(diag.message);
///   Result<Method> method = Method::load(*program, "forward", ...);
///
/// `load` never trusts the bytes: the FlatBuffers verifier runs first, then
/// consistency checks (every value index in range, shapes and dtypes valid,
/// constants the right size, planned tensors inside the arena, delegates'
/// backends registered and available). A corrupt program is an error, never
/// a crash.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/diagnostics.h"

namespace glassbox::runtime {

class Program {
 public:
  /// The program format version this runtime reads.
  static constexpr std::uint32_t kVersion = 1;

  /// Verifies `data`, which must outlive the Program and its methods.
  /// `diagnostics`, when given, receives a message naming the problem.
  static Result<Program> load(Span<const std::uint8_t> data, Diagnostics* diagnostics = nullptr);

  std::size_t num_methods() const;
  /// The name of method `index` (< num_methods()).
  const char* method_name(std::size_t index) const;
  /// The index of the method called `name`, or Error::kNotFound.
  Result<std::size_t> method_index(const char* name) const;
  /// The emitter's fingerprint of this program ("" when absent).
  const char* fingerprint() const;

  /// The verified root table (a gbx::Program); for the runtime's own use.
  const void* root() const { return root_; }
  Span<const std::uint8_t> data() const { return data_; }

 private:
  Program(Span<const std::uint8_t> data, const void* root) : data_(data), root_(root) {}

  Span<const std::uint8_t> data_;
  const void* root_ = nullptr;
};

}  // namespace glassbox::runtime

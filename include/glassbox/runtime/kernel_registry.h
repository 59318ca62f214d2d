#pragma once
/// @file
/// Kernels the runtime calls for `KernelCall` instructions, found by op
/// name ("conv2d", "relu", ...). Each kernel is validated once when its
/// method loads (`prepare`: shapes, dtypes, attributes, scratch size), so
/// `run` cannot fail on a bad program: a corrupt program fails to load.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/diagnostics.h"
#include "glassbox/runtime/tensor.h"

namespace glassbox::runtime {

/// Read access to one instruction's attributes (backed by the program).
class KernelAttributes {
 public:
  explicit KernelAttributes(const void* attributes) : attributes_(attributes) {}
  /// The named attribute, or `fallback` when absent. Error::kInvalidArgument
  /// when present with another kind.
  Result<std::int64_t> get_int(const char* name, std::int64_t fallback) const;
  Result<double> get_float(const char* name, double fallback) const;
  /// Empty when absent.
  Result<Span<const std::int64_t>> get_ints(const char* name) const;
  /// The string's characters (valid while the program lives), `fallback`
  /// when absent.
  Result<const char*> get_string(const char* name, const char* fallback) const;

 private:
  const void* attributes_;  // a flatbuffers vector of gbx::Attribute, or null
};

struct KernelArgs {
  Span<Tensor* const> inputs;
  Span<Tensor* const> outputs;
  const KernelAttributes* attributes = nullptr;
};

struct Kernel {
  const char* op;
  /// Checks the instruction and returns the scratch bytes `run` needs.
  /// `diagnostics` gets the detail of a failure.
  Result<std::size_t> (*prepare)(const KernelArgs& args, Diagnostics* diagnostics);
  /// Computes the outputs. Only called after a successful `prepare`.
  Error (*run)(const KernelArgs& args, Span<std::uint8_t> scratch);
};

/// The portable kernel for `op`, or null.
const Kernel* find_kernel(const char* op);

}  // namespace glassbox::runtime

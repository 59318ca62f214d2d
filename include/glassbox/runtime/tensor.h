#pragma once
/// @file
/// `Tensor`: a runtime tensor slot of a method: element type, sizes (owned
/// by the program), and a pointer into the activation arena or the
/// program's constants. Values of a method are all tensors today.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/scalar_type.h"
#include "glassbox/core/span.h"
#include "glassbox/core/tensor_view.h"

namespace glassbox::runtime {

struct Tensor {
  ScalarType dtype = ScalarType::kFloat;
  Span<const std::int64_t> sizes;
  void* data = nullptr;  ///< Null only for an empty tensor.
  std::size_t nbytes = 0;
  bool is_constant = false;

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::int64_t s : sizes) n *= s;
    return n;
  }
  float* float_data() const { return static_cast<float*>(data); }
  /// A read-only view for logging (contiguous, no strides).
  TensorView view() const { return TensorView{dtype, sizes, {}, data}; }
};

}  // namespace glassbox::runtime

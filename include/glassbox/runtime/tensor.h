#pragma once
/// @file
/// `Tensor`: a runtime tensor slot of a method: element type, sizes (owned
/// by the program), and a pointer into the activation arena or the
/// program's constants. Values of a method are all tensors today.
///
/// A dynamic tensor (sized by data: NonZero, TopK with a computed k,
/// NonMaxSuppression) has a bound, the sizes the arena reserved, and
/// writable sizes the method allocated at load: the kernel that writes it
/// calls `resize` at each execution, and kernels after it read `sizes`.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/scalar_type.h"
#include "glassbox/core/span.h"
#include "glassbox/core/tensor_view.h"

namespace glassbox::runtime {

struct Tensor {
  ScalarType dtype = ScalarType::kFloat;
  Span<const std::int64_t> sizes;
  void* data = nullptr;    ///< Null only for an empty tensor.
  std::size_t nbytes = 0;  ///< Of the current sizes.
  bool is_constant = false;
  /// Dynamic tensors only: the storage behind `sizes` (one entry per dim of
  /// `bound`, owned by the method's allocator), else null.
  std::int64_t* dynamic_sizes = nullptr;
  /// Dynamic tensors only: the largest sizes (the program's), dim by dim.
  Span<const std::int64_t> bound;

  bool is_dynamic() const { return dynamic_sizes != nullptr; }
  /// Sets a dynamic tensor's sizes (and nbytes). kInvalidArgument when it is
  /// not dynamic, the rank differs or a dim exceeds the bound's.
  Error resize(Span<const std::int64_t> new_sizes) {
    if (dynamic_sizes == nullptr || new_sizes.size() != bound.size()) {
      return Error::kInvalidArgument;
    }
    std::size_t n = 1;
    for (std::size_t d = 0; d < new_sizes.size(); ++d) {
      if (new_sizes[d] < 0 || new_sizes[d] > bound[d]) return Error::kInvalidArgument;
      n *= static_cast<std::size_t>(new_sizes[d]);
    }
    for (std::size_t d = 0; d < new_sizes.size(); ++d) dynamic_sizes[d] = new_sizes[d];
    nbytes = n * element_size(dtype);
    return Error::kOk;
  }

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

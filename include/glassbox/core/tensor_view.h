#pragma once
/// @file
/// `TensorView`: a non-owning description of a tensor (element type, sizes,
/// strides in elements, data pointer). The runtime logs tensors through it;
/// nothing here owns or copies memory.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/scalar_type.h"
#include "glassbox/core/span.h"

namespace glassbox {

struct TensorView {
  ScalarType dtype = ScalarType::kFloat;
  Span<const std::int64_t> sizes;    ///< Must outlive the view.
  Span<const std::int64_t> strides;  ///< In elements; empty means contiguous.
  const void* data = nullptr;        ///< May be null for an empty tensor.

  /// Number of elements (1 for a 0-d tensor).
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::int64_t s : sizes) n *= s;
    return n;
  }
  /// Bytes spanned by the data, assuming it is contiguous.
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * element_size(dtype); }
  /// True when strides are empty or row-major contiguous for `sizes`.
  bool is_contiguous() const {
    if (strides.empty()) return true;
    if (strides.size() != sizes.size()) return false;
    std::int64_t expected = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
      if (sizes[i] != 1 && strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }
};

}  // namespace glassbox

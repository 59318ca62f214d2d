#pragma once
/// @file
/// Data-movement kernels: concat, transpose (permute), and the shape checks
/// behind reshape/flatten (which are plain copies of contiguous data).

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels {

/// A read-only contiguous tensor: borrowed, must outlive the call.
struct ConstTensor {
  const float* data = nullptr;
  Span<const std::int64_t> shape;
};

/// Shape of concatenating `inputs` along `axis` (negative counts from the
/// end): all inputs have the same rank (1..kMaxDims) and equal sizes except
/// along `axis`, where the output size is their sum. kInvalidArgument if
/// there are no inputs, ranks or sizes disagree, or the axis is out of
/// range. Only shapes are read.
Result<Dims> concat_output_shape(Span<const ConstTensor> inputs, std::int64_t axis);

/// Copies the inputs, in order, into `output` (shape from
/// concat_output_shape), which must not overlap any input.
Error concat(Span<const ConstTensor> inputs, std::int64_t axis, float* output);
/// concat of elements of any dtype, `element_bytes` each (the inputs'
/// `data` pointers are then only their addresses).
Error concat_elements(Span<const ConstTensor> inputs, std::int64_t axis, void* output,
                      std::size_t element_bytes);

/// Shape of permuting `shape` by `perm`: out[i] = shape[perm[i]].
/// kInvalidArgument unless perm is a permutation of 0..rank-1 with
/// rank <= kMaxDims (negative entries are not accepted).
Result<Dims> transpose_output_shape(Span<const std::int64_t> shape, Span<const std::int64_t> perm);

/// out[i_0..i_r] = in[j] where j puts i_k at dimension perm[k] (like
/// torch.permute followed by .contiguous()). `output` must not overlap
/// `input`.
Error transpose(const float* input, Span<const std::int64_t> shape, Span<const std::int64_t> perm,
                float* output);
/// transpose of elements of 1, 4 or 8 bytes (any dtype: only bits move);
/// kInvalidArgument for another size.
Error transpose_elements(const void* input, Span<const std::int64_t> shape,
                         Span<const std::int64_t> perm, void* output, std::size_t element_bytes);

/// kOk if `from` and `to` are valid shapes (rank <= kMaxDims, sizes >= 0)
/// with equal element counts, else kInvalidArgument. Reshape needs nothing
/// more: contiguous data keeps its order.
Error check_reshape(Span<const std::int64_t> from, Span<const std::int64_t> to);

/// Shape of torch.flatten(x, start_dim, end_dim): dims start..end
/// (inclusive, negative counts from the end) merge into their product.
/// A rank-0 shape flattens to [1]. kInvalidArgument if start > end after
/// normalising or either is out of range.
Result<Dims> flatten_shape(Span<const std::int64_t> shape, std::int64_t start_dim,
                           std::int64_t end_dim);

/// check_reshape(from, to), then copies numel floats from input to output
/// (nothing is copied when output == input).
Error reshape(const float* input, Span<const std::int64_t> from, Span<const std::int64_t> to,
              float* output);

}  // namespace glassbox::runtime::kernels

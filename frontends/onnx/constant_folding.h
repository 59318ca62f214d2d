#pragma once
// Arithmetic on host tensors, for folding what PyTorch's exporter computes
// from static shapes (Shape -> Gather -> Unsqueeze -> Concat -> Reshape)
// and for preparing constants (transposed Gemm weights). Pure functions:
// errors are kInvalidArgument without a node name; callers add it.

#include <cstdint>
#include <string_view>
#include <vector>

#include "frontends/onnx/tensor_proto.h"

namespace glassbox::frontends::onnx {

/// Numpy-broadcast elementwise Add/Sub/Mul/Div. Integer division truncates
/// toward zero (as ONNX's reference does for ints); dividing by 0 is an
/// error. The result is float if either input is.
StatusOr<HostTensor> fold_binary(std::string_view op_type, const HostTensor& a,
                                 const HostTensor& b);

/// Output dim i is input dim perm[i].
StatusOr<HostTensor> fold_transpose(const HostTensor& x, const std::vector<std::int64_t>& perm);

/// Joins along `axis` (may be negative); all inputs of one kind.
StatusOr<HostTensor> fold_concat(const std::vector<const HostTensor*>& xs, std::int64_t axis);

/// numpy.take(data, indices, axis): indices may be negative.
StatusOr<HostTensor> fold_gather(const HostTensor& data, const HostTensor& indices,
                                 std::int64_t axis);

/// The same elements with a new shape (numel must match).
StatusOr<HostTensor> fold_reshape(HostTensor x, std::vector<std::int64_t> shape);

/// Normalises `axis` into [0, rank).
StatusOr<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank);

/// ONNX Slice's start or end `v` along a dim of `dim` elements: negative
/// counts from the end, then clamped into [0, dim] (a positive `step`) or
/// [-1, dim - 1] (a negative one).
std::int64_t clamp_slice_index(std::int64_t v, std::int64_t dim, std::int64_t step);

}  // namespace glassbox::frontends::onnx

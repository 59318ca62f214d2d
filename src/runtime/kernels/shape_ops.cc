#include "glassbox/runtime/kernels/shape_ops.h"

#include <algorithm>

namespace glassbox::runtime::kernels {
namespace {

Result<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return make_error(Error::kInvalidArgument, "axis out of range");
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace

Result<Dims> concat_output_shape(Span<const ConstTensor> inputs, std::int64_t axis) {
  if (inputs.empty()) return make_error(Error::kInvalidArgument, "concat: no inputs");
  Result<Dims> out = make_dims(inputs[0].shape);
  if (!out.ok()) return out.error_info();
  if (out->rank == 0) return make_error(Error::kInvalidArgument, "concat: rank 0 input");
  Result<std::size_t> ax = normalize_axis(axis, out->rank);
  if (!ax.ok()) return ax.error_info();
  for (std::size_t t = 1; t < inputs.size(); ++t) {
    Result<Dims> d = make_dims(inputs[t].shape);
    if (!d.ok()) return d.error_info();
    if (d->rank != out->rank) return make_error(Error::kInvalidArgument, "concat: ranks differ");
    for (std::size_t i = 0; i < d->rank; ++i) {
      if (i != *ax && d->sizes[i] != out->sizes[i])
        return make_error(Error::kInvalidArgument, "concat: sizes differ");
    }
    out->sizes[*ax] += d->sizes[*ax];
  }
  return out;
}

// The output is `outer` blocks; each block is every input's contiguous
// [axis..] slab back to back, so concat is one memcpy-like copy per
// (outer index, input).
Error concat(Span<const ConstTensor> inputs, std::int64_t axis, float* output) {
  Result<Dims> out = concat_output_shape(inputs, axis);
  if (!out.ok()) return out.error();
  if (out->numel() == 0) return Error::kOk;
  if (output == nullptr) return Error::kInvalidArgument;
  const std::size_t ax = *normalize_axis(axis, out->rank);
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= out->sizes[i];
  for (std::size_t i = ax + 1; i < out->rank; ++i) inner *= out->sizes[i];
  for (const ConstTensor& t : inputs)
    if (t.data == nullptr && t.shape[ax] * inner * outer > 0) return Error::kInvalidArgument;
  float* dst = output;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (const ConstTensor& t : inputs) {
      const std::int64_t slab = t.shape[ax] * inner;
      if (slab == 0) continue;
      const float* src = t.data + o * slab;
      std::copy(src, src + slab, dst);
      dst += slab;
    }
  }
  return Error::kOk;
}

Result<Dims> transpose_output_shape(Span<const std::int64_t> shape, Span<const std::int64_t> perm) {
  Result<Dims> in = make_dims(shape);
  if (!in.ok()) return in.error_info();
  if (perm.size() != shape.size())
    return make_error(Error::kInvalidArgument, "transpose: perm size");
  bool seen[kMaxDims] = {};
  Dims out;
  out.rank = shape.size();
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const std::int64_t p = perm[i];
    if (p < 0 || p >= static_cast<std::int64_t>(shape.size()) || seen[static_cast<std::size_t>(p)])
      return make_error(Error::kInvalidArgument, "transpose: not a permutation");
    seen[static_cast<std::size_t>(p)] = true;
    out.sizes[i] = shape[static_cast<std::size_t>(p)];
  }
  return out;
}

// Walks the output in order with an odometer, keeping the input offset
// incremental (in-strides permuted to output order), and runs the last
// output dim as a strided inner loop.
Error transpose(const float* input, Span<const std::int64_t> shape, Span<const std::int64_t> perm,
                float* output) {
  Result<Dims> out = transpose_output_shape(shape, perm);
  if (!out.ok()) return out.error();
  const std::int64_t total = out->numel();
  if (total == 0) return Error::kOk;
  if (input == nullptr || output == nullptr) return Error::kInvalidArgument;
  if (out->rank == 0) {
    output[0] = input[0];
    return Error::kOk;
  }
  std::int64_t in_stride[kMaxDims];
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    in_stride[i] = s;
    s *= shape[i];
  }
  std::int64_t stride[kMaxDims];
  for (std::size_t i = 0; i < out->rank; ++i)
    stride[i] = in_stride[static_cast<std::size_t>(perm[i])];
  const std::size_t last = out->rank - 1;
  const std::int64_t n = out->sizes[last];
  const std::int64_t step = stride[last];
  std::int64_t index[kMaxDims] = {};
  std::int64_t offset = 0;
  for (std::int64_t row = 0; row < total / n; ++row) {
    const float* src = input + offset;
    float* dst = output + row * n;
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i * step];
    for (std::size_t d = last; d-- > 0;) {
      offset += stride[d];
      if (++index[d] < out->sizes[d]) break;
      offset -= stride[d] * out->sizes[d];
      index[d] = 0;
    }
  }
  return Error::kOk;
}

Error check_reshape(Span<const std::int64_t> from, Span<const std::int64_t> to) {
  Result<std::int64_t> a = checked_numel(from);
  Result<std::int64_t> b = checked_numel(to);
  if (!a.ok() || !b.ok() || *a != *b) return Error::kInvalidArgument;
  return Error::kOk;
}

Result<Dims> flatten_shape(Span<const std::int64_t> shape, std::int64_t start_dim,
                           std::int64_t end_dim) {
  Result<Dims> in = make_dims(shape);
  if (!in.ok()) return in.error_info();
  if (in->rank == 0) {
    if ((start_dim != 0 && start_dim != -1) || (end_dim != 0 && end_dim != -1))
      return make_error(Error::kInvalidArgument, "flatten: bad dims");
    Dims one;
    one.rank = 1;
    one.sizes[0] = 1;
    return one;
  }
  Result<std::size_t> start = normalize_axis(start_dim, in->rank);
  Result<std::size_t> end = normalize_axis(end_dim, in->rank);
  if (!start.ok() || !end.ok() || *start > *end)
    return make_error(Error::kInvalidArgument, "flatten: bad dims");
  Dims out;
  for (std::size_t i = 0; i < *start; ++i) out.sizes[out.rank++] = in->sizes[i];
  std::int64_t merged = 1;
  for (std::size_t i = *start; i <= *end; ++i) merged *= in->sizes[i];
  out.sizes[out.rank++] = merged;
  for (std::size_t i = *end + 1; i < in->rank; ++i) out.sizes[out.rank++] = in->sizes[i];
  return out;
}

Error reshape(const float* input, Span<const std::int64_t> from, Span<const std::int64_t> to,
              float* output) {
  if (Error e = check_reshape(from, to); e != Error::kOk) return e;
  const std::int64_t n = *checked_numel(from);
  if (n == 0 || input == output) return Error::kOk;
  if (input == nullptr || output == nullptr) return Error::kInvalidArgument;
  std::copy(input, input + n, output);
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

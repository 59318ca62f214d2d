#include "glassbox/runtime/kernels/shape_ops.h"

#include <algorithm>
#include <cstring>

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
  return concat_elements(inputs, axis, output, sizeof(float));
}

Error concat_elements(Span<const ConstTensor> inputs, std::int64_t axis, void* output,
                      std::size_t element_bytes) {
  Result<Dims> out = concat_output_shape(inputs, axis);
  if (!out.ok()) return out.error();
  if (out->numel() == 0) return Error::kOk;
  if (output == nullptr || element_bytes == 0) return Error::kInvalidArgument;
  const std::size_t ax = *normalize_axis(axis, out->rank);
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= out->sizes[i];
  for (std::size_t i = ax + 1; i < out->rank; ++i) inner *= out->sizes[i];
  for (const ConstTensor& t : inputs)
    if (t.data == nullptr && t.shape[ax] * inner * outer > 0) return Error::kInvalidArgument;
  auto* dst = static_cast<std::uint8_t*>(output);
  for (std::int64_t o = 0; o < outer; ++o) {
    for (const ConstTensor& t : inputs) {
      const auto slab = static_cast<std::size_t>(t.shape[ax] * inner) * element_bytes;
      if (slab == 0) continue;
      std::memcpy(dst, reinterpret_cast<const std::uint8_t*>(t.data) + o * slab, slab);
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

namespace {

// A transpose as a walk over the output: dims in output order with the
// input stride of each. Size-1 dims are dropped and neighbours that stay
// neighbours in the input are merged, so [N,C,H,W] -> [N,H,W,C] walks as
// [N, H*W, C] and an identity permutation as one flat copy.
struct Walk {
  std::int64_t size[kMaxDims];
  std::int64_t stride[kMaxDims];
  std::size_t rank = 0;
};

Walk make_walk(Span<const std::int64_t> shape, Span<const std::int64_t> perm) {
  std::int64_t in_stride[kMaxDims];
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    in_stride[i] = s;
    s *= shape[i];
  }
  Walk w;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const auto from = static_cast<std::size_t>(perm[i]);
    if (shape[from] == 1) continue;
    if (w.rank > 0 && w.stride[w.rank - 1] == in_stride[from] * shape[from]) {
      w.size[w.rank - 1] *= shape[from];
      w.stride[w.rank - 1] = in_stride[from];
      continue;
    }
    w.size[w.rank] = shape[from];
    w.stride[w.rank] = in_stride[from];
    ++w.rank;
  }
  if (w.rank == 0) {  // one element
    w.size[0] = 1;
    w.stride[0] = 1;
    w.rank = 1;
  }
  return w;
}

// Calls body(input_offset, output_offset) for every index of the walk's
// dims other than `skip_a` and `skip_b` (pass the same dim twice to skip
// one), with an odometer that keeps both offsets incremental.
template <typename Body>
void for_each_outer(const Walk& w, std::size_t skip_a, std::size_t skip_b, Body body) {
  std::int64_t out_stride[kMaxDims];
  std::int64_t s = 1;
  for (std::size_t i = w.rank; i-- > 0;) {
    out_stride[i] = s;
    s *= w.size[i];
  }
  std::int64_t count = 1;
  for (std::size_t i = 0; i < w.rank; ++i)
    if (i != skip_a && i != skip_b) count *= w.size[i];
  std::int64_t index[kMaxDims] = {};
  std::int64_t in_off = 0;
  std::int64_t out_off = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    body(in_off, out_off);
    for (std::size_t d = w.rank; d-- > 0;) {
      if (d == skip_a || d == skip_b) continue;
      if (++index[d] < w.size[d]) {
        in_off += w.stride[d];
        out_off += out_stride[d];
        break;
      }
      in_off -= w.stride[d] * (w.size[d] - 1);
      out_off -= out_stride[d] * (w.size[d] - 1);
      index[d] = 0;
    }
  }
}

// Square tiles small enough that a tile's source lines and destination
// lines all stay in L1 while it is copied.
constexpr std::int64_t kTile = 16;

}  // namespace

// Two cases after merging dims. If the output's last dim is the input's
// last dim too, every output row is a contiguous input run: one copy per
// row. Otherwise the input's contiguous dim `c` and the output's last dim
// form a 2-D transpose per outer index, done in kTile x kTile tiles so both
// sides are read and written a cache line at a time.
namespace {

template <typename T>
Error transpose_as(const T* input, Span<const std::int64_t> shape, Span<const std::int64_t> perm,
                   T* output) {
  Result<Dims> out = transpose_output_shape(shape, perm);
  if (!out.ok()) return out.error();
  if (out->numel() == 0) return Error::kOk;
  if (input == nullptr || output == nullptr) return Error::kInvalidArgument;
  const Walk w = make_walk(shape, perm);
  const std::size_t last = w.rank - 1;
  const std::int64_t n = w.size[last];
  if (w.stride[last] == 1) {
    for_each_outer(w, last, last, [&](std::int64_t in_off, std::int64_t out_off) {
      std::copy(input + in_off, input + in_off + n, output + out_off);
    });
    return Error::kOk;
  }
  std::size_t c = 0;  // the dim with input stride 1 (there is one: dims were merged)
  while (w.stride[c] != 1) ++c;
  std::int64_t c_out_stride = 1;
  for (std::size_t i = c + 1; i < w.rank; ++i) c_out_stride *= w.size[i];
  const std::int64_t rows = w.size[c];
  const std::int64_t step = w.stride[last];
  for_each_outer(w, c, last, [&](std::int64_t in_off, std::int64_t out_off) {
    for (std::int64_t r0 = 0; r0 < rows; r0 += kTile) {
      const std::int64_t r1 = std::min(rows, r0 + kTile);
      for (std::int64_t j0 = 0; j0 < n; j0 += kTile) {
        const std::int64_t j1 = std::min(n, j0 + kTile);
        for (std::int64_t r = r0; r < r1; ++r) {
          const T* src = input + in_off + r;
          T* dst = output + out_off + r * c_out_stride;
          for (std::int64_t j = j0; j < j1; ++j) dst[j] = src[j * step];
        }
      }
    }
  });
  return Error::kOk;
}

}  // namespace

Error transpose(const float* input, Span<const std::int64_t> shape, Span<const std::int64_t> perm,
                float* output) {
  return transpose_as(input, shape, perm, output);
}

Error transpose_elements(const void* input, Span<const std::int64_t> shape,
                         Span<const std::int64_t> perm, void* output, std::size_t element_bytes) {
  switch (element_bytes) {
    case 1:
      return transpose_as(static_cast<const std::uint8_t*>(input), shape, perm,
                          static_cast<std::uint8_t*>(output));
    case 4:
      return transpose_as(static_cast<const std::uint32_t*>(input), shape, perm,
                          static_cast<std::uint32_t*>(output));
    case 8:
      return transpose_as(static_cast<const std::uint64_t*>(input), shape, perm,
                          static_cast<std::uint64_t*>(output));
    default: return Error::kInvalidArgument;
  }
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

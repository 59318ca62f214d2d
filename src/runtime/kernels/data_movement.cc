#include "glassbox/runtime/kernels/data_movement.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace glassbox::runtime::kernels {
namespace {

using Byte = unsigned char;

template <std::int64_t N>
using ElementSize = std::integral_constant<std::int64_t, N>;

// Runs f(ElementSize<N>{}) for the supported element sizes, so that inner
// loops move a compile-time number of bytes (one load and one store)
// rather than calling memcpy with a run-time size per element.
template <typename F>
Error with_element_size(std::size_t element_size, F&& f) {
  switch (element_size) {
    case 1: return f(ElementSize<1>{});
    case 2: return f(ElementSize<2>{});
    case 4: return f(ElementSize<4>{});
    case 8: return f(ElementSize<8>{});
    default: return Error::kInvalidArgument;
  }
}

template <std::int64_t N>
void copy_one(Byte* dst, const Byte* src) {
  std::memcpy(dst, src, N);
}

template <std::int64_t N>
void fill(Byte* dst, const Byte* value, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) copy_one<N>(dst + i * N, value);
}

// dst[i] = src[i * stride] for i < n (stride in elements, any sign).
template <std::int64_t N>
void copy_strided(Byte* dst, const Byte* src, std::int64_t stride, std::int64_t n) {
  if (n <= 0) return;
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(n * N));
  } else if (stride == 0) {
    fill<N>(dst, src, n);
  } else {
    for (std::int64_t i = 0; i < n; ++i) copy_one<N>(dst + i * N, src + i * stride * N);
  }
}

// Element count of `shape` after checking rank <= kMaxDims and sizes >= 0.
// The product of the non-zero sizes times element_size must fit int64, so
// every stride and byte offset derived from the shape fits too, even for
// an empty tensor.
bool count_elements(Span<const std::int64_t> shape, std::int64_t element_size,
                    std::int64_t* count) {
  if (shape.size() > kMaxDims) return false;
  std::int64_t bytes = element_size;
  bool empty = false;
  for (std::int64_t d : shape) {
    if (d < 0) return false;
    if (d == 0) {
      empty = true;
    } else if (__builtin_mul_overflow(bytes, d, &bytes)) {
      return false;
    }
  }
  *count = empty ? 0 : bytes / element_size;
  return true;
}

bool count_elements(Shape4 s, std::int64_t element_size, std::int64_t* count) {
  const std::int64_t dims[] = {s.n, s.c, s.h, s.w};
  return count_elements(dims, element_size, count);
}

// Row-major strides in elements; valid for shapes count_elements accepted.
void strides_of(Span<const std::int64_t> shape, std::int64_t* strides) {
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i] == 0 ? 1 : shape[i];
  }
}

bool normalize_axis(std::int64_t axis, std::size_t rank, std::size_t* out) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return false;
  *out = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  return true;
}

// An index into a dim of size `dim` with negatives counting from the end;
// -1 if out of range.
std::int64_t wrap_index(std::int64_t index, std::int64_t dim) {
  if (index < -dim || index >= dim) return -1;
  return index < 0 ? index + dim : index;
}

// Advances a row-major index over dims [0, last) by one; the caller keeps
// offsets in sync through `on_step(d)` / `on_wrap(d)`.
template <typename Step, typename Wrap>
void next_index(std::int64_t* index, const std::int64_t* sizes, std::size_t last, Step on_step,
                Wrap on_wrap) {
  for (std::size_t d = last; d-- > 0;) {
    on_step(d);
    if (++index[d] < sizes[d]) return;
    on_wrap(d);
    index[d] = 0;
  }
}

// ------------------------------------------------------------------ Pad

struct PadAxis {
  std::int64_t crop_begin = 0;  // x elements cut from the start
  std::int64_t extent = 0;      // x elements left after both crops
  std::int64_t pad_begin = 0;   // elements added before them
  std::int64_t pad_end = 0;     // elements added after them
  std::int64_t out = 0;         // output size
};

bool make_pad_axes(Span<const std::int64_t> x_shape, Span<const std::int64_t> pads_begin,
                   Span<const std::int64_t> pads_end, PadAxis* axes) {
  if (x_shape.size() > kMaxDims || pads_begin.size() != x_shape.size() ||
      pads_end.size() != x_shape.size())
    return false;
  for (std::size_t d = 0; d < x_shape.size(); ++d) {
    const std::int64_t dim = x_shape[d];
    const std::int64_t begin = pads_begin[d];
    const std::int64_t end = pads_end[d];
    // Checked before negating, so INT64_MIN pads cannot overflow.
    if (dim < 0 || begin < -dim || end < -dim) return false;
    const std::int64_t crop_begin = begin < 0 ? -begin : 0;
    const std::int64_t crop_end = end < 0 ? -end : 0;
    if (crop_begin + crop_end > dim) return false;
    PadAxis& a = axes[d];
    a.crop_begin = crop_begin;
    a.extent = dim - crop_begin - crop_end;
    a.pad_begin = begin > 0 ? begin : 0;
    a.pad_end = end > 0 ? end : 0;
    if (__builtin_add_overflow(a.extent, a.pad_begin, &a.out) ||
        __builtin_add_overflow(a.out, a.pad_end, &a.out))
      return false;
  }
  return true;
}

// The x index along one axis that output coordinate o reads, or -1 for a
// constant element. Reflect/edge pads were checked against the extent, so
// the mirrored index stays inside it.
std::int64_t pad_source(const PadAxis& a, PadMode mode, std::int64_t o) {
  std::int64_t j = o - a.pad_begin;
  if (j < 0 || j >= a.extent) {
    switch (mode) {
      case PadMode::kConstant: return -1;
      case PadMode::kEdge: j = j < 0 ? 0 : a.extent - 1; break;
      case PadMode::kReflect: j = j < 0 ? -j : 2 * (a.extent - 1) - j; break;
    }
  }
  return a.crop_begin + j;
}

// Each output row (last dim) is one source row or all constant; within a
// row only the borders go element by element, the middle is one memcpy.
template <std::int64_t N>
Error pad_impl(const Byte* x, Span<const std::int64_t> x_shape, const PadAxis* axes, PadMode mode,
               const Byte* constant, Byte* y) {
  const std::size_t rank = x_shape.size();
  Dims out;
  out.rank = rank;
  for (std::size_t d = 0; d < rank; ++d) out.sizes[d] = axes[d].out;
  std::int64_t x_count = 0;
  std::int64_t y_count = 0;
  if (!count_elements(x_shape, N, &x_count) || !count_elements(out.span(), N, &y_count))
    return Error::kInvalidArgument;
  for (std::size_t d = 0; d < rank; ++d) {
    const PadAxis& a = axes[d];
    if (a.pad_begin == 0 && a.pad_end == 0) continue;
    if (mode == PadMode::kEdge && a.extent == 0) return Error::kInvalidArgument;
    if (mode == PadMode::kReflect && (a.pad_begin >= a.extent || a.pad_end >= a.extent))
      return Error::kInvalidArgument;
  }
  if (y_count == 0) return Error::kOk;
  if (y == nullptr || (x_count > 0 && x == nullptr)) return Error::kInvalidArgument;
  if (rank == 0) {
    copy_one<N>(y, x);
    return Error::kOk;
  }
  std::int64_t x_stride[kMaxDims];
  strides_of(x_shape, x_stride);
  const std::size_t last = rank - 1;
  const PadAxis& row = axes[last];
  const std::int64_t rows = y_count / row.out;
  std::int64_t index[kMaxDims] = {};
  for (std::int64_t r = 0; r < rows; ++r, y += row.out * N) {
    std::int64_t offset = 0;
    bool constant_row = false;
    for (std::size_t d = 0; d < last && !constant_row; ++d) {
      const std::int64_t s = pad_source(axes[d], mode, index[d]);
      if (s < 0) {
        constant_row = true;
      } else {
        offset += s * x_stride[d];
      }
    }
    if (constant_row) {
      fill<N>(y, constant, row.out);
    } else {
      auto border = [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t o = from; o < to; ++o) {
          const std::int64_t s = pad_source(row, mode, o);
          copy_one<N>(y + o * N, s < 0 ? constant : x + (offset + s) * N);
        }
      };
      border(0, row.pad_begin);
      if (row.extent > 0)
        std::memcpy(y + row.pad_begin * N, x + (offset + row.crop_begin) * N,
                    static_cast<std::size_t>(row.extent * N));
      border(row.pad_begin + row.extent, row.out);
    }
    next_index(
        index, out.sizes.data(), last, [](std::size_t) {}, [](std::size_t) {});
  }
  return Error::kOk;
}

// --------------------------------------------------------------- Expand

// The walk over y with x's stride per dim (0 where x is broadcast), after
// dropping size-1 dims and merging dims that are contiguous for x too.
struct BroadcastPlan {
  std::int64_t size[kMaxDims];
  std::int64_t x_stride[kMaxDims];
  std::size_t rank = 0;
};

template <std::int64_t N>
Error expand_impl(const Byte* x, Span<const std::int64_t> x_shape, Span<const std::int64_t> y_shape,
                  Byte* y) {
  std::int64_t x_count = 0;
  std::int64_t y_count = 0;
  if (!count_elements(x_shape, N, &x_count) || !count_elements(y_shape, N, &y_count) ||
      x_shape.size() > y_shape.size())
    return Error::kInvalidArgument;
  std::int64_t stride[kMaxDims] = {};
  std::int64_t running = 1;
  const std::size_t rank = y_shape.size();
  for (std::size_t back = 0; back < rank; ++back) {
    const std::size_t i = rank - 1 - back;
    const std::int64_t xd = back < x_shape.size() ? x_shape[x_shape.size() - 1 - back] : 1;
    if (xd != y_shape[i] && xd != 1) return Error::kInvalidArgument;
    stride[i] = xd == 1 ? 0 : running;
    running *= xd;
  }
  if (y_count == 0) return Error::kOk;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  BroadcastPlan plan;
  for (std::size_t i = 0; i < rank; ++i) {
    if (y_shape[i] == 1) continue;
    if (plan.rank > 0 && plan.x_stride[plan.rank - 1] == stride[i] * y_shape[i]) {
      plan.size[plan.rank - 1] *= y_shape[i];
      plan.x_stride[plan.rank - 1] = stride[i];
      continue;
    }
    plan.size[plan.rank] = y_shape[i];
    plan.x_stride[plan.rank] = stride[i];
    ++plan.rank;
  }
  if (plan.rank == 0) {  // every dim is 1: a single element
    copy_one<N>(y, x);
    return Error::kOk;
  }
  const std::size_t last = plan.rank - 1;
  const std::int64_t n = plan.size[last];
  std::int64_t index[kMaxDims] = {};
  std::int64_t offset = 0;
  for (std::int64_t r = 0; r < y_count / n; ++r, y += n * N) {
    copy_strided<N>(y, x + offset * N, plan.x_stride[last], n);
    next_index(
        index, plan.size, last, [&](std::size_t d) { offset += plan.x_stride[d]; },
        [&](std::size_t d) { offset -= plan.x_stride[d] * plan.size[d]; });
  }
  return Error::kOk;
}

// ----------------------------------------------------------------- Tile

bool tile_dims(Span<const std::int64_t> x_shape, Span<const std::int64_t> repeats, Dims* out) {
  if (x_shape.size() > kMaxDims || repeats.size() != x_shape.size()) return false;
  out->rank = x_shape.size();
  for (std::size_t d = 0; d < x_shape.size(); ++d) {
    if (x_shape[d] < 0 || repeats[d] < 0 ||
        __builtin_mul_overflow(x_shape[d], repeats[d], &out->sizes[d]))
      return false;
  }
  return true;
}

// Walks y's rows; the x row is found by an x index that wraps at x's size
// while y's index runs on (y = x * repeats, so both wrap together at the
// end), and each row is its x row copied repeats[last] times.
template <std::int64_t N>
Error tile_impl(const Byte* x, Span<const std::int64_t> x_shape, Span<const std::int64_t> repeats,
                Byte* y) {
  Dims out;
  std::int64_t x_count = 0;
  std::int64_t y_count = 0;
  if (!tile_dims(x_shape, repeats, &out) || !count_elements(x_shape, N, &x_count) ||
      !count_elements(out.span(), N, &y_count))
    return Error::kInvalidArgument;
  if (y_count == 0) return Error::kOk;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  const std::size_t rank = x_shape.size();
  if (rank == 0) {
    copy_one<N>(y, x);
    return Error::kOk;
  }
  std::int64_t x_stride[kMaxDims];
  strides_of(x_shape, x_stride);
  const std::size_t last = rank - 1;
  const std::int64_t x_row = x_shape[last];
  std::int64_t y_index[kMaxDims] = {};
  std::int64_t x_index[kMaxDims] = {};
  std::int64_t offset = 0;
  for (std::int64_t r = 0; r < y_count / out.sizes[last]; ++r) {
    for (std::int64_t rep = 0; rep < repeats[last]; ++rep, y += x_row * N)
      std::memcpy(y, x + offset * N, static_cast<std::size_t>(x_row * N));
    for (std::size_t d = last; d-- > 0;) {
      offset += x_stride[d];
      if (++x_index[d] == x_shape[d]) {
        x_index[d] = 0;
        offset -= x_stride[d] * x_shape[d];
      }
      if (++y_index[d] < out.sizes[d]) break;
      y_index[d] = 0;
    }
  }
  return Error::kOk;
}

// ---------------------------------------------------------------- Slice

template <std::int64_t N>
Error slice_impl(const Byte* x, Span<const std::int64_t> x_shape, Span<const std::int64_t> starts,
                 Span<const std::int64_t> steps, Span<const std::int64_t> y_shape, Byte* y) {
  const std::size_t rank = x_shape.size();
  std::int64_t x_count = 0;
  std::int64_t y_count = 0;
  if (!count_elements(x_shape, N, &x_count) || !count_elements(y_shape, N, &y_count) ||
      y_shape.size() != rank || starts.size() != rank || steps.size() != rank)
    return Error::kInvalidArgument;
  for (std::size_t d = 0; d < rank; ++d)
    if (steps[d] == 0) return Error::kInvalidArgument;
  if (y_count == 0) return Error::kOk;
  std::int64_t x_stride[kMaxDims];
  strides_of(x_shape, x_stride);
  std::int64_t step[kMaxDims];  // in x elements per y index
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t dim = x_shape[d];
    std::int64_t last_index = 0;
    if (starts[d] < 0 || starts[d] >= dim ||
        __builtin_mul_overflow(y_shape[d] - 1, steps[d], &last_index) ||
        __builtin_add_overflow(last_index, starts[d], &last_index) || last_index < 0 ||
        last_index >= dim)
      return Error::kInvalidArgument;
    // A single taken element never steps, whatever (possibly huge) step.
    step[d] = y_shape[d] == 1 ? 0 : steps[d] * x_stride[d];
    offset += starts[d] * x_stride[d];
  }
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  if (rank == 0) {
    copy_one<N>(y, x);
    return Error::kOk;
  }
  const std::size_t last = rank - 1;
  const std::int64_t n = y_shape[last];
  std::int64_t index[kMaxDims] = {};
  for (std::int64_t r = 0; r < y_count / n; ++r, y += n * N) {
    copy_strided<N>(y, x + offset * N, step[last], n);
    next_index(
        index, y_shape.data(), last, [&](std::size_t d) { offset += step[d]; },
        [&](std::size_t d) { offset -= step[d] * y_shape[d]; });
  }
  return Error::kOk;
}

// --------------------------------------------------------------- Gather

bool gather_dims(Span<const std::int64_t> data_shape, Span<const std::int64_t> indices_shape,
                 std::int64_t axis, std::size_t* normalized_axis, Dims* out) {
  if (data_shape.empty() || data_shape.size() > kMaxDims || indices_shape.size() > kMaxDims ||
      !normalize_axis(axis, data_shape.size(), normalized_axis) ||
      data_shape.size() - 1 + indices_shape.size() > kMaxDims)
    return false;
  out->rank = 0;
  for (std::size_t i = 0; i < *normalized_axis; ++i) out->sizes[out->rank++] = data_shape[i];
  for (std::int64_t s : indices_shape) out->sizes[out->rank++] = s;
  for (std::size_t i = *normalized_axis + 1; i < data_shape.size(); ++i)
    out->sizes[out->rank++] = data_shape[i];
  return true;
}

// Each (outer, index) pair copies one contiguous data[axis+1:] slab.
template <std::int64_t N>
Error gather_impl(const Byte* data, Span<const std::int64_t> data_shape,
                  const std::int64_t* indices, Span<const std::int64_t> indices_shape,
                  std::int64_t axis, Byte* y) {
  std::size_t ax = 0;
  Dims out;
  std::int64_t data_count = 0;
  std::int64_t index_count = 0;
  std::int64_t y_count = 0;
  if (!gather_dims(data_shape, indices_shape, axis, &ax, &out) ||
      !count_elements(data_shape, N, &data_count) ||
      !count_elements(indices_shape, sizeof(std::int64_t), &index_count) ||
      !count_elements(out.span(), N, &y_count))
    return Error::kInvalidArgument;
  const std::int64_t axis_len = data_shape[ax];
  if (index_count > 0 && indices == nullptr) return Error::kInvalidArgument;
  for (std::int64_t i = 0; i < index_count; ++i)
    if (wrap_index(indices[i], axis_len) < 0) return Error::kInvalidArgument;
  if (y_count == 0) return Error::kOk;
  if (data == nullptr || y == nullptr) return Error::kInvalidArgument;
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= data_shape[i];
  for (std::size_t i = ax + 1; i < data_shape.size(); ++i) inner *= data_shape[i];
  const std::int64_t slab = inner * N;
  for (std::int64_t o = 0; o < outer; ++o) {
    const Byte* block = data + o * axis_len * slab;
    for (std::int64_t i = 0; i < index_count; ++i, y += slab) {
      const Byte* src = block + wrap_index(indices[i], axis_len) * slab;
      if (inner == 1) {
        copy_one<N>(y, src);
      } else {
        std::memcpy(y, src, static_cast<std::size_t>(slab));
      }
    }
  }
  return Error::kOk;
}

template <std::int64_t N>
Error gather_elements_impl(const Byte* data, Span<const std::int64_t> data_shape,
                           const std::int64_t* indices, Span<const std::int64_t> indices_shape,
                           std::int64_t axis, Byte* y) {
  const std::size_t rank = data_shape.size();
  std::size_t ax = 0;
  std::int64_t data_count = 0;
  std::int64_t y_count = 0;
  if (rank == 0 || indices_shape.size() != rank || !normalize_axis(axis, rank, &ax) ||
      !count_elements(data_shape, N, &data_count) ||
      // y and indices share a shape; 8 bytes per element covers both.
      !count_elements(indices_shape, sizeof(std::int64_t), &y_count))
    return Error::kInvalidArgument;
  for (std::size_t d = 0; d < rank; ++d)
    if (d != ax && indices_shape[d] > data_shape[d]) return Error::kInvalidArgument;
  if (y_count == 0) return Error::kOk;
  if (indices == nullptr) return Error::kInvalidArgument;
  const std::int64_t axis_len = data_shape[ax];
  for (std::int64_t i = 0; i < y_count; ++i)
    if (wrap_index(indices[i], axis_len) < 0) return Error::kInvalidArgument;
  if (data == nullptr || y == nullptr) return Error::kInvalidArgument;
  std::int64_t data_stride[kMaxDims];
  strides_of(data_shape, data_stride);
  // `base` is the data offset of the current row without the axis term;
  // the axis coordinate comes from the index instead.
  std::int64_t walk_stride[kMaxDims];
  for (std::size_t d = 0; d < rank; ++d) walk_stride[d] = d == ax ? 0 : data_stride[d];
  const std::size_t last = rank - 1;
  const std::int64_t n = indices_shape[last];
  const std::int64_t axis_stride = data_stride[ax];
  std::int64_t index[kMaxDims] = {};
  std::int64_t base = 0;
  for (std::int64_t r = 0; r < y_count / n; ++r) {
    for (std::int64_t i = 0; i < n; ++i, ++indices, y += N) {
      const std::int64_t along = wrap_index(*indices, axis_len) * axis_stride;
      copy_one<N>(y, data + (base + i * walk_stride[last] + along) * N);
    }
    next_index(
        index, indices_shape.data(), last, [&](std::size_t d) { base += walk_stride[d]; },
        [&](std::size_t d) { base -= walk_stride[d] * indices_shape[d]; });
  }
  return Error::kOk;
}

// ------------------------------------------------------------ ScatterND

template <std::int64_t N>
Error scatter_nd_impl(const Byte* data, Span<const std::int64_t> data_shape,
                      const std::int64_t* indices, Span<const std::int64_t> indices_shape,
                      const Byte* updates, Span<const std::int64_t> updates_shape,
                      ScatterReduction reduction, bool is_float, Byte* y) {
  const std::size_t r = data_shape.size();
  const std::size_t q = indices_shape.size();
  std::int64_t data_count = 0;
  std::int64_t index_count = 0;
  std::int64_t update_count = 0;
  if (r == 0 || q == 0 || !count_elements(data_shape, N, &data_count) ||
      !count_elements(indices_shape, sizeof(std::int64_t), &index_count) ||
      !count_elements(updates_shape, N, &update_count))
    return Error::kInvalidArgument;
  if (reduction != ScatterReduction::kNone && !(is_float && N == 4)) return Error::kInvalidArgument;
  const std::int64_t k = indices_shape[q - 1];
  if (k > static_cast<std::int64_t>(r)) return Error::kInvalidArgument;
  const auto tail = static_cast<std::size_t>(k);
  // updates_shape == indices_shape[:q-1] + data_shape[k:]
  if (updates_shape.size() != q - 1 + (r - tail)) return Error::kInvalidArgument;
  for (std::size_t i = 0; i + 1 < q; ++i)
    if (updates_shape[i] != indices_shape[i]) return Error::kInvalidArgument;
  for (std::size_t i = tail; i < r; ++i)
    if (updates_shape[q - 1 + i - tail] != data_shape[i]) return Error::kInvalidArgument;
  if (index_count > 0 && indices == nullptr) return Error::kInvalidArgument;
  // Tuples: k == 0 makes index_count 0 whatever the leading dims, so count
  // them from the leading dims instead.
  std::int64_t tuples = 1;
  for (std::size_t i = 0; i + 1 < q; ++i) tuples *= indices_shape[i];
  for (std::int64_t i = 0; i < index_count; ++i)
    if (wrap_index(indices[i], data_shape[static_cast<std::size_t>(i % k)]) < 0)
      return Error::kInvalidArgument;
  if (data_count == 0) return Error::kOk;
  if (data == nullptr || y == nullptr || (update_count > 0 && updates == nullptr))
    return Error::kInvalidArgument;
  if (y != data) std::memcpy(y, data, static_cast<std::size_t>(data_count * N));
  std::int64_t data_stride[kMaxDims];
  strides_of(data_shape, data_stride);
  std::int64_t slab = 1;  // elements each tuple addresses: data[k:]
  for (std::size_t i = tail; i < r; ++i) slab *= data_shape[i];
  for (std::int64_t t = 0; t < tuples; ++t) {
    std::int64_t offset = 0;
    for (std::size_t j = 0; j < tail; ++j)
      offset +=
          wrap_index(indices[t * k + static_cast<std::int64_t>(j)], data_shape[j]) * data_stride[j];
    Byte* dst = y + offset * N;
    const Byte* src = updates + t * slab * N;
    if (reduction == ScatterReduction::kNone) {
      std::memcpy(dst, src, static_cast<std::size_t>(slab * N));
      continue;
    }
    for (std::int64_t i = 0; i < slab; ++i) {
      float a;
      float b;
      std::memcpy(&a, dst + i * N, sizeof a);
      std::memcpy(&b, src + i * N, sizeof b);
      a = reduction == ScatterReduction::kAdd ? a + b : a * b;
      std::memcpy(dst + i * N, &a, sizeof a);
    }
  }
  return Error::kOk;
}

// ------------------------------------------- DepthToSpace, SpaceToDepth

bool block_area(std::int64_t blocksize, std::int64_t* area) {
  return blocksize >= 1 && !__builtin_mul_overflow(blocksize, blocksize, area);
}

// y rows are assembled from b interleaved x rows: for each (n, c, h, bh),
// x row (ic(bh, bw), h) lands at y row h*b + bh, columns w*b + bw.
template <std::int64_t N>
Error depth_to_space_impl(const Byte* x, Shape4 s, std::int64_t b, bool crd_mode, Byte* y) {
  Result<Shape4> out = depth_to_space_output_shape(s, b);
  std::int64_t count = 0;
  if (!out.ok() || !count_elements(s, N, &count)) return Error::kInvalidArgument;
  if (count == 0) return Error::kOk;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  const std::int64_t oc_count = out->c;
  const std::int64_t plane = s.h * s.w;
  for (std::int64_t n = 0; n < s.n; ++n) {
    for (std::int64_t c = 0; c < oc_count; ++c) {
      for (std::int64_t h = 0; h < s.h; ++h) {
        for (std::int64_t bh = 0; bh < b; ++bh, y += out->w * N) {
          for (std::int64_t bw = 0; bw < b; ++bw) {
            const std::int64_t ic = crd_mode ? (c * b + bh) * b + bw : (bh * b + bw) * oc_count + c;
            const Byte* src = x + ((n * s.c + ic) * plane + h * s.w) * N;
            for (std::int64_t w = 0; w < s.w; ++w) copy_one<N>(y + (w * b + bw) * N, src + w * N);
          }
        }
      }
    }
  }
  return Error::kOk;
}

template <std::int64_t N>
Error space_to_depth_impl(const Byte* x, Shape4 s, std::int64_t b, Byte* y) {
  Result<Shape4> out = space_to_depth_output_shape(s, b);
  std::int64_t count = 0;
  if (!out.ok() || !count_elements(s, N, &count)) return Error::kInvalidArgument;
  if (count == 0) return Error::kOk;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  for (std::int64_t n = 0; n < s.n; ++n) {
    for (std::int64_t bh = 0; bh < b; ++bh) {
      for (std::int64_t bw = 0; bw < b; ++bw) {
        for (std::int64_t c = 0; c < s.c; ++c) {
          for (std::int64_t h = 0; h < out->h; ++h, y += out->w * N) {
            const Byte* src = x + (((n * s.c + c) * s.h + h * b + bh) * s.w + bw) * N;
            copy_strided<N>(y, src, b, out->w);
          }
        }
      }
    }
  }
  return Error::kOk;
}

// --------------------------------------------------------------- Resize

// Input coordinate of output index o along one axis (ONNX
// coordinate_transformation_mode), in double so that ties such as x.5
// land where the spec's exact arithmetic puts them for the usual scales.
double source_coordinate(CoordinateTransform t, std::int64_t o, double scale, std::int64_t in_len,
                         std::int64_t out_len) {
  const auto od = static_cast<double>(o);
  switch (t) {
    case CoordinateTransform::kHalfPixel: return (od + 0.5) / scale - 0.5;
    case CoordinateTransform::kPytorchHalfPixel:
      return out_len > 1 ? (od + 0.5) / scale - 0.5 : 0.0;
    case CoordinateTransform::kAlignCorners:
      return out_len > 1 ? od * static_cast<double>(in_len - 1) / static_cast<double>(out_len - 1)
                         : 0.0;
    case CoordinateTransform::kAsymmetric: return od / scale;
    case CoordinateTransform::kTfHalfPixelForNn: return (od + 0.5) / scale;
  }
  return 0.0;
}

// Clamping to [-1, len] before flooring keeps the int64 conversion defined
// for any scale; the final index is clamped to [0, len-1] as ONNX does.
std::int64_t nearest_index(double coord, NearestRounding rounding, std::int64_t len) {
  const double bounded = std::fmin(std::fmax(coord, -1.0), static_cast<double>(len));
  const double whole = std::floor(bounded);
  const double frac = bounded - whole;
  auto i = static_cast<std::int64_t>(whole);
  switch (rounding) {
    case NearestRounding::kRoundPreferFloor: i += frac > 0.5 ? 1 : 0; break;
    case NearestRounding::kRoundPreferCeil: i += frac >= 0.5 ? 1 : 0; break;
    case NearestRounding::kFloor: break;
    case NearestRounding::kCeil: i += frac > 0.0 ? 1 : 0; break;
  }
  return i < 0 ? 0 : (i >= len ? len - 1 : i);
}

// Two neighbours and the weight of the second, for linear interpolation.
struct LinearTap {
  std::int64_t i0 = 0;
  std::int64_t i1 = 0;
  float weight = 0.0f;
};

LinearTap linear_tap(double coord, std::int64_t len) {
  const double clamped = std::fmin(std::fmax(coord, 0.0), static_cast<double>(len - 1));
  LinearTap tap;
  tap.i0 = static_cast<std::int64_t>(std::floor(clamped));
  tap.i1 = tap.i0 + 1 < len ? tap.i0 + 1 : tap.i0;
  tap.weight = static_cast<float>(clamped - static_cast<double>(tap.i0));
  return tap;
}

// Output columns are processed in chunks whose horizontal taps are computed
// once and reused for every plane and row (the per-row vertical tap is one
// computation per chunk row).
constexpr std::int64_t kResizeChunk = 64;

}  // namespace

// ------------------------------------------------------------ Public API

Result<Dims> pad_output_shape(Span<const std::int64_t> x_shape, Span<const std::int64_t> pads_begin,
                              Span<const std::int64_t> pads_end) {
  PadAxis axes[kMaxDims];
  if (!make_pad_axes(x_shape, pads_begin, pads_end, axes))
    return make_error(Error::kInvalidArgument, "pad: bad shape or pads");
  Dims out;
  out.rank = x_shape.size();
  for (std::size_t d = 0; d < out.rank; ++d) out.sizes[d] = axes[d].out;
  return out;
}

Error pad(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
          Span<const std::int64_t> pads_begin, Span<const std::int64_t> pads_end, PadMode mode,
          const void* constant_value, void* y) {
  PadAxis axes[kMaxDims];
  if (!make_pad_axes(x_shape, pads_begin, pads_end, axes)) return Error::kInvalidArgument;
  if (mode != PadMode::kConstant && mode != PadMode::kReflect && mode != PadMode::kEdge)
    return Error::kInvalidArgument;
  static constexpr Byte kZero[8] = {};
  const Byte* constant =
      constant_value != nullptr ? static_cast<const Byte*>(constant_value) : kZero;
  return with_element_size(element_size, [&](auto n) {
    return pad_impl<decltype(n)::value>(static_cast<const Byte*>(x), x_shape, axes, mode, constant,
                                        static_cast<Byte*>(y));
  });
}

Error expand(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
             Span<const std::int64_t> y_shape, void* y) {
  return with_element_size(element_size, [&](auto n) {
    return expand_impl<decltype(n)::value>(static_cast<const Byte*>(x), x_shape, y_shape,
                                           static_cast<Byte*>(y));
  });
}

Result<Dims> tile_output_shape(Span<const std::int64_t> x_shape, Span<const std::int64_t> repeats) {
  Dims out;
  if (!tile_dims(x_shape, repeats, &out))
    return make_error(Error::kInvalidArgument, "tile: bad shape or repeats");
  return out;
}

Error tile(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
           Span<const std::int64_t> repeats, void* y) {
  return with_element_size(element_size, [&](auto n) {
    return tile_impl<decltype(n)::value>(static_cast<const Byte*>(x), x_shape, repeats,
                                         static_cast<Byte*>(y));
  });
}

Error slice_bounds(std::int64_t dim, std::int64_t start, std::int64_t end, std::int64_t step,
                   std::int64_t* clamped_start, std::int64_t* count) {
  if (dim < 0 || step == 0 || clamped_start == nullptr || count == nullptr)
    return Error::kInvalidArgument;
  // dim >= 0, so adding it to a negative value cannot overflow.
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  auto clamp = [](std::int64_t v, std::int64_t lo, std::int64_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
  };
  if (dim == 0) {
    *clamped_start = 0;
    *count = 0;
    return Error::kOk;
  }
  std::int64_t distance = 0;  // elements between start and end, step's way
  if (step > 0) {
    start = clamp(start, 0, dim);
    end = clamp(end, 0, dim);
    distance = end - start;
  } else {
    start = clamp(start, 0, dim - 1);
    end = clamp(end, -1, dim - 1);
    distance = start - end;
  }
  // |step| in unsigned, since -INT64_MIN does not fit int64.
  const std::uint64_t magnitude =
      step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  *clamped_start = start;
  *count =
      distance <= 0
          ? 0
          : static_cast<std::int64_t>(1 + (static_cast<std::uint64_t>(distance) - 1) / magnitude);
  return Error::kOk;
}

Error slice(const void* x, Span<const std::int64_t> x_shape, std::size_t element_size,
            Span<const std::int64_t> starts, Span<const std::int64_t> steps,
            Span<const std::int64_t> y_shape, void* y) {
  return with_element_size(element_size, [&](auto n) {
    return slice_impl<decltype(n)::value>(static_cast<const Byte*>(x), x_shape, starts, steps,
                                          y_shape, static_cast<Byte*>(y));
  });
}

Result<Dims> gather_output_shape(Span<const std::int64_t> data_shape,
                                 Span<const std::int64_t> indices_shape, std::int64_t axis) {
  std::size_t ax = 0;
  Dims out;
  if (!gather_dims(data_shape, indices_shape, axis, &ax, &out))
    return make_error(Error::kInvalidArgument, "gather: bad shape or axis");
  return out;
}

Error gather(const void* data, Span<const std::int64_t> data_shape, std::size_t element_size,
             const std::int64_t* indices, Span<const std::int64_t> indices_shape, std::int64_t axis,
             void* y) {
  return with_element_size(element_size, [&](auto n) {
    return gather_impl<decltype(n)::value>(static_cast<const Byte*>(data), data_shape, indices,
                                           indices_shape, axis, static_cast<Byte*>(y));
  });
}

Error gather_elements(const void* data, Span<const std::int64_t> data_shape,
                      std::size_t element_size, const std::int64_t* indices,
                      Span<const std::int64_t> indices_shape, std::int64_t axis, void* y) {
  return with_element_size(element_size, [&](auto n) {
    return gather_elements_impl<decltype(n)::value>(static_cast<const Byte*>(data), data_shape,
                                                    indices, indices_shape, axis,
                                                    static_cast<Byte*>(y));
  });
}

Error scatter_nd(const void* data, Span<const std::int64_t> data_shape, std::size_t element_size,
                 const std::int64_t* indices, Span<const std::int64_t> indices_shape,
                 const void* updates, Span<const std::int64_t> updates_shape,
                 ScatterReduction reduction, bool is_float, void* y) {
  if (reduction != ScatterReduction::kNone && reduction != ScatterReduction::kAdd &&
      reduction != ScatterReduction::kMul)
    return Error::kInvalidArgument;
  return with_element_size(element_size, [&](auto n) {
    return scatter_nd_impl<decltype(n)::value>(static_cast<const Byte*>(data), data_shape, indices,
                                               indices_shape, static_cast<const Byte*>(updates),
                                               updates_shape, reduction, is_float,
                                               static_cast<Byte*>(y));
  });
}

Result<Shape4> depth_to_space_output_shape(Shape4 x, std::int64_t blocksize) {
  std::int64_t area = 0;
  Shape4 out{x.n, 0, 0, 0};
  if (x.n < 0 || x.c < 0 || x.h < 0 || x.w < 0 || !block_area(blocksize, &area) ||
      x.c % area != 0 || __builtin_mul_overflow(x.h, blocksize, &out.h) ||
      __builtin_mul_overflow(x.w, blocksize, &out.w))
    return make_error(Error::kInvalidArgument, "depth_to_space: bad shape");
  out.c = x.c / area;
  return out;
}

Error depth_to_space(const void* x, Shape4 x_shape, std::size_t element_size,
                     std::int64_t blocksize, bool crd_mode, void* y) {
  return with_element_size(element_size, [&](auto n) {
    return depth_to_space_impl<decltype(n)::value>(static_cast<const Byte*>(x), x_shape, blocksize,
                                                   crd_mode, static_cast<Byte*>(y));
  });
}

Result<Shape4> space_to_depth_output_shape(Shape4 x, std::int64_t blocksize) {
  std::int64_t area = 0;
  Shape4 out{x.n, 0, 0, 0};
  if (x.n < 0 || x.c < 0 || x.h < 0 || x.w < 0 || !block_area(blocksize, &area) ||
      x.h % blocksize != 0 || x.w % blocksize != 0 || __builtin_mul_overflow(x.c, area, &out.c))
    return make_error(Error::kInvalidArgument, "space_to_depth: bad shape");
  out.h = x.h / blocksize;
  out.w = x.w / blocksize;
  return out;
}

Error space_to_depth(const void* x, Shape4 x_shape, std::size_t element_size,
                     std::int64_t blocksize, void* y) {
  return with_element_size(element_size, [&](auto n) {
    return space_to_depth_impl<decltype(n)::value>(static_cast<const Byte*>(x), x_shape, blocksize,
                                                   static_cast<Byte*>(y));
  });
}

Error resize(const float* x, Shape4 x_shape, Shape4 y_shape, ResizeMode mode,
             CoordinateTransform transform, NearestRounding rounding, const float* scales_hw,
             float* y) {
  std::int64_t x_count = 0;
  std::int64_t y_count = 0;
  if (!count_elements(x_shape, sizeof(float), &x_count) ||
      !count_elements(y_shape, sizeof(float), &y_count) || x_shape.n != y_shape.n ||
      x_shape.c != y_shape.c)
    return Error::kInvalidArgument;
  if (mode != ResizeMode::kNearest && mode != ResizeMode::kLinear) return Error::kInvalidArgument;
  if (transform != CoordinateTransform::kHalfPixel &&
      transform != CoordinateTransform::kPytorchHalfPixel &&
      transform != CoordinateTransform::kAlignCorners &&
      transform != CoordinateTransform::kAsymmetric &&
      transform != CoordinateTransform::kTfHalfPixelForNn)
    return Error::kInvalidArgument;
  if (rounding != NearestRounding::kRoundPreferFloor &&
      rounding != NearestRounding::kRoundPreferCeil && rounding != NearestRounding::kFloor &&
      rounding != NearestRounding::kCeil)
    return Error::kInvalidArgument;
  double scale_h = 0.0;
  double scale_w = 0.0;
  if (scales_hw != nullptr) {
    scale_h = scales_hw[0];
    scale_w = scales_hw[1];
    if (!(scale_h > 0.0) || !(scale_w > 0.0) || !std::isfinite(scale_h) || !std::isfinite(scale_w))
      return Error::kInvalidArgument;
  }
  if (y_count == 0) return Error::kOk;
  // Every output pixel samples the input, so it must have pixels.
  if (x_shape.h == 0 || x_shape.w == 0) return Error::kInvalidArgument;
  if (x == nullptr || y == nullptr) return Error::kInvalidArgument;
  if (scales_hw == nullptr) {
    scale_h = static_cast<double>(y_shape.h) / static_cast<double>(x_shape.h);
    scale_w = static_cast<double>(y_shape.w) / static_cast<double>(x_shape.w);
  }
  const std::int64_t planes = x_shape.n * x_shape.c;
  const std::int64_t in_plane = x_shape.h * x_shape.w;
  const std::int64_t out_plane = y_shape.h * y_shape.w;
  for (std::int64_t w0 = 0; w0 < y_shape.w; w0 += kResizeChunk) {
    const std::int64_t cols = y_shape.w - w0 < kResizeChunk ? y_shape.w - w0 : kResizeChunk;
    LinearTap taps[kResizeChunk];
    for (std::int64_t j = 0; j < cols; ++j) {
      const double coord = source_coordinate(transform, w0 + j, scale_w, x_shape.w, y_shape.w);
      if (mode == ResizeMode::kNearest) {
        taps[j].i0 = nearest_index(coord, rounding, x_shape.w);
      } else {
        taps[j] = linear_tap(coord, x_shape.w);
      }
    }
    for (std::int64_t p = 0; p < planes; ++p) {
      const float* in = x + p * in_plane;
      float* out = y + p * out_plane + w0;
      for (std::int64_t oh = 0; oh < y_shape.h; ++oh, out += y_shape.w) {
        const double coord = source_coordinate(transform, oh, scale_h, x_shape.h, y_shape.h);
        if (mode == ResizeMode::kNearest) {
          const float* row = in + nearest_index(coord, rounding, x_shape.h) * x_shape.w;
          for (std::int64_t j = 0; j < cols; ++j) out[j] = row[taps[j].i0];
          continue;
        }
        const LinearTap v = linear_tap(coord, x_shape.h);
        const float* top = in + v.i0 * x_shape.w;
        const float* bottom = in + v.i1 * x_shape.w;
        for (std::int64_t j = 0; j < cols; ++j) {
          const LinearTap& t = taps[j];
          const float upper = (1.0f - t.weight) * top[t.i0] + t.weight * top[t.i1];
          const float lower = (1.0f - t.weight) * bottom[t.i0] + t.weight * bottom[t.i1];
          out[j] = (1.0f - v.weight) * upper + v.weight * lower;
        }
      }
    }
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

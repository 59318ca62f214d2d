#include "frontends/onnx/constant_folding.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::shape_string;
using aot::ValueId;
using Shape = std::vector<std::int64_t>;

// Folded tensors are shape arithmetic, or at most a weight: far below this.
constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 28;

Status invalid(const std::string& message) { return Status(Error::kInvalidArgument, message); }

StatusOr<std::int64_t> checked_numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kMaxFoldedElements) {
      return invalid("shape " + shape_string(shape) + " is negative or too large to fold");
    }
  }
  return n;
}

// Row-major strides of `shape`, with 0 for dims broadcast to `out`.
Shape broadcast_strides(const Shape& shape, const Shape& out) {
  Shape strides(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::size_t d = shape.size() - 1 - i;
    const std::size_t o = out.size() - 1 - i;
    strides[o] = shape[d] == 1 ? 0 : stride;
    stride *= shape[d];
  }
  return strides;
}

// Calls f(out_index, a_index, b_index) for every element of `out`.
template <typename F>
void for_each_broadcast(const Shape& out, const Shape& sa, const Shape& sb, F f) {
  std::int64_t numel = 1;
  for (std::int64_t d : out) numel *= d;
  Shape index(out.size(), 0);
  for (std::int64_t flat = 0; flat < numel; ++flat) {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < out.size(); ++d) {
      ia += index[d] * sa[d];
      ib += index[d] * sb[d];
    }
    f(flat, ia, ib);
    for (std::size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace

std::int64_t clamp_slice_index(std::int64_t v, std::int64_t dim, std::int64_t step) {
  if (v < 0) v = v < -dim ? -1 : v + dim;  // INT64_MIN-safe.
  return step > 0 ? std::clamp<std::int64_t>(v, 0, dim) : std::clamp<std::int64_t>(v, -1, dim - 1);
}

StatusOr<std::size_t> normalize_axis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) {
    return invalid("axis " + std::to_string(axis) + " out of range for rank " +
                   std::to_string(rank));
  }
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

StatusOr<HostTensor> fold_binary(std::string_view op, const HostTensor& a, const HostTensor& b) {
  Shape out(std::max(a.shape.size(), b.shape.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t da = i < a.shape.size() ? a.shape[a.shape.size() - 1 - i] : 1;
    const std::int64_t db = i < b.shape.size() ? b.shape[b.shape.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      return invalid("shapes " + shape_string(a.shape) + " and " + shape_string(b.shape) +
                     " do not broadcast");
    }
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t numel, checked_numel(out));
  const Shape sa = broadcast_strides(a.shape, out);
  const Shape sb = broadcast_strides(b.shape, out);
  const auto n = static_cast<std::size_t>(numel);
  if (a.is_float || b.is_float) {
    std::vector<float> data(n);
    for_each_broadcast(out, sa, sb, [&](std::int64_t o, std::int64_t ia, std::int64_t ib) {
      const double x = a.as_double(static_cast<std::size_t>(ia));
      const double y = b.as_double(static_cast<std::size_t>(ib));
      const double r = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y;
      data[static_cast<std::size_t>(o)] = static_cast<float>(r);
    });
    return HostTensor::of_floats(out, std::move(data));
  }
  std::vector<std::int64_t> data(n);
  bool divide_by_zero = false;
  for_each_broadcast(out, sa, sb, [&](std::int64_t o, std::int64_t ia, std::int64_t ib) {
    const std::int64_t x = a.ints[static_cast<std::size_t>(ia)];
    const std::int64_t y = b.ints[static_cast<std::size_t>(ib)];
    std::int64_t r = 0;
    // Shape arithmetic stays far from overflow; wrap instead of UB anyway.
    if (op == "Add") {
      __builtin_add_overflow(x, y, &r);
    } else if (op == "Sub") {
      __builtin_sub_overflow(x, y, &r);
    } else if (op == "Mul") {
      __builtin_mul_overflow(x, y, &r);
    } else if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min())) {
      divide_by_zero = true;
    } else {
      r = x / y;
    }
    data[static_cast<std::size_t>(o)] = r;
  });
  if (divide_by_zero) return invalid("integer division by zero (or overflow) while folding");
  return HostTensor::of_ints(out, std::move(data));
}

StatusOr<HostTensor> fold_transpose(const HostTensor& x, const Shape& perm) {
  const std::size_t rank = x.shape.size();
  if (perm.size() != rank)
    return invalid("perm " + shape_string(perm) + " does not match rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<std::int64_t>(rank) ||
        seen[static_cast<std::size_t>(perm[i])]) {
      return invalid("perm " + shape_string(perm) + " is not a permutation");
    }
    seen[static_cast<std::size_t>(perm[i])] = true;
    out[i] = x.shape[static_cast<std::size_t>(perm[i])];
  }
  // Input strides, permuted: walking the output in order reads these.
  Shape in_strides(rank, 1);
  for (std::size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * x.shape[d];
  Shape strides(rank);
  for (std::size_t i = 0; i < rank; ++i) strides[i] = in_strides[static_cast<std::size_t>(perm[i])];
  HostTensor result = x;
  result.shape = out;
  const Shape zero(rank, 0);
  for_each_broadcast(out, strides, zero, [&](std::int64_t o, std::int64_t i, std::int64_t) {
    if (x.is_float) {
      result.floats[static_cast<std::size_t>(o)] = x.floats[static_cast<std::size_t>(i)];
    } else {
      result.ints[static_cast<std::size_t>(o)] = x.ints[static_cast<std::size_t>(i)];
    }
  });
  return result;
}

StatusOr<HostTensor> fold_concat(const std::vector<const HostTensor*>& xs, std::int64_t axis_attr) {
  if (xs.empty()) return invalid("concat of no tensors");
  const HostTensor& first = *xs[0];
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, normalize_axis(axis_attr, first.shape.size()));
  Shape out = first.shape;
  out[axis] = 0;
  for (const HostTensor* x : xs) {
    if (x->is_float != first.is_float || x->shape.size() != out.size()) {
      return invalid("concat inputs differ in kind or rank");
    }
    for (std::size_t d = 0; d < out.size(); ++d) {
      if (d != axis && x->shape[d] != out[d]) return invalid("concat inputs differ off the axis");
    }
    out[axis] += x->shape[axis];
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t numel, checked_numel(out));
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= out[d];
  HostTensor result =
      first.is_float ? HostTensor::of_floats(out, {}) : HostTensor::of_ints(out, {});
  result.floats.reserve(first.is_float ? static_cast<std::size_t>(numel) : 0);
  result.ints.reserve(first.is_float ? 0 : static_cast<std::size_t>(numel));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (const HostTensor* x : xs) {
      const std::int64_t chunk = outer == 0 ? 0 : x->numel() / outer;
      const auto begin = static_cast<std::size_t>(o * chunk);
      const auto end = static_cast<std::size_t>((o + 1) * chunk);
      if (x->is_float) {
        result.floats.insert(result.floats.end(),
                             x->floats.begin() + static_cast<std::ptrdiff_t>(begin),
                             x->floats.begin() + static_cast<std::ptrdiff_t>(end));
      } else {
        result.ints.insert(result.ints.end(), x->ints.begin() + static_cast<std::ptrdiff_t>(begin),
                           x->ints.begin() + static_cast<std::ptrdiff_t>(end));
      }
    }
  }
  return result;
}

StatusOr<HostTensor> fold_gather(const HostTensor& data, const HostTensor& indices,
                                 std::int64_t axis_attr) {
  if (indices.is_float) return invalid("Gather indices must be integers");
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, normalize_axis(axis_attr, data.shape.size()));
  Shape out(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
             data.shape.end());
  GLASSBOX_RETURN_IF_ERROR(checked_numel(out));
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= data.shape[d];
  for (std::size_t d = axis + 1; d < data.shape.size(); ++d) inner *= data.shape[d];
  const std::int64_t extent = data.shape[axis];
  HostTensor result = data.is_float ? HostTensor::of_floats(out, {}) : HostTensor::of_ints(out, {});
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t index : indices.ints) {
      if (index < -extent || index >= extent) {
        return invalid("Gather index " + std::to_string(index) + " out of range for extent " +
                       std::to_string(extent));
      }
      if (index < 0) index += extent;
      const auto base = static_cast<std::size_t>((o * extent + index) * inner);
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::size_t at = base + static_cast<std::size_t>(i);
        if (data.is_float) {
          result.floats.push_back(data.floats[at]);
        } else {
          result.ints.push_back(data.ints[at]);
        }
      }
    }
  }
  return result;
}

StatusOr<HostTensor> fold_reshape(HostTensor x, Shape shape) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t numel, checked_numel(shape));
  if (numel != x.numel()) {
    return invalid("cannot reshape " + shape_string(x.shape) + " to " + shape_string(shape));
  }
  x.shape = std::move(shape);
  return x;
}

namespace {

// Folds a node's failure into its label.
template <typename T>
StatusOr<T> at_node(const ImportContext& c, StatusOr<T> r) {
  if (r.ok()) return r;
  return c.invalid(r.message());
}

// Shape (opset 15 adds start/end): the static shape of any input.
Status convert_shape(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(ShapeRange range, shape_range(c, shape.size()));
  Shape dims(shape.begin() + range.start, shape.begin() + range.end);
  c.set_output(0, HostTensor::of_ints({static_cast<std::int64_t>(dims.size())}, dims));
  return Status();
}

// Size: the element count of any input, known from its static shape.
Status convert_size(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t numel, at_node(c, checked_numel(shape)));
  c.set_output(0, HostTensor::of_ints({}, {numel}));
  return Status();
}

Status convert_gather(ImportContext& c) {
  if (!c.is_host(0) || !c.is_host(1)) return convert_runtime_gather(c);
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* data, c.host_input(0, "Gather's data"));
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* indices, c.host_input(1, "Gather's indices"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, c.attributes().get_int("axis", 0));
  GLASSBOX_ASSIGN_OR_RETURN(HostTensor out, at_node(c, fold_gather(*data, *indices, axis)));
  c.set_output(0, std::move(out));
  return Status();
}

// Slice-10+ (starts/ends/axes/steps as inputs) on a host tensor.
Status convert_slice(ImportContext& c) {
  if (!c.is_host(0)) return convert_runtime_slice(c);
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* data, c.host_input(0, "Slice's data"));
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* starts, c.host_input(1, "Slice's starts"));
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* ends, c.host_input(2, "Slice's ends"));
  const std::size_t rank = data->shape.size();
  const std::size_t n = static_cast<std::size_t>(starts->numel());
  if (ends->numel() != starts->numel()) return c.invalid("starts and ends differ in length");
  std::vector<std::int64_t> axes(n), steps(n, 1);
  for (std::size_t i = 0; i < n; ++i) axes[i] = static_cast<std::int64_t>(i);
  if (c.has_input(3)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* a, c.host_input(3, "Slice's axes"));
    if (static_cast<std::size_t>(a->numel()) != n) return c.invalid("axes differ in length");
    for (std::size_t i = 0; i < n; ++i) axes[i] = a->as_int(i);
  }
  if (c.has_input(4)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* s, c.host_input(4, "Slice's steps"));
    if (static_cast<std::size_t>(s->numel()) != n) return c.invalid("steps differ in length");
    for (std::size_t i = 0; i < n; ++i) steps[i] = s->as_int(i);
  }
  // One gather per sliced axis with the explicit index list.
  HostTensor result = *data;
  for (std::size_t i = 0; i < n; ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, at_node(c, normalize_axis(axes[i], rank)));
    const std::int64_t dim = data->shape[axis];
    const std::int64_t step = steps[i];
    if (step == 0) return c.invalid("Slice step is 0");
    const std::int64_t start = clamp_slice_index(starts->as_int(i), dim, step);
    const std::int64_t end = clamp_slice_index(ends->as_int(i), dim, step);
    std::vector<std::int64_t> picked;
    for (std::int64_t j = start; step > 0 ? j < end : j > end; j += step) picked.push_back(j);
    const auto count = static_cast<std::int64_t>(picked.size());
    GLASSBOX_ASSIGN_OR_RETURN(
        result, at_node(c, fold_gather(result, HostTensor::of_ints({count}, std::move(picked)),
                                       static_cast<std::int64_t>(axis))));
  }
  c.set_output(0, std::move(result));
  return Status();
}

// ConstantOfShape(Shape(x)) of an x sized by data (torch.full_like and
// its kin): the IR's full_like, which follows x's actual sizes.
Status convert_full_like(ImportContext& c, ValueId x) {
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<HostTensor> value, c.attributes().get_tensor("value"));
  const bool is_float = !value || value->is_float;
  const double fill = !value || value->numel() != 1 ? 0.0 : value->as_double(0);
  const ScalarType dtype = is_float ? ScalarType::kFloat : value->dtype();
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kFullLike, {x},
                                   {{"value", fill}, {"dtype", static_cast<std::int64_t>(dtype)}}));
  c.set_output(0, y);
  return Status();
}

Status convert_constant_of_shape(ImportContext& c) {
  if (!c.is_host(0)) {
    GLASSBOX_ASSIGN_OR_RETURN(const Operand* shape, c.input(0));
    if (const ShapeValue* computed = c.shape_values().of(std::get<ValueId>(*shape))) {
      if (std::optional<ValueId> x = shape_source(*computed, c)) return convert_full_like(c, *x);
      return c.unsupported(
          "a shape computed at run time that is not one value's shape (only "
          "ConstantOfShape(Shape(x)) follows data)");
    }
  }
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* shape_input,
                            c.host_input(0, "ConstantOfShape's shape"));
  Shape shape(shape_input->ints.begin(), shape_input->ints.end());
  if (shape_input->is_float) return c.invalid("shape must be int64");
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t numel, at_node(c, checked_numel(shape)));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<HostTensor> value, c.attributes().get_tensor("value"));
  const auto n = static_cast<std::size_t>(numel);
  if (!value || value->is_float) {
    const float fill = value && value->numel() == 1 ? value->floats[0] : 0.0f;
    c.set_output(0, HostTensor::of_floats(shape, std::vector<float>(n, fill)));
  } else {
    const std::int64_t fill = value->numel() == 1 ? value->ints[0] : 0;
    c.set_output(0, HostTensor::of_ints(shape, std::vector<std::int64_t>(n, fill)));
  }
  return Status();
}

Status convert_range(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* start, c.host_input(0, "Range's start"));
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* limit, c.host_input(1, "Range's limit"));
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* delta, c.host_input(2, "Range's delta"));
  if (start->numel() != 1 || limit->numel() != 1 || delta->numel() != 1) {
    return c.invalid("start, limit and delta must be scalars");
  }
  const double s = start->as_double(0), l = limit->as_double(0), d = delta->as_double(0);
  if (d == 0) return c.invalid("Range delta is 0");
  const double count = std::max(0.0, std::ceil((l - s) / d));
  if (!(count < static_cast<double>(kMaxFoldedElements)))
    return c.invalid("Range too long to fold");
  const auto n = static_cast<std::int64_t>(count);
  if (start->is_float) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(i)] = static_cast<float>(s + static_cast<double>(i) * d);
    c.set_output(0, HostTensor::of_floats({n}, std::move(v)));
  } else {
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(i)] = start->ints[0] + i * delta->ints[0];
    c.set_output(0, HostTensor::of_ints({n}, std::move(v)));
  }
  return Status();
}

}  // namespace

StatusOr<ShapeRange> shape_range(ImportContext& c, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t start, attrs.get_int("start", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t end, attrs.get_int("end", r));
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<std::int64_t>(start, 0, r);
  return ShapeRange{start, std::clamp<std::int64_t>(end, start, r)};
}

void add_folding_converters(ConverterTable* table) {
  table->emplace("ConstantOfShape", convert_constant_of_shape);
  table->emplace("Gather", convert_gather);
  table->emplace("Range", convert_range);
  table->emplace("Shape", convert_shape);
  table->emplace("Size", convert_size);
  table->emplace("Slice", convert_slice);
}

}  // namespace glassbox::frontends::onnx

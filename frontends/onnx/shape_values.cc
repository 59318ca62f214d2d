#include "frontends/onnx/shape_values.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <string>

#include "frontends/onnx/constant_folding.h"
#include "frontends/onnx/converters.h"
#include "frontends/onnx/import_context.h"
#include "glassbox/aot/ops.h"

namespace glassbox::frontends::onnx {
namespace {

using Shape = std::vector<std::int64_t>;

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s) n *= d;
  return n;
}

ShapeValue known(Shape shape, const std::vector<std::int64_t>& values) {
  ShapeValue v{std::move(shape), {}};
  for (std::int64_t x : values) v.entries.push_back({x, true, {}, 0});
  return v;
}

// The ints of host input i (an error when it is not one).
StatusOr<Shape> host_ints(ImportContext& c, std::size_t i, const std::string& what) {
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* t, c.host_input(i, what));
  if (t->is_float) return c.invalid(what + " must be integers");
  return t->ints;
}

StatusOr<std::size_t> axis_in(ImportContext& c, std::int64_t axis, std::size_t rank) {
  StatusOr<std::size_t> normalised = normalize_axis(axis, rank);
  if (!normalised.ok()) return c.invalid(normalised.message());
  return normalised;
}

// ONNX Slice of a 1-D list along its one axis.
StatusOr<ShapeValue> slice_entries(ImportContext& c, const ShapeValue& data) {
  if (data.shape.size() != 1) return c.unsupported("a slice of a shape value of rank above 1");
  GLASSBOX_ASSIGN_OR_RETURN(Shape starts, host_ints(c, 1, "Slice's starts"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape ends, host_ints(c, 2, "Slice's ends"));
  Shape steps{1};
  if (c.has_input(4)) {
    GLASSBOX_ASSIGN_OR_RETURN(steps, host_ints(c, 4, "Slice's steps"));
  }
  if (starts.size() != 1 || ends.size() != 1 || steps.size() != 1 || steps[0] == 0) {
    return c.invalid("a slice of a 1-D value takes one start, end and non-zero step");
  }
  const auto dim = static_cast<std::int64_t>(data.entries.size());
  const std::int64_t step = steps[0];
  const std::int64_t end = clamp_slice_index(ends[0], dim, step);
  ShapeValue out;
  for (std::int64_t j = clamp_slice_index(starts[0], dim, step); step > 0 ? j < end : j > end;
       j += step) {
    out.entries.push_back(data.entries[static_cast<std::size_t>(j)]);
  }
  out.shape = {static_cast<std::int64_t>(out.entries.size())};
  return out;
}

// Min or max of entries: folded when all are known, else only bounded.
ShapeEntry extreme(const std::vector<ShapeEntry>& entries, bool is_min) {
  ShapeEntry e{0, true, {}, 0};
  bool first = true;
  for (const ShapeEntry& x : entries) {
    e.value = first ? x.value : is_min ? std::min(e.value, x.value) : std::max(e.value, x.value);
    e.known = e.known && x.known;
    first = false;
  }
  // Unknown: min(k, n <= b) <= min(k, b) and max(k, n <= b) <= max(k, b),
  // so the same fold of values and bounds bounds it.
  return e;
}

}  // namespace

bool ShapeValue::all_known() const {
  return std::all_of(entries.begin(), entries.end(), [](const ShapeEntry& e) { return e.known; });
}

const ShapeValue* ShapeValues::of(aot::ValueId id) const {
  auto it = values_.find(id);
  return it == values_.end() ? nullptr : &it->second;
}

std::optional<ShapeValue> ShapeValues::input(ImportContext& c, std::size_t i) const {
  if (!c.has_input(i)) return std::nullopt;
  StatusOr<const Operand*> operand = c.input(i);
  if (!operand.ok()) return std::nullopt;
  if (const auto* host = std::get_if<HostTensor>(*operand)) {
    if (host->is_float || host->shape.size() > 1) return std::nullopt;
    return known(host->shape, host->ints);
  }
  const ShapeValue* v = of(std::get<aot::ValueId>(**operand));
  if (v == nullptr) return std::nullopt;
  return *v;
}

StatusOr<std::optional<ShapeValue>> ShapeValues::compute(ImportContext& c) const {
  const std::string& op = c.node().op_type();
  // Only ops on a value already held here (a host input alone folds as
  // before): map lookups, before any entries are copied.
  bool any_held = false;
  for (std::size_t i = 0; i < c.num_inputs() && !any_held; ++i) {
    StatusOr<const Operand*> operand =
        c.has_input(i) ? c.input(i) : StatusOr<const Operand*>(nullptr);
    if (!operand.ok() || *operand == nullptr) continue;
    if (const auto* id = std::get_if<aot::ValueId>(*operand)) any_held = of(*id) != nullptr;
  }
  if (!any_held) return std::optional<ShapeValue>();
  std::optional<ShapeValue> data = input(c, 0);
  if (!data) return std::optional<ShapeValue>();
  if (op == "Identity") return data;
  if (op == "Cast") {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t to, c.attributes().get_int("to", 0));
    if (to != ::onnx::TensorProto::INT64) return std::optional<ShapeValue>();
    return data;
  }
  if (op == "Gather") {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, c.attributes().get_int("axis", 0));
    if (data->shape.size() != 1 || (axis != 0 && axis != -1) || !c.is_host(1)) {
      return std::optional<ShapeValue>();
    }
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* indices, c.host_input(1, "Gather's indices"));
    if (indices->is_float) return c.invalid("indices must be integers");
    ShapeValue out{indices->shape, {}};
    const auto n = static_cast<std::int64_t>(data->entries.size());
    for (std::int64_t i : indices->ints) {
      if (i < -n || i >= n) return c.invalid("index " + std::to_string(i) + " out of range");
      out.entries.push_back(data->entries[static_cast<std::size_t>(i < 0 ? i + n : i)]);
    }
    return std::optional<ShapeValue>(std::move(out));
  }
  if (op == "Unsqueeze") {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> axes, axes_of(c));
    if (!axes) return c.invalid("axes are required");
    const std::size_t rank = data->shape.size() + axes->size();
    std::vector<bool> inserted(rank, false);
    for (std::int64_t a : *axes) {
      GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, axis_in(c, a, rank));
      inserted[axis] = true;
    }
    Shape shape;
    std::size_t next = 0;
    for (std::size_t d = 0; d < rank; ++d) shape.push_back(inserted[d] ? 1 : data->shape[next++]);
    data->shape = std::move(shape);
    return data;
  }
  if (op == "Squeeze") {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> axes, axes_of(c));
    std::vector<bool> removed(data->shape.size(), !axes.has_value());
    if (axes) {
      for (std::int64_t a : *axes) {
        GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, axis_in(c, a, data->shape.size()));
        removed[axis] = true;
      }
    }
    Shape shape;
    for (std::size_t d = 0; d < data->shape.size(); ++d) {
      if (!removed[d] || data->shape[d] != 1) shape.push_back(data->shape[d]);
    }
    data->shape = std::move(shape);
    return data;
  }
  if (op == "Reshape") {
    if (!c.is_host(1)) return std::optional<ShapeValue>();
    GLASSBOX_ASSIGN_OR_RETURN(Shape target, host_ints(c, 1, "Reshape's shape"));
    const std::int64_t n = numel(data->shape);
    std::int64_t rest = 1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] == 0 && i < data->shape.size()) target[i] = data->shape[i];
      if (target[i] < -1 || (target[i] != -1 && __builtin_mul_overflow(rest, target[i], &rest))) {
        return c.invalid("cannot reshape the shape value");
      }
    }
    for (std::int64_t& t : target) {
      if (t == -1) t = rest == 0 ? 0 : n / rest;
    }
    std::int64_t total = 1;
    for (std::int64_t t : target) {
      if (__builtin_mul_overflow(total, t, &total))
        return c.invalid("cannot reshape the shape value");
    }
    if (total != n) return c.invalid("cannot reshape the shape value");
    data->shape = std::move(target);
    return data;
  }
  if (op == "Concat") {
    ShapeValue out;
    for (std::size_t i = 0; i < c.num_inputs(); ++i) {
      std::optional<ShapeValue> part = input(c, i);
      if (!part || part->shape.size() != 1) return std::optional<ShapeValue>();
      out.entries.insert(out.entries.end(), part->entries.begin(), part->entries.end());
    }
    out.shape = {static_cast<std::int64_t>(out.entries.size())};
    return std::optional<ShapeValue>(std::move(out));
  }
  if (op == "Slice") {
    GLASSBOX_ASSIGN_OR_RETURN(ShapeValue out, slice_entries(c, *data));
    return std::optional<ShapeValue>(std::move(out));
  }
  if (op == "ReduceMin" || op == "ReduceMax") {
    // Of a list (rank 0 or 1: over everything); keepdims keeps its rank.
    if (data->shape.size() > 1) return std::optional<ShapeValue>();
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t keepdims, c.attributes().get_int("keepdims", 1));
    ShapeValue out{keepdims != 0 ? Shape(data->shape.size(), 1) : Shape{},
                   {extreme(data->entries, op == "ReduceMin")}};
    return std::optional<ShapeValue>(std::move(out));
  }
  if (op == "Min" || op == "Max") {
    std::vector<ShapeEntry> all;
    for (std::size_t i = 0; i < c.num_inputs(); ++i) {
      std::optional<ShapeValue> part = input(c, i);
      if (!part || part->entries.size() != 1) return std::optional<ShapeValue>();
      all.push_back(part->entries[0]);
    }
    return std::optional<ShapeValue>(ShapeValue{data->shape, {extreme(all, op == "Min")}});
  }
  return std::optional<ShapeValue>();
}

StatusOr<bool> ShapeValues::before_node(ImportContext& c) {
  pending_.reset();
  const std::string& op = c.node().op_type();
  if (op == "Shape") {
    if (c.is_host(0)) return false;
    GLASSBOX_ASSIGN_OR_RETURN(aot::ValueId x, c.value_input(0));
    const std::vector<bool>* varying = c.varying_dims(x);
    if (varying == nullptr) return false;  // folds from the static shape
    const Shape bound = c.writer().type_of(x).shape;
    GLASSBOX_ASSIGN_OR_RETURN(ShapeRange range, shape_range(c, bound.size()));
    const auto [start, end] = range;
    ShapeValue v{{end - start}, {}};
    for (auto d = static_cast<std::size_t>(start); d < static_cast<std::size_t>(end); ++d) {
      v.entries.push_back((*varying)[d] ? ShapeEntry{bound[d], false, x, d}
                                        : ShapeEntry{bound[d], true, {}, 0});
    }
    if (v.all_known()) return false;  // only its fixed dims: folds as before
    GLASSBOX_ASSIGN_OR_RETURN(aot::ValueId s,
                              c.emit(aot::op::kShape, {x}, {{"start", start}, {"end", end}}));
    values_[s] = std::move(v);
    c.set_output(0, s);
    return true;
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<ShapeValue> result, compute(c));
  if (!result) return false;
  if (result->all_known()) {
    std::vector<std::int64_t> ints;
    for (const ShapeEntry& e : result->entries) ints.push_back(e.value);
    c.set_output(0, HostTensor::of_ints(result->shape, std::move(ints)));
    return true;
  }
  pending_ = std::move(result);
  return false;
}

void ShapeValues::after_node(ImportContext& c) {
  if (!pending_ || !c.has_output(0)) return;
  const Operand* out = c.lookup(c.node().output(0));
  if (out == nullptr) return;
  if (const auto* id = std::get_if<aot::ValueId>(out)) values_[*id] = std::move(*pending_);
  pending_.reset();
}

StatusOr<std::vector<std::int64_t>> reshape_target_of(const ShapeValue& target, aot::ValueId data,
                                                      const std::vector<bool>* data_varying) {
  // The data's own varying dim stands at its bound: the reshape then
  // computes the bound shape, and the emitted reshape frees the dim that
  // follows the data again (ImportContext::emit).
  std::vector<std::int64_t> out;
  for (const ShapeEntry& e : target.entries) {
    const bool follows = !e.known && e.of == data && data_varying != nullptr &&
                         e.dim < data_varying->size() && (*data_varying)[e.dim];
    if (!e.known && !follows) {
      return Status(Error::kNotSupported,
                    "the target shape holds a size computed at run time that is not a dim of the "
                    "data itself");
    }
    out.push_back(e.value);
  }
  return out;
}

std::optional<aot::ValueId> shape_source(const ShapeValue& shape, const ImportContext& c) {
  aot::ValueId x;
  for (const ShapeEntry& e : shape.entries) {
    if (!e.known) x = e.of;
  }
  if (!x.is_set()) return std::nullopt;
  const std::vector<bool>* varying = c.varying_dims(x);
  const Shape bound = c.writer().type_of(x).shape;
  if (varying == nullptr || bound.size() != shape.entries.size()) return std::nullopt;
  for (std::size_t d = 0; d < bound.size(); ++d) {
    const ShapeEntry& e = shape.entries[d];
    const bool same =
        (*varying)[d] ? (!e.known && e.of == x && e.dim == d) : (e.known && e.value == bound[d]);
    if (!same) return std::nullopt;
  }
  return x;
}

}  // namespace glassbox::frontends::onnx

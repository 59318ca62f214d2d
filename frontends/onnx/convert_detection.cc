// Indexing ops detection post-processing exports (issue 33): GatherND and
// ScatterElements, both decomposed into the IR's gather and scatter_nd so
// that no new kernel is needed. Each keeps ONNX's negative indices (counted
// from the end of their dim) by wrapping them first. RoiAlign is one IR op
// of its own (roi_align).

#include <onnx/onnx_pb.h>

#include <numeric>
#include <utility>

#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;

std::int64_t product(const Shape& s, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// where(i < 0, i + dims, i): `dims` broadcasts against the indices (a
// scalar, or one size per index component along the last axis).
StatusOr<ValueId> wrap_negative(ImportContext& c, ValueId indices, const HostTensor& dims) {
  const ValueId zero = c.add_constant("zero", HostTensor::of_ints({}, {0}));
  const ValueId dims_value = c.add_constant("dims", dims);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId negative, c.emit(aot::op::kLess, {indices, zero}));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId wrapped,
                            c.emit(aot::op::kAdd, {indices, dims_value}, {}, "wrap"));
  return c.emit(aot::op::kWhere, {negative, wrapped, indices}, {}, "wrap");
}

StatusOr<ValueId> long_indices(ImportContext& c, std::size_t i) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, c.value_input(i));
  if (c.writer().type_of(indices).dtype != ScalarType::kLong) {
    return c.invalid("indices must be integers");
  }
  return indices;
}

// The first node of a decomposition takes the ONNX node's name and every
// other one is named by its step ("<node>/wrap", "/index0", "/linear",
// "/flat", "/gather"): a second unnamed node would be numbered "<node>_1",
// the name PyTorch gives the next node of the same type.

// GatherND(data, indices, batch_dims b): indices [B..., K..., m] pick
// data[B..., i0..im-1, ...]. Emitted as one gather along axis 0 of data
// reshaped to [prod(B) * prod(data dims b..b+m), rest...], at the linear
// index batch * prod(dims) + sum_k i_k * stride_k (each component sliced
// out, scaled and added: m is small, and the reductions are float only).
Status convert_gather_nd(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t batch_dims, c.attributes().get_int("batch_dims", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId data, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, long_indices(c, 1));
  const Shape ds = c.writer().type_of(data).shape;
  const Shape is = c.writer().type_of(indices).shape;
  if (is.empty()) return c.invalid("indices must have rank >= 1");
  const auto b = static_cast<std::size_t>(batch_dims);
  const std::int64_t m = is.back();
  if (batch_dims < 0 || b >= is.size() || b >= ds.size()) {
    return c.invalid("batch_dims " + std::to_string(batch_dims) + " is out of range");
  }
  if (m < 1 || b + static_cast<std::size_t>(m) > ds.size()) {
    return c.invalid("the indices' last dim (" + std::to_string(m) +
                     ") must be in [1, data rank - batch_dims]");
  }
  for (std::size_t i = 0; i < b; ++i) {
    if (ds[i] != is[i]) return c.invalid("data and indices differ in a batch dim");
  }
  const std::size_t end = b + static_cast<std::size_t>(m);
  Shape dims(ds.begin() + static_cast<std::ptrdiff_t>(b),
             ds.begin() + static_cast<std::ptrdiff_t>(end));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId wrapped,
                            wrap_negative(c, indices, HostTensor::of_ints({m}, dims)));
  // The linear index, shaped as indices without their last dim.
  const Shape head(is.begin(), is.end() - 1);
  Shape part_shape = head;
  part_shape.push_back(1);
  ValueId linear{};
  for (std::int64_t k = 0; k < m; ++k) {
    Shape starts(is.size(), 0), steps(is.size(), 1);
    starts.back() = k;
    const std::string step = "index" + std::to_string(k);
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId part, c.emit(aot::op::kSlice, {wrapped},
                             {{"starts", starts}, {"steps", steps}, {"shape", part_shape}}, step));
    const std::int64_t stride = product(dims, static_cast<std::size_t>(k) + 1, dims.size());
    if (stride != 1) {
      const ValueId s =
          c.add_constant("stride" + std::to_string(k), HostTensor::of_ints({}, {stride}));
      GLASSBOX_ASSIGN_OR_RETURN(part, c.emit(aot::op::kMul, {part, s}, {}, step));
    }
    if (k == 0) {
      linear = part;
    } else {
      GLASSBOX_ASSIGN_OR_RETURN(linear, c.emit(aot::op::kAdd, {linear, part}, {}, step));
    }
  }
  const std::int64_t block = product(dims, 0, dims.size());
  if (b > 0) {
    // Batch entry j (row-major over B) starts at j * block.
    Shape offset_shape(part_shape.size(), 1);
    std::copy(is.begin(), is.begin() + static_cast<std::ptrdiff_t>(b), offset_shape.begin());
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(product(is, 0, b)));
    for (std::size_t j = 0; j < offsets.size(); ++j)
      offsets[j] = static_cast<std::int64_t>(j) * block;
    const ValueId o = c.add_constant("batch_offsets", HostTensor::of_ints(offset_shape, offsets));
    GLASSBOX_ASSIGN_OR_RETURN(linear, c.emit(aot::op::kAdd, {linear, o}, {}, "batch"));
  }
  GLASSBOX_ASSIGN_OR_RETURN(linear,
                            c.emit(aot::op::kReshape, {linear}, {{"shape", head}}, "linear"));
  Shape flat_shape{product(ds, 0, end)};
  flat_shape.insert(flat_shape.end(), ds.begin() + static_cast<std::ptrdiff_t>(end), ds.end());
  GLASSBOX_ASSIGN_OR_RETURN(ValueId flat,
                            c.emit(aot::op::kReshape, {data}, {{"shape", flat_shape}}, "flat"));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kGather, {flat, linear}, {{"axis", std::int64_t{0}}}, "gather"));
  c.set_output(0, y);
  return Status();
}

// ScatterElements(data, indices, updates, axis, reduction): element e of
// updates goes to data[e's position with the axis coordinate replaced by
// indices[e]]. Emitted as scatter_nd into data flattened to one dim, at
// each element's linear index, then reshaped back.
Status convert_scatter_elements(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, attrs.get_int("axis", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::string reduction, attrs.get_string("reduction", "none"));
  if (reduction != "none" && reduction != "add" && reduction != "mul") {
    return c.unsupported("reduction '" + reduction + "' (none, add and mul are)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId data, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, long_indices(c, 1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId updates, c.value_input(2));
  const Shape ds = c.writer().type_of(data).shape;
  const Shape is = c.writer().type_of(indices).shape;
  const auto rank = static_cast<std::int64_t>(ds.size());
  if (axis < -rank || axis >= rank) {
    return c.invalid("axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  if (is.size() != ds.size() || c.writer().type_of(updates).shape != is) {
    return c.invalid("indices and updates must have data's rank and one shape");
  }
  const auto a = static_cast<std::size_t>(axis);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId wrapped,
                            wrap_negative(c, indices, HostTensor::of_ints({}, {ds[a]})));
  // The linear index into data of each element: the wrapped index times
  // the axis' stride, plus a constant for its own coordinates along every
  // other dim (concat is float only, so no index tuples).
  const std::int64_t count = product(is, 0, is.size());
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(count), 0);
  for (std::int64_t e = 0; e < count; ++e) {
    std::int64_t rest = e;
    for (std::size_t d = ds.size(); d-- > 0;) {
      const std::int64_t coord = rest % is[d];
      rest /= is[d];
      if (d != a) offsets[static_cast<std::size_t>(e)] += coord * product(ds, d + 1, ds.size());
    }
  }
  Shape column = is;
  column.push_back(1);
  ValueId linear = wrapped;
  const std::int64_t stride = product(ds, a + 1, ds.size());
  if (stride != 1) {
    const ValueId s = c.add_constant("stride", HostTensor::of_ints({}, {stride}));
    GLASSBOX_ASSIGN_OR_RETURN(linear, c.emit(aot::op::kMul, {linear, s}, {}, "linear"));
  }
  const ValueId o = c.add_constant("offsets", HostTensor::of_ints(is, offsets));
  GLASSBOX_ASSIGN_OR_RETURN(linear, c.emit(aot::op::kAdd, {linear, o}, {}, "linear"));
  GLASSBOX_ASSIGN_OR_RETURN(linear,
                            c.emit(aot::op::kReshape, {linear}, {{"shape", column}}, "linear"));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId flat,
      c.emit(aot::op::kReshape, {data}, {{"shape", Shape{product(ds, 0, ds.size())}}}, "flat"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId scattered, c.emit(aot::op::kScatterNd, {flat, linear, updates},
                                                      {{"reduction", reduction}}, "scatter"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kReshape, {scattered}, {{"shape", ds}}, "reshape"));
  c.set_output(0, y);
  return Status();
}

// RoiAlign(X, rois, batch_indices): one roi_align node. Opset 10 has no
// coordinate_transformation_mode and behaves as "output_half_pixel"; opset
// 16 added it with "half_pixel" as the default.
Status convert_roi_align(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::string mode, attrs.get_string("mode", "avg"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t height, attrs.get_int("output_height", 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t width, attrs.get_int("output_width", 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t ratio, attrs.get_int("sampling_ratio", 0));
  GLASSBOX_ASSIGN_OR_RETURN(float scale, attrs.get_float("spatial_scale", 1.0f));
  GLASSBOX_ASSIGN_OR_RETURN(std::string transform,
                            attrs.get_string("coordinate_transformation_mode",
                                             c.opset() >= 16 ? "half_pixel" : "output_half_pixel"));
  if (mode != "avg" && mode != "max") return c.unsupported("mode '" + mode + "' (avg and max are)");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return c.unsupported("coordinate_transformation_mode '" + transform +
                         "' (half_pixel and output_half_pixel are)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId rois, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId batch, long_indices(c, 2));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kRoiAlign, {x, rois, batch},
                                              {{"mode", mode},
                                               {"output_height", height},
                                               {"output_width", width},
                                               {"sampling_ratio", ratio},
                                               {"spatial_scale", static_cast<double>(scale)},
                                               {"coordinate_transformation_mode", transform}}));
  c.set_output(0, y);
  return Status();
}

// Unique(X, axis?, sorted): one unique node of four outputs, three sized by
// data (the memory plan reserves their bounds; the kernel resizes them).
// An output the model leaves out is computed and not bound.
Status convert_unique(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t sorted, attrs.get_int("sorted", 1));
  aot::AttributeMap ir{{"sorted", sorted}};
  if (attrs.has("axis")) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, attrs.get_int("axis", 0));
    ir["axis"] = axis;
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<ValueId> outs,
                            c.emit_outputs(aot::op::kUnique, {x}, std::move(ir),
                                           {"y", "indices", "inverse_indices", "counts"}));
  for (std::size_t o = 0; o < outs.size(); ++o) c.set_output(o, outs[o]);
  return Status();
}

}  // namespace

void add_detection_converters(ConverterTable* table) {
  table->emplace("GatherND", convert_gather_nd);
  table->emplace("ScatterElements", convert_scatter_elements);
  // Scatter is ScatterElements before opset 11 (deprecated, same semantics).
  table->emplace("Scatter", convert_scatter_elements);
  table->emplace("RoiAlign", convert_roi_align);
  table->emplace("Unique", convert_unique);
}

}  // namespace glassbox::frontends::onnx

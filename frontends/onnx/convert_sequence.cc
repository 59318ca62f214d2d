// Ops sequence models export: CumSum (one cumsum node) and OneHot
// (decomposed into comparisons with a constant range).

#include <onnx/onnx_pb.h>

#include <cmath>
#include <numeric>

#include "frontends/onnx/constant_folding.h"
#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;

// CumSum(x, axis): the axis must be known at import (the IR takes it as an
// attribute, as every other op's axis).
Status convert_cumsum(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* axis_tensor, c.host_input(1, "CumSum's axis"));
  if (axis_tensor->numel() != 1) return c.invalid("axis must hold one value");
  if (axis_tensor->is_float) return c.invalid("axis must be an integer");
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t exclusive, attrs.get_int("exclusive", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t reverse, attrs.get_int("reverse", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kCumsum, {x},
                                              {{"axis", axis_tensor->as_int(0)},
                                               {"exclusive", std::int64_t{exclusive != 0}},
                                               {"reverse", std::int64_t{reverse != 0}}}));
  c.set_output(0, y);
  return Status();
}

// OneHot(indices, depth, values) with depth and values known at import:
// an index i in [-depth, depth) marks position i (i + depth when
// negative) along the new axis, any other index none, as ONNX specifies.
// Emitted as where(equal(unsqueeze(where(i < 0, i + depth, i)), range),
// on, off): all one source operator. Indices compare in their own dtype, so
// a float index that is not a whole number marks nothing.
Status convert_one_hot(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* depth_tensor, c.host_input(1, "OneHot's depth"));
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* values, c.host_input(2, "OneHot's values"));
  if (depth_tensor->numel() != 1) return c.invalid("depth must hold one value");
  if (values->numel() != 2) return c.invalid("values must hold two values (off, on)");
  // ONNX casts a float depth to an integer.
  const auto depth = static_cast<std::int64_t>(std::trunc(depth_tensor->as_double(0)));
  if (depth < 1) return c.invalid("depth must be >= 1, got " + std::to_string(depth));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, c.value_input(0));
  const aot::TensorType it = c.writer().type_of(indices);
  if (it.dtype != ScalarType::kFloat && it.dtype != ScalarType::kLong) {
    return c.invalid("indices must be numbers");
  }
  const auto rank = static_cast<std::int64_t>(it.shape.size());
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, c.attributes().get_int("axis", -1));
  if (axis < -rank - 1 || axis > rank) {
    return c.invalid("axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(rank + 1));
  }
  if (axis < 0) axis += rank + 1;
  const bool is_float = it.dtype == ScalarType::kFloat;
  auto scalar = [&](const std::string& name, double v) {
    return c.add_constant(name, is_float ? HostTensor::of_floats({}, {static_cast<float>(v)})
                                         : HostTensor::of_ints({}, {static_cast<std::int64_t>(v)}));
  };
  const ValueId zero = scalar("zero", 0);
  const ValueId depth_value = scalar("depth", static_cast<double>(depth));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId negative, c.emit(aot::op::kLess, {indices, zero}));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId wrapped, c.emit(aot::op::kAdd, {indices, depth_value}));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId index, c.emit(aot::op::kWhere, {negative, wrapped, indices}));
  Shape unsqueezed = it.shape;
  unsqueezed.insert(unsqueezed.begin() + axis, 1);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId column,
                            c.emit(aot::op::kReshape, {index}, {{"shape", unsqueezed}}));
  // The range 0 .. depth-1 along the new axis, 1 elsewhere: broadcasting
  // against the unsqueezed indices gives the output's shape.
  Shape range_shape(static_cast<std::size_t>(rank + 1), 1);
  range_shape[static_cast<std::size_t>(axis)] = depth;
  std::vector<std::int64_t> range(static_cast<std::size_t>(depth));
  std::iota(range.begin(), range.end(), 0);
  HostTensor range_tensor = HostTensor::of_ints(range_shape, range);
  if (is_float) {
    range_tensor =
        HostTensor::of_floats(range_shape, std::vector<float>(range.begin(), range.end()));
  }
  const ValueId range_value = c.add_constant("range", range_tensor);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId hot, c.emit(aot::op::kEqual, {column, range_value}));
  // values is [off, on], of the output's dtype.
  auto element = [&](std::size_t i) {
    HostTensor t = values->is_float ? HostTensor::of_floats({}, {values->floats[i]})
                                    : HostTensor::of_ints({}, {values->ints[i]});
    t.is_bool = values->is_bool;
    return t;
  };
  const HostTensor off = element(0), on = element(1);
  const ValueId off_value = c.add_constant("off", off);
  const ValueId on_value = c.add_constant("on", on);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kWhere, {hot, on_value, off_value}));
  c.set_output(0, y);
  return Status();
}

}  // namespace

void add_sequence_converters(ConverterTable* table) {
  table->emplace("CumSum", convert_cumsum);
  table->emplace("OneHot", convert_one_hot);
}

}  // namespace glassbox::frontends::onnx

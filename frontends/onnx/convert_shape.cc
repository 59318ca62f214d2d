// Flatten, Reshape, Transpose, Concat, Unsqueeze, Squeeze (folded when the
// input is a host tensor, IR nodes otherwise), and Constant, Cast,
// Identity, Dropout (which only bind names).

#include <onnx/onnx_pb.h>

#include <algorithm>

#include "frontends/onnx/constant_folding.h"
#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;

// Gives input 0 `shape`: folded for a host tensor, else a reshape node.
Status reshape_to(ImportContext& c, const Shape& shape) {
  if (c.is_host(0)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* x, c.host_input(0, "the input"));
    StatusOr<HostTensor> folded = fold_reshape(*x, shape);
    if (!folded.ok()) return c.invalid(folded.message());
    c.set_output(0, *std::move(folded));
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kReshape, {x}, {{"shape", shape}}));
  c.set_output(0, y);
  return Status();
}

std::int64_t product(const Shape& s, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// ONNX Flatten always gives 2-D [prod(d[:axis]), prod(d[axis:])].
Status convert_flatten(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, c.attributes().get_int("axis", 1));
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (axis_attr < -rank || axis_attr > rank) return c.invalid("axis out of range");
  const auto axis = static_cast<std::size_t>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  if (axis == 1 && shape.size() >= 2 && !c.is_host(0)) {
    // The IR's own flatten: what torch.flatten(x, 1) was.
    GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId y, c.emit(aot::op::kFlatten, {x},
                          {{"start_dim", std::int64_t{1}}, {"end_dim", std::int64_t{-1}}}));
    c.set_output(0, y);
    return Status();
  }
  return reshape_to(c, {product(shape, 0, axis), product(shape, axis, shape.size())});
}

// Reshape's target: a constant, or a shape computed at run time from the
// data's own sizes (shape_values.h).
StatusOr<Shape> reshape_target(ImportContext& c) {
  if (!c.is_host(1) && !c.is_host(0)) {
    GLASSBOX_ASSIGN_OR_RETURN(const Operand* target, c.input(1));
    GLASSBOX_ASSIGN_OR_RETURN(ValueId data, c.value_input(0));
    if (const ShapeValue* computed = c.shape_values().of(std::get<ValueId>(*target))) {
      StatusOr<Shape> shape = reshape_target_of(*computed, data, c.varying_dims(data));
      if (!shape.ok()) return c.unsupported(shape.message());
      return shape;
    }
  }
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* target, c.host_input(1, "Reshape's shape"));
  if (target->is_float) return c.invalid("the shape must be int64");
  return target->ints;
}

Status convert_reshape(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape in, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, reshape_target(c));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t allowzero, c.attributes().get_int("allowzero", 0));
  std::int64_t known = 1;
  std::size_t inferred = shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && allowzero == 0) {
      // 0 copies the input's dim (unless allowzero).
      if (i >= in.size())
        return c.invalid("shape entry 0 at " + std::to_string(i) + " has no input dim to copy");
      shape[i] = in[i];
    }
    if (shape[i] == -1 && inferred == shape.size()) {
      inferred = i;
    } else if (shape[i] < 0) {
      return c.invalid("shape entry " + std::to_string(shape[i]) + " is not allowed");
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      // A hostile shape: its product passes int64 (the fuzzer's find).
      return c.invalid("shape's element count overflows int64");
    }
  }
  const std::int64_t numel = product(in, 0, in.size());
  if (inferred != shape.size()) {
    if (known == 0 || numel % known != 0) return c.invalid("cannot infer the -1 dimension");
    shape[inferred] = numel / known;
  }
  return reshape_to(c, shape);
}

Status convert_transpose(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> perm_attr, c.attributes().get_ints("perm"));
  Shape perm(shape.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    perm[i] = perm_attr ? (i < perm_attr->size() ? (*perm_attr)[i] : -1)
                        : static_cast<std::int64_t>(shape.size() - 1 - i);
  }
  if (perm_attr && perm_attr->size() != shape.size())
    return c.invalid("perm does not match the rank");
  if (c.is_host(0)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* x, c.host_input(0, "the input"));
    StatusOr<HostTensor> folded = fold_transpose(*x, perm);
    if (!folded.ok()) return c.invalid(folded.message());
    c.set_output(0, *std::move(folded));
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kTranspose, {x}, {{"perm", perm}}));
  c.set_output(0, y);
  return Status();
}

Status convert_concat(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  if (!attrs.has("axis")) return c.invalid("attribute 'axis' is required");
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, attrs.get_int("axis", 0));
  bool all_host = true;
  for (std::size_t i = 0; i < c.num_inputs(); ++i) all_host = all_host && c.is_host(i);
  if (all_host) {
    std::vector<const HostTensor*> xs;
    for (std::size_t i = 0; i < c.num_inputs(); ++i) {
      GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* x, c.host_input(i, "input"));
      xs.push_back(x);
    }
    StatusOr<HostTensor> folded = fold_concat(xs, axis);
    if (!folded.ok()) return c.invalid(folded.message());
    c.set_output(0, *std::move(folded));
    return Status();
  }
  std::vector<ValueId> xs;
  for (std::size_t i = 0; i < c.num_inputs(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(i));
    xs.push_back(x);
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kConcat, std::move(xs), {{"axis", axis}}));
  c.set_output(0, y);
  return Status();
}

Status convert_unsqueeze(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape in, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> axes, axes_of(c));
  if (!axes) return c.invalid("axes are required");
  const std::size_t rank = in.size() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (std::int64_t a : *axes) {
    StatusOr<std::size_t> axis = normalize_axis(a, rank);
    if (!axis.ok()) return c.invalid(axis.message());
    if (inserted[*axis]) return c.invalid("axis " + std::to_string(a) + " repeated");
    inserted[*axis] = true;
  }
  Shape out;
  std::size_t next = 0;
  for (std::size_t d = 0; d < rank; ++d) out.push_back(inserted[d] ? 1 : in[next++]);
  return reshape_to(c, out);
}

Status convert_squeeze(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape in, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> axes, axes_of(c));
  std::vector<bool> removed(in.size(), false);
  if (axes) {
    for (std::int64_t a : *axes) {
      StatusOr<std::size_t> axis = normalize_axis(a, in.size());
      if (!axis.ok()) return c.invalid(axis.message());
      if (in[*axis] != 1)
        return c.invalid("cannot squeeze dim " + std::to_string(a) + " of size " +
                         std::to_string(in[*axis]));
      removed[*axis] = true;
    }
  } else {
    for (std::size_t d = 0; d < in.size(); ++d) removed[d] = in[d] == 1;
  }
  Shape out;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (!removed[d]) out.push_back(in[d]);
  }
  return reshape_to(c, out);
}

Status convert_constant(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<HostTensor> tensor, attrs.get_tensor("value"));
  if (tensor) {
    c.set_output(0, *std::move(tensor));
    return Status();
  }
  if (attrs.has("value_float")) {
    GLASSBOX_ASSIGN_OR_RETURN(float v, attrs.get_float("value_float", 0));
    c.set_output(0, HostTensor::of_floats({}, {v}));
  } else if (attrs.has("value_int")) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t v, attrs.get_int("value_int", 0));
    c.set_output(0, HostTensor::of_ints({}, {v}));
  } else if (attrs.has("value_floats")) {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<std::vector<float>> v,
                              attrs.get_floats("value_floats"));
    std::vector<float> data = std::move(v).value_or(std::vector<float>{});
    const auto n = static_cast<std::int64_t>(data.size());
    c.set_output(0, HostTensor::of_floats({n}, std::move(data)));
  } else if (attrs.has("value_ints")) {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> v, attrs.get_ints("value_ints"));
    Shape data = std::move(v).value_or(Shape{});
    const auto n = static_cast<std::int64_t>(data.size());
    c.set_output(0, HostTensor::of_ints({n}, std::move(data)));
  } else {
    return c.unsupported(
        "only tensor, float(s) and int(s) values are supported "
        "(not sparse or string constants)");
  }
  return Status();
}

Status convert_identity(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(const Operand* operand, c.input(0));
  c.set_output(0, *operand);
  return Status();
}

// Inference-mode Dropout is the identity.
// At inference Dropout is the identity and its mask keeps every element;
// so it is in training mode with a ratio of 0 (torchvision's Swin calls
// F.dropout without `training`, which exports training_mode true).
Status convert_dropout(ImportContext& c) {
  if (c.has_input(2)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* training, c.host_input(2, "training_mode"));
    double ratio = 0.5;  // ONNX's default
    if (c.has_input(1)) {
      GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* r, c.host_input(1, "ratio"));
      if (r->numel() == 1) ratio = r->as_double(0);
    }
    if (training->numel() != 1 || (training->as_int(0) != 0 && ratio != 0)) {
      return c.unsupported("training_mode true with a non-zero ratio is not supported");
    }
  }
  if (c.has_output(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(Shape shape, c.input_shape(0));
    std::int64_t numel = 1;
    for (std::int64_t d : shape) numel *= d;
    HostTensor mask =
        HostTensor::of_ints(shape, std::vector<std::int64_t>(static_cast<std::size_t>(numel), 1));
    mask.is_bool = true;
    c.set_output(1, std::move(mask));
  }
  return convert_identity(c);
}

}  // namespace

StatusOr<std::optional<Shape>> axes_of(ImportContext& c) {
  if (c.opset() < 13) return c.attributes().get_ints("axes");
  if (!c.has_input(1)) return std::optional<Shape>();
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* axes, c.host_input(1, "axes"));
  Shape out;
  for (std::size_t i = 0; i < static_cast<std::size_t>(axes->numel()); ++i)
    out.push_back(axes->as_int(i));
  return std::optional(out);
}

void add_shape_converters(ConverterTable* table) {
  table->emplace("Concat", convert_concat);
  table->emplace("Constant", convert_constant);
  table->emplace("Dropout", convert_dropout);
  table->emplace("Flatten", convert_flatten);
  table->emplace("Identity", convert_identity);
  table->emplace("Reshape", convert_reshape);
  table->emplace("Squeeze", convert_squeeze);
  table->emplace("Transpose", convert_transpose);
  table->emplace("Unsqueeze", convert_unsqueeze);
}

}  // namespace glassbox::frontends::onnx

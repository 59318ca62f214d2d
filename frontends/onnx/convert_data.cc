// Data movement: Pad, Expand, Tile, Split, Slice and Gather on run-time
// tensors (constant_folding.cc folds them on host tensors), GatherElements,
// ScatterND, Resize, DepthToSpace, SpaceToDepth, ConvTranspose and Einsum
// (decomposed into transpose, reshape and matmul).

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "frontends/onnx/constant_folding.h"
#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;

StatusOr<Shape> int_list_input(ImportContext& c, std::size_t i, const std::string& what) {
  GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* t, c.host_input(i, what));
  if (t->is_float) return c.invalid(what + " must be integers");
  return t->ints;
}

Status convert_pad(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const std::size_t rank = c.writer().type_of(x).shape.size();
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::string mode, attrs.get_string("mode", "constant"));
  Shape pads;
  if (c.has_input(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(pads, int_list_input(c, 1, "Pad's pads"));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> p, attrs.get_ints("pads"));
    if (p) pads = *p;
  }
  double value = 0;
  if (c.has_input(2)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* v, c.host_input(2, "Pad's constant_value"));
    if (v->numel() != 1) return c.invalid("constant_value must be a scalar");
    value = v->as_double(0);
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(float v, attrs.get_float("value", 0.0f));
    value = v;
  }
  // Opset 18: pads may cover only the listed axes.
  if (c.has_input(3)) {
    GLASSBOX_ASSIGN_OR_RETURN(Shape axes, int_list_input(c, 3, "Pad's axes"));
    if (pads.size() != 2 * axes.size()) return c.invalid("pads must have 2 entries per axis");
    Shape full(2 * rank, 0);
    for (std::size_t i = 0; i < axes.size(); ++i) {
      GLASSBOX_ASSIGN_OR_RETURN(std::size_t a, normalize_axis(axes[i], rank));
      full[a] = pads[i];
      full[rank + a] = pads[axes.size() + i];
    }
    pads = std::move(full);
  }
  if (mode == "wrap") return c.unsupported("Pad mode 'wrap' is not supported");
  // PyTorch's exporter writes a Pad with all-zero pads before an
  // AveragePool (DenseNet's transitions): the identity, bound like Identity
  // rather than left as an operator no delegate takes.
  if (pads.size() == 2 * rank &&
      std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; })) {
    c.set_output(0, x);
    return Status();
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kPad, {x}, {{"pads", pads}, {"mode", mode}, {"value", value}}));
  c.set_output(0, y);
  return Status();
}

Status convert_expand(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape target, int_list_input(c, 1, "Expand's shape"));
  const Shape in = c.writer().type_of(x).shape;
  // ONNX Expand broadcasts both ways: a 1 in the target keeps the input's dim.
  Shape out(std::max(in.size(), target.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t a = i < in.size() ? in[in.size() - 1 - i] : 1;
    const std::int64_t b = i < target.size() ? target[target.size() - 1 - i] : 1;
    if (a != b && a != 1 && b != 1) return c.invalid("shape does not broadcast with the input");
    out[out.size() - 1 - i] = a == 1 ? b : a;
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kExpand, {x}, {{"shape", out}}));
  c.set_output(0, y);
  return Status();
}

Status convert_tile(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape repeats, int_list_input(c, 1, "Tile's repeats"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kTile, {x}, {{"repeats", repeats}}));
  c.set_output(0, y);
  return Status();
}

// One IR slice: [start, start + count * step) along `axis`, the rest whole.
StatusOr<ValueId> emit_slice(ImportContext& c, ValueId x, const Shape& starts, const Shape& steps,
                             const Shape& shape, std::string_view step_name) {
  return c.emit(aot::op::kSlice, {x}, {{"starts", starts}, {"steps", steps}, {"shape", shape}},
                step_name);
}

Status convert_split(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const Shape in = c.writer().type_of(x).shape;
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, attrs.get_int("axis", 0));
  StatusOr<std::size_t> axis_or = normalize_axis(axis_attr, in.size());
  if (!axis_or.ok()) return c.invalid(axis_or.message());
  const std::size_t axis = *axis_or;
  const auto outputs = static_cast<std::int64_t>(c.node().output_size());
  Shape sizes;
  if (c.has_input(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(sizes, int_list_input(c, 1, "Split's split"));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> s, attrs.get_ints("split"));
    if (s) sizes = *s;
  }
  if (sizes.empty()) {
    // Equal parts; with num_outputs (opset 18) the last may be smaller.
    const std::int64_t part = (in[axis] + outputs - 1) / std::max<std::int64_t>(outputs, 1);
    for (std::int64_t i = 0, left = in[axis]; i < outputs; ++i, left -= part) {
      sizes.push_back(std::min(part, std::max<std::int64_t>(left, 0)));
    }
  }
  if (static_cast<std::int64_t>(sizes.size()) != outputs) {
    return c.invalid("split sizes do not match the number of outputs");
  }
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || offset + sizes[i] > in[axis])
      return c.invalid("split sizes exceed the axis");
    Shape starts(in.size(), 0), steps(in.size(), 1), shape = in;
    starts[axis] = offset;
    shape[axis] = sizes[i];
    if (sizes[i] == 0) starts[axis] = 0;
    offset += sizes[i];
    GLASSBOX_ASSIGN_OR_RETURN(ValueId part,
                              emit_slice(c, x, starts, steps, shape, "part" + std::to_string(i)));
    c.set_output(i, part);
  }
  if (offset != in[axis]) return c.invalid("split sizes do not add up to the axis");
  return Status();
}

Status convert_gather_elements(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, c.attributes().get_int("axis", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId data, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kGatherElements, {data, indices}, {{"axis", axis}}));
  c.set_output(0, y);
  return Status();
}

Status convert_scatter_nd(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string reduction, c.attributes().get_string("reduction", "none"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId data, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId updates, c.value_input(2));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kScatterNd, {data, indices, updates}, {{"reduction", reduction}}));
  c.set_output(0, y);
  return Status();
}

// One 2-D resize node: x [N,C,H,W] to `sizes`, with the H and W scales
// the coordinates follow when the model gave scales.
StatusOr<ValueId> emit_resize(ImportContext& c, ValueId x, const Shape& sizes,
                              const aot::AttributeMap& modes,
                              std::optional<std::pair<double, double>> scale_hw) {
  aot::AttributeMap attributes = modes;
  attributes["sizes"] = sizes;
  if (scale_hw) {
    attributes["scale_h"] = scale_hw->first;
    attributes["scale_w"] = scale_hw->second;
  }
  return c.emit(aot::op::kResize, {x}, std::move(attributes));
}

// Resize-11+ (roi, scales, sizes as inputs) of the spatial dims of an
// N x C x L, N x C x H x W or N x C x D x H x W tensor. The IR's resize is
// 2-D; nearest and linear interpolation are separable, so 1-D and 3-D run
// on it with reshapes: L as W beside an H of 1, and D x H x W as H and W,
// then D as H beside the resized H*W as an unscaled W (a dim resized to
// its own size with scale 1 maps every index onto itself in each
// coordinate transform but tf_half_pixel_for_nn, refused there). One
// source operator either way.
Status convert_resize(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const Shape in = c.writer().type_of(x).shape;
  const std::size_t rank = in.size();
  if (rank < 3 || rank > 5) {
    return c.unsupported("Resize of rank " + std::to_string(rank) +
                         "; only N x C x L, NCHW and NCDHW are supported");
  }
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::string mode, attrs.get_string("mode", "nearest"));
  GLASSBOX_ASSIGN_OR_RETURN(std::string transform,
                            attrs.get_string("coordinate_transformation_mode", "half_pixel"));
  GLASSBOX_ASSIGN_OR_RETURN(std::string nearest,
                            attrs.get_string("nearest_mode", "round_prefer_floor"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t antialias, attrs.get_int("antialias", 0));
  if (antialias != 0) return c.unsupported("antialias is not supported");
  if (attrs.has("axes")) return c.unsupported("the axes attribute is not supported");
  Shape sizes;
  std::vector<double> scales;  // per dim, when the model gave scales
  if (c.has_input(3)) {
    GLASSBOX_ASSIGN_OR_RETURN(sizes, int_list_input(c, 3, "Resize's sizes"));
    if (sizes.size() != rank) {
      return c.invalid("sizes must have " + std::to_string(rank) + " entries");
    }
  } else if (c.has_input(2)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* scale_tensor, c.host_input(2, "Resize's scales"));
    if (scale_tensor->numel() != static_cast<std::int64_t>(rank)) {
      return c.invalid("scales must have " + std::to_string(rank) + " entries");
    }
    for (std::size_t i = 0; i < rank; ++i) {
      scales.push_back(scale_tensor->as_double(i));
      sizes.push_back(
          static_cast<std::int64_t>(std::floor(static_cast<double>(in[i]) * scales[i])));
    }
    if (scales[0] != 1.0 || scales[1] != 1.0) {
      return c.unsupported("only the spatial dims may be scaled");
    }
  } else {
    return c.invalid("Resize needs scales or sizes");
  }
  if (sizes[0] != in[0] || sizes[1] != in[1]) {
    return c.unsupported("only the spatial dims may be resized");
  }
  if (mode == "cubic") return c.unsupported("cubic Resize is not supported");
  if (rank == 5 && transform == "tf_half_pixel_for_nn") {
    return c.unsupported("3-D Resize with tf_half_pixel_for_nn is not supported");
  }
  const aot::AttributeMap modes{
      {"mode", mode}, {"coordinate_transformation_mode", transform}, {"nearest_mode", nearest}};
  // The coordinates follow the scales given, not output / input.
  auto scale = [&](std::size_t dim) { return scales.empty() ? 0.0 : scales[dim]; };
  auto scale_pair = [&](double h, double w) -> std::optional<std::pair<double, double>> {
    if (scales.empty()) return std::nullopt;
    return std::pair{h, w};
  };
  ValueId y;
  if (rank == 4) {
    GLASSBOX_ASSIGN_OR_RETURN(y, emit_resize(c, x, sizes, modes, scale_pair(scale(2), scale(3))));
  } else if (rank == 3) {
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId x4, c.emit(aot::op::kReshape, {x}, {{"shape", Shape{in[0], in[1], 1, in[2]}}}));
    GLASSBOX_ASSIGN_OR_RETURN(ValueId y4, emit_resize(c, x4, {in[0], in[1], 1, sizes[2]}, modes,
                                                      scale_pair(1.0, scale(2))));
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kReshape, {y4}, {{"shape", sizes}}));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId hw_in,
        c.emit(aot::op::kReshape, {x}, {{"shape", Shape{in[0], in[1] * in[2], in[3], in[4]}}}));
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId hw_out, emit_resize(c, hw_in, {in[0], in[1] * in[2], sizes[3], sizes[4]}, modes,
                                    scale_pair(scale(3), scale(4))));
    const Shape d_in_shape = {in[0], in[1], in[2], sizes[3] * sizes[4]};
    GLASSBOX_ASSIGN_OR_RETURN(ValueId d_in,
                              c.emit(aot::op::kReshape, {hw_out}, {{"shape", d_in_shape}}));
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId d_out, emit_resize(c, d_in, {in[0], in[1], sizes[2], sizes[3] * sizes[4]}, modes,
                                   scale_pair(scale(2), 1.0)));
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kReshape, {d_out}, {{"shape", sizes}}));
  }
  c.set_output(0, y);
  return Status();
}

Status convert_depth_to_space(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t block, attrs.get_int("blocksize", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::string mode, attrs.get_string("mode", "DCR"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y, c.emit(aot::op::kDepthToSpace, {x}, {{"blocksize", block}, {"mode", mode}}));
  c.set_output(0, y);
  return Status();
}

Status convert_space_to_depth(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t block, c.attributes().get_int("blocksize", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kSpaceToDepth, {x}, {{"blocksize", block}}));
  c.set_output(0, y);
  return Status();
}

Status convert_conv_transpose(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId w, c.value_input(1));
  Shape in = c.writer().type_of(x).shape;
  Shape ws = c.writer().type_of(w).shape;
  // 1-D is 2-D with a width of 1 (and every per-axis attribute extended).
  const bool one_d = in.size() == 3 && ws.size() == 3;
  if (one_d) {
    in.push_back(1);
    ws.push_back(1);
    GLASSBOX_ASSIGN_OR_RETURN(x, c.emit(aot::op::kReshape, {x}, {{"shape", in}}, "to_2d"));
    GLASSBOX_ASSIGN_OR_RETURN(w, c.emit(aot::op::kReshape, {w}, {{"shape", ws}}, "weight_2d"));
  }
  if ((in.size() != 4 && in.size() != 5) || ws.size() != in.size()) {
    return c.unsupported("only 1-D, 2-D and 3-D ConvTranspose are supported");
  }
  const std::size_t n = in.size() - 2;  // spatial dims
  const NodeAttributes attrs = c.attributes();
  auto pair = [&](const std::string& name, std::int64_t fallback) -> StatusOr<Shape> {
    GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> v, attrs.get_ints(name));
    if (!v) return Shape(n, fallback);
    if (one_d && v->size() == 1) v->push_back(fallback);
    if (v->size() != n) return c.invalid(name + " must have one entry per spatial axis");
    return *v;
  };
  GLASSBOX_ASSIGN_OR_RETURN(Shape stride, pair("strides", 1));
  GLASSBOX_ASSIGN_OR_RETURN(Shape dilation, pair("dilations", 1));
  GLASSBOX_ASSIGN_OR_RETURN(Shape output_padding, pair("output_padding", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t groups, attrs.get_int("group", 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> pads_attr, attrs.get_ints("pads"));
  GLASSBOX_ASSIGN_OR_RETURN(std::string auto_pad, attrs.get_string("auto_pad", "NOTSET"));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> output_shape, attrs.get_ints("output_shape"));
  Shape pads = pads_attr ? *pads_attr : Shape(2 * n, 0);
  if (one_d && pads.size() == 2) pads = {pads[0], 0, pads[1], 0};
  if (pads.size() != 2 * n) return c.invalid("pads must have 2 entries per spatial axis");
  if (output_shape || (auto_pad != "NOTSET" && auto_pad != "VALID")) {
    // Pads that give the requested size: total = full - wanted, split as ONNX says.
    Shape wanted;
    for (std::size_t i = 0; i < n; ++i) wanted.push_back(in[2 + i] * stride[i]);
    if (output_shape) wanted = *output_shape;
    if (wanted.size() == n + 2) wanted.erase(wanted.begin(), wanted.begin() + 2);
    if (one_d && wanted.size() == 1) wanted.push_back(1);
    if (wanted.size() != n) return c.invalid("output_shape must give every spatial size");
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t full =
          stride[i] * (in[2 + i] - 1) + output_padding[i] + ((ws[2 + i] - 1) * dilation[i] + 1);
      const std::int64_t total = full - wanted[i];
      if (total < 0) {
        // A larger output than the kernel's reach: extra rows at the end.
        output_padding[i] -= total;
        pads[i] = pads[n + i] = 0;
        continue;
      }
      const std::int64_t small = total / 2;
      const bool upper = auto_pad == "SAME_UPPER";  // ONNX: NOTSET splits as SAME_LOWER
      pads[i] = upper ? small : total - small;
      pads[n + i] = upper ? total - small : small;
    }
  }
  std::vector<ValueId> inputs{x, w};
  if (c.has_input(2)) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId b, c.value_input(2));
    inputs.push_back(b);
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId y,
      c.emit(n == 3 ? aot::op::kConvTranspose3d : aot::op::kConvTranspose2d, std::move(inputs),
             {{"stride", stride},
              {"dilation", dilation},
              {"output_padding", output_padding},
              {"padding", pads},
              {"groups", groups}},
             one_d ? "conv_2d" : ""));
  if (one_d) {
    Shape out = c.writer().type_of(y).shape;
    out.pop_back();
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kReshape, {y}, {{"shape", out}}));
  }
  c.set_output(0, y);
  return Status();
}

// ---- Einsum: one or two operands, no repeated letter within an operand,
// no ellipsis; the output explicit or implicit (letters occurring once, in
// order). One operand: a sum over the dropped letters and a transpose. Two:
// every letter in the output or in both inputs (what attention exporters
// write: "bhqd,bhkd->bhqk", "bij,bjk->bik", ...).

struct Term {
  std::string letters;
};

StatusOr<std::vector<std::string>> parse_einsum(ImportContext& c, const std::string& equation,
                                                std::string* output) {
  std::string eq;
  for (char ch : equation) {
    if (ch != ' ') eq += ch;
  }
  const std::size_t arrow = eq.find("->");
  std::vector<std::string> terms;
  std::string lhs = eq.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    *output = eq.substr(arrow + 2);
  } else {
    // Implicit output: the letters that occur once, in alphabetical order.
    output->clear();
    for (char ch = 'A'; ch <= 'z'; ++ch) {
      if (std::count(lhs.begin(), lhs.end(), ch) == 1) *output += ch;
    }
  }
  auto valid = [](const std::string& t) {
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(t[i])) ||
          t.find(t[i], i + 1) != std::string::npos) {
        return false;
      }
    }
    return true;
  };
  if (terms.empty() || terms.size() > 2 || !valid(*output)) {
    return c.unsupported("Einsum '" + equation + "' is not supported (one or two operands)");
  }
  for (const std::string& t : terms) {
    if (!valid(t)) {
      return c.unsupported("Einsum '" + equation +
                           "' is not supported (ellipsis or a repeated letter in an operand)");
    }
  }
  return terms;
}

// Transposes `x` (letters `from`) to the letter order `to` (same letters).
StatusOr<ValueId> permute(ImportContext& c, ValueId x, const std::string& from,
                          const std::string& to, const std::string& step) {
  if (from == to) return x;
  Shape perm;
  for (char ch : to) perm.push_back(static_cast<std::int64_t>(from.find(ch)));
  return c.emit(aot::op::kTranspose, {x}, {{"perm", perm}}, step);
}

Status convert_einsum(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string equation, c.attributes().get_string("equation", ""));
  std::string out;
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::string> terms, parse_einsum(c, equation, &out));
  if (terms.size() != c.num_inputs()) return c.invalid("equation and inputs differ in count");
  if (terms.size() == 1) {
    // A transpose, after summing the letters the output drops.
    GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
    std::string kept;
    Shape summed;
    for (std::size_t i = 0; i < terms[0].size(); ++i) {
      if (out.find(terms[0][i]) == std::string::npos) {
        summed.push_back(static_cast<std::int64_t>(i));
      } else {
        kept += terms[0][i];
      }
    }
    if (kept.size() != out.size()) return c.invalid("an output letter is in no operand");
    if (!summed.empty()) {
      GLASSBOX_ASSIGN_OR_RETURN(
          x, c.emit(aot::op::kReduceSum, {x}, {{"axes", summed}, {"keepdims", std::int64_t{0}}},
                    kept == out ? "" : "sum"));
    }
    GLASSBOX_ASSIGN_OR_RETURN(ValueId y, permute(c, x, kept, out, ""));
    if (y == x && summed.empty()) {
      GLASSBOX_ASSIGN_OR_RETURN(
          y, c.emit(aot::op::kReshape, {x}, {{"shape", c.writer().type_of(x).shape}}));
    }
    c.set_output(0, y);
    return Status();
  }
  const std::string& ta = terms[0];
  const std::string& tb = terms[1];
  std::string batch, free_a, free_b, contract;
  for (char ch : ta) {
    const bool in_b = tb.find(ch) != std::string::npos;
    const bool in_out = out.find(ch) != std::string::npos;
    if (in_b && in_out)
      batch += ch;
    else if (in_b)
      contract += ch;
    else if (in_out)
      free_a += ch;
    else
      return c.unsupported("Einsum '" + equation + "' sums a letter of one operand");
  }
  for (char ch : tb) {
    const bool in_a = ta.find(ch) != std::string::npos;
    const bool in_out = out.find(ch) != std::string::npos;
    if (!in_a && in_out)
      free_b += ch;
    else if (!in_a)
      return c.unsupported("Einsum '" + equation + "' sums a letter of one operand");
  }
  for (char ch : out) {
    if (ta.find(ch) == std::string::npos && tb.find(ch) == std::string::npos) {
      return c.invalid("output letter '" + std::string(1, ch) + "' is in no operand");
    }
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId b, c.value_input(1));
  const Shape sa = c.writer().type_of(a).shape;
  const Shape sb = c.writer().type_of(b).shape;
  if (sa.size() != ta.size() || sb.size() != tb.size())
    return c.invalid("operand ranks do not match the equation");
  auto dim = [&](char ch) {
    const std::size_t i = ta.find(ch);
    return i != std::string::npos ? sa[i] : sb[tb.find(ch)];
  };
  auto product = [&](const std::string& letters) {
    std::int64_t p = 1;
    for (char ch : letters) p *= dim(ch);
    return p;
  };
  for (char ch : batch + contract) {
    if (sa[ta.find(ch)] != sb[tb.find(ch)])
      return c.invalid("operand sizes disagree on a shared letter");
  }
  // a -> [batch, free_a, contract] -> [B, M, K]; b -> [batch, contract, free_b] -> [B, K, N].
  GLASSBOX_ASSIGN_OR_RETURN(a, permute(c, a, ta, batch + free_a + contract, "a_order"));
  GLASSBOX_ASSIGN_OR_RETURN(b, permute(c, b, tb, batch + contract + free_b, "b_order"));
  const std::int64_t B = product(batch), M = product(free_a), K = product(contract),
                     N = product(free_b);
  GLASSBOX_ASSIGN_OR_RETURN(a, c.emit(aot::op::kReshape, {a}, {{"shape", Shape{B, M, K}}}, "a_3d"));
  GLASSBOX_ASSIGN_OR_RETURN(b, c.emit(aot::op::kReshape, {b}, {{"shape", Shape{B, K, N}}}, "b_3d"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kMatmul, {a, b}, {}, "matmul"));
  const std::string natural = batch + free_a + free_b;
  Shape natural_shape;
  for (char ch : natural) natural_shape.push_back(dim(ch));
  const bool needs_permute = natural != out;
  GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kReshape, {y}, {{"shape", natural_shape}},
                                      needs_permute ? "unflatten" : ""));
  if (needs_permute) {
    GLASSBOX_ASSIGN_OR_RETURN(y, permute(c, y, natural, out, ""));
  }
  c.set_output(0, y);
  return Status();
}

}  // namespace

Status convert_runtime_gather(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, c.attributes().get_int("axis", 0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId data, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId indices, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(aot::op::kGather, {data, indices}, {{"axis", axis}}));
  c.set_output(0, y);
  return Status();
}

Status convert_runtime_slice(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const Shape in = c.writer().type_of(x).shape;
  GLASSBOX_ASSIGN_OR_RETURN(Shape starts_in, int_list_input(c, 1, "Slice's starts"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape ends_in, int_list_input(c, 2, "Slice's ends"));
  const std::size_t n = starts_in.size();
  if (ends_in.size() != n) return c.invalid("starts and ends differ in length");
  Shape axes(n), steps_in(n, 1);
  for (std::size_t i = 0; i < n; ++i) axes[i] = static_cast<std::int64_t>(i);
  if (c.has_input(3)) {
    GLASSBOX_ASSIGN_OR_RETURN(axes, int_list_input(c, 3, "Slice's axes"));
    if (axes.size() != n) return c.invalid("axes differ in length");
  }
  if (c.has_input(4)) {
    GLASSBOX_ASSIGN_OR_RETURN(steps_in, int_list_input(c, 4, "Slice's steps"));
    if (steps_in.size() != n) return c.invalid("steps differ in length");
  }
  Shape starts(in.size(), 0), steps(in.size(), 1), shape = in;
  for (std::size_t i = 0; i < n; ++i) {
    StatusOr<std::size_t> axis = normalize_axis(axes[i], in.size());
    if (!axis.ok()) return c.invalid(axis.message());
    const std::int64_t dim = in[*axis];
    const std::int64_t step = steps_in[i];
    if (step == 0) return c.invalid("Slice step is 0");
    // A dim sized by data at run time: its bound is not its end, so only
    // counts from its start hold (the runtime clamps them to the data).
    if (const std::vector<bool>* varying = c.varying_dims(x);
        varying != nullptr && (*varying)[*axis] &&
        (starts_in[i] < 0 || ends_in[i] < 0 || step < 0)) {
      return c.unsupported("a slice of dim " + std::to_string(*axis) +
                           " counted from its end or backwards, where the dim's size depends on "
                           "data (at most " +
                           std::to_string(dim) + ")");
    }
    const std::int64_t start = clamp_slice_index(starts_in[i], dim, step);
    const std::int64_t end = clamp_slice_index(ends_in[i], dim, step);
    const std::int64_t count =
        step > 0 ? std::max<std::int64_t>(0, (end - start + step - 1) / step)
                 : std::max<std::int64_t>(0, (start - end + (-step) - 1) / (-step));
    starts[*axis] = count > 0 ? start : 0;
    steps[*axis] = step;
    shape[*axis] = count;
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_slice(c, x, starts, steps, shape, ""));
  c.set_output(0, y);
  return Status();
}

void add_data_converters(ConverterTable* table) {
  table->emplace("ConvTranspose", convert_conv_transpose);
  table->emplace("DepthToSpace", convert_depth_to_space);
  table->emplace("Einsum", convert_einsum);
  table->emplace("Expand", convert_expand);
  table->emplace("GatherElements", convert_gather_elements);
  table->emplace("Pad", convert_pad);
  table->emplace("Resize", convert_resize);
  table->emplace("ScatterND", convert_scatter_nd);
  table->emplace("SpaceToDepth", convert_space_to_depth);
  table->emplace("Split", convert_split);
  table->emplace("Tile", convert_tile);
}

}  // namespace glassbox::frontends::onnx

// Type inference of the ops added for ONNX coverage (the second table of
// ops.h). The op table in ops.cc has already checked input counts and
// dtypes; these check shapes and attributes.

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/aot/ops_internal.h"

namespace glassbox::aot::ops_internal {
namespace {

Status finite_float(const AttributeMap& attrs, std::string_view name) {
  GLASSBOX_ASSIGN_OR_RETURN(double v, float_attr(attrs, name));
  if (!std::isfinite(v)) return invalid("attribute '" + std::string(name) + "' must be finite");
  return Status();
}

Status one_of(const AttributeMap& attrs, std::string_view name,
              std::initializer_list<std::string_view> allowed) {
  GLASSBOX_ASSIGN_OR_RETURN(std::string v, string_attr(attrs, name));
  for (std::string_view a : allowed) {
    if (v == a) return Status();
  }
  return invalid("attribute '" + std::string(name) + "' has unsupported value \"" + v + "\"");
}

// Normalised, distinct axes of an `axes` list for rank `rank`.
StatusOr<std::vector<std::size_t>> axes_of(const Shape& axes, std::size_t rank,
                                           std::string_view what) {
  std::vector<std::size_t> out;
  for (std::int64_t a : axes) {
    GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, axis_in(a, rank, what));
    if (std::find(out.begin(), out.end(), axis) != out.end()) {
      return invalid(std::string(what) + " " + std::to_string(a) + " listed twice");
    }
    out.push_back(axis);
  }
  return out;
}

StatusOr<TensorType> infer_slice(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape starts, ints_attr(attrs, "starts"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape steps, ints_attr(attrs, "steps"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, ints_attr(attrs, "shape"));
  const std::size_t rank = x.shape.size();
  if (starts.size() != rank || steps.size() != rank || shape.size() != rank) {
    return invalid("slice starts, steps and shape need one entry per dim of " +
                   shape_string(x.shape));
  }
  for (std::size_t d = 0; d < rank; ++d) {
    if (steps[d] == 0) return invalid("slice step must not be 0");
    if (shape[d] < 0) return invalid("slice shape must be >= 0");
    if (x.dynamic && steps[d] > 0) {
      // As the kernel does with a value sized by data: what is left of the
      // dim from the start, at most `shape` (portable_ops_data.cc).
      shape[d] = std::min(
          shape[d], std::max<std::int64_t>(0, (x.shape[d] - starts[d] + steps[d] - 1) / steps[d]));
    }
    if (shape[d] == 0) continue;
    // First and last index read along d must both lie inside the input.
    std::int64_t span = 0;
    std::int64_t last = 0;
    if (__builtin_mul_overflow(shape[d] - 1, steps[d], &span) ||
        __builtin_add_overflow(starts[d], span, &last) || starts[d] < 0 ||
        starts[d] >= x.shape[d] || last < 0 || last >= x.shape[d]) {
      return invalid("slice along dim " + std::to_string(d) + " reads outside " +
                     shape_string(x.shape));
    }
  }
  return TensorType{x.dtype, shape};
}

StatusOr<TensorType> infer_pad(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape pads, ints_attr(attrs, "pads"));
  GLASSBOX_RETURN_IF_ERROR(one_of(attrs, "mode", {"constant", "reflect", "edge"}));
  GLASSBOX_ASSIGN_OR_RETURN(std::string mode, string_attr(attrs, "mode"));
  GLASSBOX_RETURN_IF_ERROR(float_attr(attrs, "value"));
  const std::size_t rank = x.shape.size();
  if (pads.size() != 2 * rank) {
    return invalid("pad needs 2 entries per dim of " + shape_string(x.shape) + ", got " +
                   shape_string(pads));
  }
  Shape out(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t begin = pads[d];
    const std::int64_t end = pads[rank + d];
    if (std::abs(begin) > (std::int64_t{1} << 40) || std::abs(end) > (std::int64_t{1} << 40)) {
      return invalid("pad amount too large");
    }
    out[d] = x.shape[d] + begin + end;
    if (out[d] < 0) return invalid("pad crops dim " + std::to_string(d) + " below 0");
    if (mode == "reflect" && (begin >= x.shape[d] || end >= x.shape[d]) && (begin > 0 || end > 0)) {
      return invalid("reflect pad must be smaller than dim " + std::to_string(d));
    }
    if (mode == "edge" && x.shape[d] == 0 && (begin > 0 || end > 0)) {
      return invalid("edge pad of an empty dim");
    }
  }
  return TensorType{x.dtype, out};
}

StatusOr<TensorType> infer_expand(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, ints_attr(attrs, "shape"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape b, broadcast(x.shape, shape));
  if (b != shape) {
    return invalid("expand shape " + shape_string(shape) + " is not a broadcast of " +
                   shape_string(x.shape));
  }
  return TensorType{x.dtype, shape};
}

StatusOr<TensorType> infer_tile(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape repeats, ints_attr(attrs, "repeats"));
  if (repeats.size() != x.shape.size()) return invalid("tile needs one repeat per dim");
  Shape out(x.shape.size());
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (repeats[d] < 0) return invalid("tile repeats must be >= 0");
    if (__builtin_mul_overflow(x.shape[d], repeats[d], &out[d])) return invalid("tile too large");
  }
  return TensorType{x.dtype, out};
}

StatusOr<TensorType> infer_gather(std::string_view op, std::span<const TensorType> in,
                                  const AttributeMap& attrs) {
  const TensorType& data = in[0];
  const TensorType& indices = in[1];
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, int_attr(attrs, "axis"));
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis, axis_in(axis_attr, data.shape.size(), "gather axis"));
  if (op == op::kGatherElements) {
    if (indices.shape.size() != data.shape.size()) {
      return invalid("gather_elements indices must have the rank of the data");
    }
    return TensorType{data.dtype, indices.shape};
  }
  Shape out(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1,
             data.shape.end());
  return TensorType{data.dtype, out};
}

StatusOr<TensorType> infer_scatter_nd(std::span<const TensorType> in, const AttributeMap& attrs) {
  const Shape& data = in[0].shape;
  const Shape& indices = in[1].shape;
  const Shape& updates = in[2].shape;
  GLASSBOX_RETURN_IF_ERROR(one_of(attrs, "reduction", {"none", "add", "mul"}));
  if (indices.empty()) return invalid("scatter_nd indices must have rank >= 1");
  const std::int64_t k = indices.back();
  if (k < 1 || k > static_cast<std::int64_t>(data.size())) {
    return invalid("scatter_nd index depth " + std::to_string(k) + " does not fit the data");
  }
  Shape expected(indices.begin(), indices.end() - 1);
  expected.insert(expected.end(), data.begin() + k, data.end());
  if (updates != expected) {
    return invalid("scatter_nd updates must have shape " + shape_string(expected) + ", got " +
                   shape_string(updates));
  }
  return in[0];
}

StatusOr<TensorType> infer_resize(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_RETURN_IF_ERROR(expect_rank(x, 4, "resize input"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape sizes, ints_attr(attrs, "sizes"));
  GLASSBOX_RETURN_IF_ERROR(one_of(attrs, "mode", {"nearest", "linear"}));
  GLASSBOX_RETURN_IF_ERROR(one_of(
      attrs, "coordinate_transformation_mode",
      {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"}));
  GLASSBOX_RETURN_IF_ERROR(
      one_of(attrs, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}));
  if (sizes.size() != 4 || sizes[0] != x.shape[0] || sizes[1] != x.shape[1] || sizes[2] < 1 ||
      sizes[3] < 1) {
    return invalid("resize sizes " + shape_string(sizes) + " must keep N and C of " +
                   shape_string(x.shape) + " and give H, W >= 1");
  }
  if (x.shape[2] < 1 || x.shape[3] < 1) return invalid("resize of an empty image");
  for (const char* scale : {"scale_h", "scale_w"}) {
    if (!attrs.contains(scale)) continue;
    GLASSBOX_ASSIGN_OR_RETURN(double s, float_attr(attrs, scale));
    if (!(s > 0) || !std::isfinite(s)) return invalid("resize scales must be > 0");
  }
  return TensorType{x.dtype, sizes};
}

StatusOr<TensorType> infer_space_depth(std::string_view op, const TensorType& x,
                                       const AttributeMap& attrs) {
  GLASSBOX_RETURN_IF_ERROR(expect_rank(x, 4, std::string(op) + " input"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t b, int_attr(attrs, "blocksize"));
  if (b < 1 || b > 4096) return invalid(std::string(op) + " blocksize must be in [1, 4096]");
  const Shape& s = x.shape;
  if (op == op::kDepthToSpace) {
    GLASSBOX_RETURN_IF_ERROR(one_of(attrs, "mode", {"DCR", "CRD"}));
    if (s[1] % (b * b) != 0) return invalid("depth_to_space channels not divisible by blocksize^2");
    return TensorType{x.dtype, {s[0], s[1] / (b * b), s[2] * b, s[3] * b}};
  }
  if (s[2] % b != 0 || s[3] % b != 0) {
    return invalid("space_to_depth H and W must be divisible by the blocksize");
  }
  return TensorType{x.dtype, {s[0], s[1] * b * b, s[2] / b, s[3] / b}};
}

}  // namespace

StatusOr<TensorType> infer_unary_extended(std::string_view op, std::span<const TensorType> in,
                                          const AttributeMap& attrs) {
  if (op == op::kGelu) GLASSBOX_RETURN_IF_ERROR(one_of(attrs, "approximate", {"none", "tanh"}));
  if (op == op::kLeakyRelu || op == op::kElu || op == op::kSelu) {
    GLASSBOX_RETURN_IF_ERROR(finite_float(attrs, "alpha"));
  }
  if (op == op::kSelu) GLASSBOX_RETURN_IF_ERROR(finite_float(attrs, "gamma"));
  if (op == op::kCumsum) {
    // The kernel sums float and int64 (ONNX's integer types import as int64).
    if (in[0].dtype != ScalarType::kFloat && in[0].dtype != ScalarType::kLong) {
      return invalid("cumsum input 0 has dtype " + std::string(to_string(in[0].dtype)) +
                     ", expected FLOAT or LONG");
    }
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, int_attr(attrs, "axis"));
    GLASSBOX_RETURN_IF_ERROR(axis_in(axis, in[0].shape.size(), "cumsum axis"));
    GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "exclusive", false));
    GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "reverse", false));
  }
  return in[0];
}

StatusOr<TensorType> infer_broadcast(std::string_view op, std::span<const TensorType> in,
                                     const AttributeMap& attrs, ScalarType out_dtype) {
  if (op == op::kMod) GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "fmod", false));
  GLASSBOX_ASSIGN_OR_RETURN(Shape out, broadcast(in[0].shape, in[1].shape));
  if (in.size() == 3) {
    GLASSBOX_ASSIGN_OR_RETURN(out, broadcast(out, in[2].shape));
  }
  return TensorType{out_dtype, out};
}

StatusOr<TensorType> infer_cast(std::span<const TensorType> in, const AttributeMap&) {
  return in[0];  // The dtype comes from the op table's rule.
}

StatusOr<TensorType> infer_normalization(std::string_view op, std::span<const TensorType> in,
                                         const AttributeMap& attrs) {
  const TensorType& x = in[0];
  GLASSBOX_ASSIGN_OR_RETURN(double eps, float_attr(attrs, "eps"));
  if (!(eps >= 0) || !std::isfinite(eps)) return invalid(std::string(op) + " eps must be >= 0");
  if (op == op::kLayerNorm) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, int_attr(attrs, "axis"));
    GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis,
                              axis_in(axis_attr, x.shape.size(), "layer_norm axis"));
    const Shape normalized(x.shape.begin() + static_cast<std::ptrdiff_t>(axis), x.shape.end());
    for (std::size_t i = 1; i < in.size(); ++i) {
      if (in[i].shape != normalized) {
        GLASSBOX_RETURN_IF_ERROR(
            expect_shape(in[i], normalized, i == 1 ? "layer_norm scale" : "layer_norm bias"));
      }
    }
    return x;
  }
  if (x.shape.size() < 2) return invalid(std::string(op) + " input must have rank >= 2");
  const std::int64_t channels = x.shape[1];
  if (op == op::kInstanceNorm) {
    GLASSBOX_RETURN_IF_ERROR(expect_shape(in[1], {channels}, "instance_norm scale"));
    GLASSBOX_RETURN_IF_ERROR(expect_shape(in[2], {channels}, "instance_norm bias"));
    return x;
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t groups, int_attr(attrs, "num_groups"));
  if (groups < 1 || channels % groups != 0) {
    return invalid("group_norm channels " + std::to_string(channels) +
                   " not divisible by num_groups " + std::to_string(groups));
  }
  if (in[1].shape != Shape{groups} && in[1].shape != Shape{channels}) {
    return invalid("group_norm scale must have shape [num_groups] or [channels]");
  }
  GLASSBOX_RETURN_IF_ERROR(expect_shape(in[2], in[1].shape, "group_norm bias"));
  return x;
}

StatusOr<TensorType> infer_reduce(std::string_view op, std::span<const TensorType> in,
                                  const AttributeMap& attrs) {
  const TensorType& x = in[0];
  if (x.dtype != ScalarType::kFloat && x.dtype != ScalarType::kLong) {
    return invalid(std::string(op) + " takes FLOAT or LONG, not " +
                   std::string(to_string(x.dtype)));
  }
  GLASSBOX_ASSIGN_OR_RETURN(bool keepdims, flag_attr(attrs, "keepdims", true));
  std::vector<std::size_t> axes;
  if (op == op::kArgmax || op == op::kArgmin) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, int_attr(attrs, "axis"));
    GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "select_last_index", false));
    GLASSBOX_ASSIGN_OR_RETURN(std::size_t a, axis_in(axis, x.shape.size(), "argmax axis"));
    if (x.shape[a] == 0) return invalid(std::string(op) + " over an empty axis");
    axes.push_back(a);
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(Shape list, ints_attr(attrs, "axes"));
    GLASSBOX_ASSIGN_OR_RETURN(axes, axes_of(list, x.shape.size(), "reduce axis"));
  }
  Shape out;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced) {
      out.push_back(x.shape[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return TensorType{x.dtype, out};
}

StatusOr<TensorType> infer_data_movement(std::string_view op, std::span<const TensorType> in,
                                         const AttributeMap& attrs) {
  if (op == op::kSlice) return infer_slice(in[0], attrs);
  if (op == op::kPad) return infer_pad(in[0], attrs);
  if (op == op::kExpand) return infer_expand(in[0], attrs);
  if (op == op::kTile) return infer_tile(in[0], attrs);
  if (op == op::kGather || op == op::kGatherElements) return infer_gather(op, in, attrs);
  if (op == op::kScatterNd) return infer_scatter_nd(in, attrs);
  if (op == op::kResize) return infer_resize(in[0], attrs);
  if (op == op::kDepthToSpace || op == op::kSpaceToDepth) {
    return infer_space_depth(op, in[0], attrs);
  }
  return invalid("no shape rule for '" + std::string(op) + "'");
}

StatusOr<TensorType> infer_conv_transpose(std::string_view op, std::span<const TensorType> in,
                                          const AttributeMap& attrs) {
  const std::string name(op);
  const std::size_t n = spatial_rank(op);
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  GLASSBOX_RETURN_IF_ERROR(expect_rank(x, n + 2, name + " input"));
  GLASSBOX_RETURN_IF_ERROR(expect_rank(w, n + 2, name + " weight"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape stride, spatial_attr(attrs, "stride", n, 1));
  GLASSBOX_ASSIGN_OR_RETURN(Shape dilation, spatial_attr(attrs, "dilation", n, 1));
  GLASSBOX_ASSIGN_OR_RETURN(Shape output_padding, spatial_attr(attrs, "output_padding", n, 0));
  GLASSBOX_ASSIGN_OR_RETURN(Padding padding, padding_attr(attrs, n));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t groups, int_attr(attrs, "groups"));
  if (groups < 1 || x.shape[1] % groups != 0 || w.shape[0] != x.shape[1]) {
    return invalid(name + " weight " + shape_string(w.shape) + " does not match input " +
                   shape_string(x.shape) + " with groups " + std::to_string(groups));
  }
  const std::int64_t out_channels = w.shape[1] * groups;
  if (in.size() == 3) {
    GLASSBOX_RETURN_IF_ERROR(expect_shape(in[2], {out_channels}, name + " bias"));
  }
  Shape out = x.shape;
  out[1] = out_channels;
  for (std::size_t i = 0; i < n; ++i) {
    if (stride[i] > (1 << 20) || dilation[i] > (1 << 20) ||
        output_padding[i] >= std::max(stride[i], dilation[i]) ||
        padding.begin[i] > (std::int64_t{1} << 40) || padding.end[i] > (std::int64_t{1} << 40) ||
        x.shape[2 + i] > (std::int64_t{1} << 30) || w.shape[2 + i] > (1 << 20)) {
      return invalid(name + " stride, dilation, padding or output_padding out of range");
    }
    if (x.shape[2 + i] == 0) return invalid(name + " of an empty image");
    out[2 + i] = stride[i] * (x.shape[2 + i] - 1) + output_padding[i] +
                 (w.shape[2 + i] - 1) * dilation[i] + 1 - padding.begin[i] - padding.end[i];
    if (out[2 + i] < 1) return invalid(name + " output would be empty");
  }
  return TensorType{x.dtype, out};
}

}  // namespace glassbox::aot::ops_internal

#include "glassbox/aot/ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "src/aot/ops_internal.h"

namespace glassbox::aot {

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

namespace ops_internal {

Status invalid(std::string message) { return Status(Error::kInvalidArgument, std::move(message)); }

StatusOr<std::int64_t> int_attr(const AttributeMap& attrs, std::string_view name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return invalid("missing int attribute '" + std::string(name) + "'");
  if (const auto* v = std::get_if<std::int64_t>(&it->second)) return *v;
  return invalid("attribute '" + std::string(name) + "' is not an int");
}

StatusOr<double> float_attr(const AttributeMap& attrs, std::string_view name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return invalid("missing float attribute '" + std::string(name) + "'");
  if (const auto* v = std::get_if<double>(&it->second)) return *v;
  return invalid("attribute '" + std::string(name) + "' is not a float");
}

StatusOr<Shape> ints_attr(const AttributeMap& attrs, std::string_view name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return invalid("missing int list attribute '" + std::string(name) + "'");
  if (const auto* v = std::get_if<Shape>(&it->second)) return *v;
  return invalid("attribute '" + std::string(name) + "' is not an int list");
}

StatusOr<Shape> spatial_attr(const AttributeMap& attrs, std::string_view name, std::size_t n,
                             std::int64_t min) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape v, ints_attr(attrs, name));
  if (v.size() != n) {
    return invalid("attribute '" + std::string(name) + "' must have " + std::to_string(n) +
                   (n == 1 ? " entry" : " entries"));
  }
  for (std::int64_t e : v) {
    if (e < min) {
      return invalid("attribute '" + std::string(name) + "' must be >= " + std::to_string(min));
    }
  }
  return v;
}

StatusOr<std::size_t> axis_in(std::int64_t axis, std::size_t rank, std::string_view what) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) {
    return invalid(std::string(what) + " " + std::to_string(axis) + " out of range for rank " +
                   std::to_string(rank));
  }
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

StatusOr<Shape> broadcast(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    // Align from the right, as numpy does.
    std::int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    std::int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      return invalid("shapes " + shape_string(a) + " and " + shape_string(b) + " do not broadcast");
    }
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

Status expect_rank(const TensorType& t, std::size_t rank, std::string_view what) {
  if (t.shape.size() != rank) {
    return invalid(std::string(what) + " must have rank " + std::to_string(rank) + ", got " +
                   shape_string(t.shape));
  }
  return Status();
}

Status expect_shape(const TensorType& t, const Shape& shape, std::string_view what) {
  if (t.shape != shape) {
    return invalid(std::string(what) + " must have shape " + shape_string(shape) + ", got " +
                   shape_string(t.shape));
  }
  return Status();
}

// PyTorch's rule for ceil mode, which the runtime's pooling kernels follow.
StatusOr<std::int64_t> window_out(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                  std::int64_t pad_begin, std::int64_t pad_end,
                                  std::int64_t dilation, bool ceil_mode) {
  const std::int64_t span = dilation * (kernel - 1) + 1;
  const std::int64_t padded = in + pad_begin + pad_end;
  if (padded < span) {
    return invalid("window " + std::to_string(span) + " larger than padded input " +
                   std::to_string(padded));
  }
  std::int64_t out = (padded - span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_begin) --out;
  return out;
}

StatusOr<Padding> padding_attr(const AttributeMap& attrs, std::size_t n) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape v, ints_attr(attrs, "padding"));
  if (v.size() != n && v.size() != 2 * n) {
    return invalid("attribute 'padding' must have " + std::to_string(n) + " or " +
                   std::to_string(2 * n) + " entries, got " + shape_string(v));
  }
  for (std::int64_t p : v) {
    if (p < 0) return invalid("attribute 'padding' must be >= 0, got " + shape_string(v));
  }
  Padding padding;
  padding.per_side = v.size() == 2 * n;
  for (std::size_t i = 0; i < n; ++i) {
    padding.begin[i] = v[i];
    padding.end[i] = padding.per_side ? v[n + i] : v[i];
  }
  return padding;
}

StatusOr<bool> flag_attr(const AttributeMap& attrs, std::string_view name, bool fallback) {
  if (!attrs.contains(name)) return fallback;
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t v, int_attr(attrs, name));
  if (v != 0 && v != 1) return invalid("attribute '" + std::string(name) + "' must be 0 or 1");
  return v == 1;
}

StatusOr<std::string> string_attr(const AttributeMap& attrs, std::string_view name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return invalid("missing string attribute '" + std::string(name) + "'");
  if (const auto* v = std::get_if<std::string>(&it->second)) return *v;
  return invalid("attribute '" + std::string(name) + "' is not a string");
}

StatusOr<std::int64_t> int_attr_or(const AttributeMap& attrs, std::string_view name,
                                   std::int64_t fallback) {
  if (!attrs.contains(name)) return fallback;
  return int_attr(attrs, name);
}

StatusOr<std::int64_t> checked_numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > (std::int64_t{1} << 62)) {
      return invalid("shape " + shape_string(shape) + " is negative or too large");
    }
  }
  return n;
}

}  // namespace ops_internal

namespace {

using namespace ops_internal;  // NOLINT: this file's own helpers

// conv1d/2d/3d: `op` names the op in messages, n is its spatial rank.
StatusOr<TensorType> infer_conv(std::string_view op, std::size_t n, std::span<const TensorType> in,
                                const AttributeMap& attrs) {
  const std::string name(op);
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  GLASSBOX_RETURN_IF_ERROR(expect_rank(x, n + 2, name + " input"));
  GLASSBOX_RETURN_IF_ERROR(expect_rank(w, n + 2, name + " weight"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape stride, spatial_attr(attrs, "stride", n, 1));
  GLASSBOX_ASSIGN_OR_RETURN(Padding padding, padding_attr(attrs, n));
  GLASSBOX_ASSIGN_OR_RETURN(Shape dilation, spatial_attr(attrs, "dilation", n, 1));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t groups, int_attr(attrs, "groups"));
  if (groups < 1) return invalid(name + " groups must be >= 1");
  const std::int64_t channels = x.shape[1];
  const std::int64_t out_channels = w.shape[0];
  if (channels % groups != 0 || out_channels % groups != 0) {
    return invalid(name + " channels " + std::to_string(channels) + " -> " +
                   std::to_string(out_channels) + " not divisible by groups " +
                   std::to_string(groups));
  }
  if (w.shape[1] != channels / groups) {
    return invalid(name + " weight " + shape_string(w.shape) + " expects " +
                   std::to_string(w.shape[1] * groups) + " input channels, input has " +
                   std::to_string(channels));
  }
  if (in.size() == 3) GLASSBOX_RETURN_IF_ERROR(expect_shape(in[2], {out_channels}, name + " bias"));
  Shape out = x.shape;
  out[1] = out_channels;
  for (std::size_t i = 0; i < n; ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(
        out[2 + i], window_out(x.shape[2 + i], w.shape[2 + i], stride[i], padding.begin[i],
                               padding.end[i], dilation[i], false));
  }
  return TensorType{x.dtype, out};
}

// max_pool and avg_pool of n spatial dims.
StatusOr<TensorType> infer_pool(std::string_view op_name, std::size_t n,
                                std::span<const TensorType> in, const AttributeMap& attrs) {
  const bool avg = op_name.starts_with("avg_");
  GLASSBOX_RETURN_IF_ERROR(expect_rank(in[0], n + 2, "pool input"));
  GLASSBOX_ASSIGN_OR_RETURN(Shape kernel, spatial_attr(attrs, "kernel", n, 1));
  GLASSBOX_ASSIGN_OR_RETURN(Shape stride, spatial_attr(attrs, "stride", n, 1));
  GLASSBOX_ASSIGN_OR_RETURN(Padding padding, padding_attr(attrs, n));
  GLASSBOX_ASSIGN_OR_RETURN(bool ceil_mode, flag_attr(attrs, "ceil_mode", false));
  Shape dilation(n, 1);
  if (attrs.contains("dilation")) {
    if (avg) return invalid(std::string(op_name) + " has no attribute 'dilation'");
    GLASSBOX_ASSIGN_OR_RETURN(dilation, spatial_attr(attrs, "dilation", n, 1));
  }
  if (attrs.contains("count_include_pad")) {
    if (!avg) return invalid(std::string(op_name) + " has no attribute 'count_include_pad'");
    GLASSBOX_RETURN_IF_ERROR(flag_attr(attrs, "count_include_pad", true));
  }
  Shape out = in[0].shape;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t span = dilation[i] * (kernel[i] - 1) + 1;
    if (!padding.per_side && 2 * padding.begin[i] > kernel[i]) {
      // PyTorch's rule: padding at most half the kernel, so no window is all pad.
      return invalid("pool padding larger than half the kernel");
    }
    if (padding.begin[i] >= span || padding.end[i] >= span) {
      // Per-side padding (ONNX pads) only needs every window to touch the input.
      return invalid("pool padding " + std::to_string(std::max(padding.begin[i], padding.end[i])) +
                     " not smaller than the window " + std::to_string(span));
    }
    GLASSBOX_ASSIGN_OR_RETURN(
        out[2 + i], window_out(out[2 + i], kernel[i], stride[i], padding.begin[i], padding.end[i],
                               dilation[i], ceil_mode));
  }
  return TensorType{in[0].dtype, out};
}

StatusOr<TensorType> infer_transpose(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape perm, ints_attr(attrs, "perm"));
  if (perm.size() != x.shape.size()) {
    return invalid("transpose perm " + shape_string(perm) + " does not match rank " +
                   std::to_string(x.shape.size()));
  }
  std::vector<bool> seen(perm.size(), false);
  Shape out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const auto p = perm[i];
    if (p < 0 || p >= static_cast<std::int64_t>(perm.size()) || seen[static_cast<std::size_t>(p)]) {
      return invalid("transpose perm " + shape_string(perm) + " is not a permutation");
    }
    seen[static_cast<std::size_t>(p)] = true;
    out[i] = x.shape[static_cast<std::size_t>(p)];
  }
  return TensorType{x.dtype, out};
}

StatusOr<TensorType> infer_linear(std::span<const TensorType> in) {
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  if (x.shape.empty()) return invalid("linear input must have rank >= 1");
  GLASSBOX_RETURN_IF_ERROR(expect_rank(w, 2, "linear weight"));
  if (w.shape[1] != x.shape.back()) {
    return invalid("linear weight " + shape_string(w.shape) + " does not match input " +
                   shape_string(x.shape));
  }
  if (in.size() == 3) GLASSBOX_RETURN_IF_ERROR(expect_shape(in[2], {w.shape[0]}, "linear bias"));
  Shape out = x.shape;
  out.back() = w.shape[0];
  return TensorType{x.dtype, out};
}

StatusOr<TensorType> infer_matmul(std::span<const TensorType> in) {
  const Shape& a = in[0].shape;
  const Shape& b = in[1].shape;
  if (a.size() < 2 || b.size() < 2) return invalid("matmul operands must have rank >= 2");
  if (a[a.size() - 1] != b[b.size() - 2]) {
    return invalid("matmul shapes " + shape_string(a) + " and " + shape_string(b) +
                   " do not match");
  }
  GLASSBOX_ASSIGN_OR_RETURN(
      Shape out, broadcast(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)));
  out.push_back(a[a.size() - 2]);
  out.push_back(b.back());
  return TensorType{in[0].dtype, out};
}

StatusOr<TensorType> infer_batch_norm(std::span<const TensorType> in, const AttributeMap& attrs) {
  if (in[0].shape.size() < 2) return invalid("batch_norm input must have rank >= 2");
  GLASSBOX_ASSIGN_OR_RETURN(double eps, float_attr(attrs, "eps"));
  if (!(eps >= 0)) return invalid("batch_norm eps must be >= 0");
  static constexpr std::array<std::string_view, 4> kParams = {"mean", "var", "weight", "bias"};
  for (std::size_t i = 0; i < kParams.size(); ++i) {
    GLASSBOX_RETURN_IF_ERROR(
        expect_shape(in[1 + i], {in[0].shape[1]}, "batch_norm " + std::string(kParams[i])));
  }
  return in[0];
}

StatusOr<TensorType> infer_flatten(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t start_attr, int_attr(attrs, "start_dim"));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t end_attr, int_attr(attrs, "end_dim"));
  // A 0-d tensor flattens like a 1-element vector, as in PyTorch.
  const std::size_t rank = std::max<std::size_t>(x.shape.size(), 1);
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t start, axis_in(start_attr, rank, "flatten start_dim"));
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t end, axis_in(end_attr, rank, "flatten end_dim"));
  if (start > end) return invalid("flatten start_dim after end_dim");
  Shape dims = x.shape.empty() ? Shape{1} : x.shape;
  Shape out(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(start));
  std::int64_t merged = 1;
  for (std::size_t i = start; i <= end; ++i) merged *= dims[i];
  out.push_back(merged);
  out.insert(out.end(), dims.begin() + static_cast<std::ptrdiff_t>(end) + 1, dims.end());
  return TensorType{x.dtype, out};
}

StatusOr<TensorType> infer_reshape(const TensorType& x, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape shape, ints_attr(attrs, "shape"));
  std::int64_t numel = 1;
  for (std::int64_t d : x.shape) numel *= d;
  std::int64_t known = 1;
  std::size_t inferred = shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred == shape.size()) {
      inferred = i;
    } else if (shape[i] < 0) {
      return invalid("reshape shape " + shape_string(shape) + " has a bad dimension");
    } else {
      known *= shape[i];
    }
  }
  if (inferred != shape.size()) {
    if (known == 0 || numel % known != 0) {
      return invalid("cannot reshape " + shape_string(x.shape) + " to " + shape_string(shape));
    }
    shape[inferred] = numel / known;
  } else if (known != numel) {
    return invalid("cannot reshape " + shape_string(x.shape) + " to " + shape_string(shape));
  }
  return TensorType{x.dtype, shape};
}

StatusOr<TensorType> infer_concat(std::span<const TensorType> in, const AttributeMap& attrs) {
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr, int_attr(attrs, "axis"));
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t axis,
                            axis_in(axis_attr, in[0].shape.size(), "concat axis"));
  Shape out = in[0].shape;
  for (std::size_t i = 1; i < in.size(); ++i) {
    const Shape& s = in[i].shape;
    bool compatible = s.size() == out.size();
    for (std::size_t d = 0; compatible && d < s.size(); ++d) {
      compatible = d == axis || s[d] == out[d];
    }
    if (!compatible) {
      return invalid("concat input " + std::to_string(i) + " " + shape_string(s) +
                     " does not match " + shape_string(in[0].shape) + " off axis " +
                     std::to_string(axis));
    }
    out[axis] += s[axis];
  }
  return TensorType{in[0].dtype, out};
}

// What an op takes and gives: its input count and a dtype rule, checked
// before its shape inference runs.
enum class Dtypes : std::uint8_t {
  kFloat,         // every input float; the output float
  kAnySame,       // every input of one dtype; the output too
  kNumeric,       // as kAnySame, float or int64 (or int32)
  kCompare,       // two inputs of one numeric dtype; the output bool
  kBool,          // every input bool; the output bool
  kWhere,         // bool condition, then two inputs of one dtype (the output's)
  kIndexed,       // data of any dtype, then int64 indices (scatter: updates like data)
  kCast,          // any input; the output dtype from the attribute
  kFloatToIndex,  // float input; int64 output (argmax/argmin)
  kQuantization,  // checked by infer_quantization with the shapes
  kRecurrent,     // float, but sequence_lens (input 4) int64
  kRoiAlign,      // checked by infer_roi_align with the shapes
  kDynamic,       // checked by dynamic_op_dtype (ops_dynamic.cc)
};

// Which shape inference an op takes (ops_internal.h for the new families).
enum class Shapes : std::uint8_t {
  kOriginal,       // infer_original: the ops of ops.h's first table
  kUnary,          // infer_unary_extended: output = input, attributes checked
  kBroadcast,      // infer_broadcast: numpy broadcast of every input
  kCast,           // infer_cast
  kNormalization,  // infer_normalization
  kReduce,         // infer_reduce (argmax/argmin too)
  kDataMovement,   // infer_data_movement
  kConvTranspose,  // infer_conv_transpose2d
  kQuantization,   // infer_quantization (dtypes too)
  kRecurrent,      // infer_recurrent (ops_recurrent.cc): several outputs
  kRoiAlign,       // infer_roi_align (ops_roi_align.cc; dtypes too)
  kDynamic,        // infer_dynamic (ops_dynamic.cc): outputs sized by data
  kUnique,         // infer_unique (ops_unique.cc): four outputs, three sized by data
};

struct OpInfo {
  std::string_view op;
  std::size_t min_inputs;
  std::size_t max_inputs;
  Dtypes dtypes;
  Shapes shapes;
};

constexpr std::size_t kVariadic = static_cast<std::size_t>(-1);

constexpr OpInfo kOps[] = {
    {op::kConv2d, 2, 3, Dtypes::kFloat, Shapes::kOriginal},
    {op::kRelu, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kClamp, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kSigmoid, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kHardswish, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kTan, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kSin, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kCos, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kAdd, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kSub, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kMul, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kDiv, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kLinear, 2, 3, Dtypes::kFloat, Shapes::kOriginal},
    {op::kMatmul, 2, 2, Dtypes::kFloat, Shapes::kOriginal},
    {op::kMaxPool2d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kAvgPool2d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kGlobalAvgPool2d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kBatchNorm, 5, 5, Dtypes::kFloat, Shapes::kOriginal},
    {op::kFlatten, 1, 1, Dtypes::kAnySame, Shapes::kOriginal},
    {op::kReshape, 1, 1, Dtypes::kAnySame, Shapes::kOriginal},
    {op::kConcat, 1, kVariadic, Dtypes::kAnySame, Shapes::kOriginal},
    {op::kSoftmax, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kHardsigmoid, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kTranspose, 1, 1, Dtypes::kAnySame, Shapes::kOriginal},
    // Elementwise, ONNX coverage.
    {op::kErf, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kTanh, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kExp, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kLog, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kNeg, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kAbs, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kSqrt, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kReciprocal, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kSign, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kFloor, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kCeil, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kRound, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kSoftplus, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kSoftsign, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kGelu, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kLeakyRelu, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kElu, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kSelu, 1, 1, Dtypes::kFloat, Shapes::kUnary},
    {op::kLogicalNot, 1, 1, Dtypes::kBool, Shapes::kUnary},
    {op::kMin, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kMax, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kMod, 2, 2, Dtypes::kNumeric, Shapes::kBroadcast},
    {op::kPow, 2, 2, Dtypes::kFloat, Shapes::kBroadcast},
    {op::kPrelu, 2, 2, Dtypes::kFloat, Shapes::kBroadcast},
    {op::kEqual, 2, 2, Dtypes::kCompare, Shapes::kBroadcast},
    {op::kLess, 2, 2, Dtypes::kCompare, Shapes::kBroadcast},
    {op::kGreater, 2, 2, Dtypes::kCompare, Shapes::kBroadcast},
    {op::kLessEqual, 2, 2, Dtypes::kCompare, Shapes::kBroadcast},
    {op::kGreaterEqual, 2, 2, Dtypes::kCompare, Shapes::kBroadcast},
    {op::kLogicalAnd, 2, 2, Dtypes::kBool, Shapes::kBroadcast},
    {op::kLogicalOr, 2, 2, Dtypes::kBool, Shapes::kBroadcast},
    {op::kLogicalXor, 2, 2, Dtypes::kBool, Shapes::kBroadcast},
    {op::kWhere, 3, 3, Dtypes::kWhere, Shapes::kBroadcast},
    {op::kCast, 1, 1, Dtypes::kCast, Shapes::kCast},
    // Normalization and reductions.
    {op::kLayerNorm, 2, 3, Dtypes::kFloat, Shapes::kNormalization},
    {op::kInstanceNorm, 3, 3, Dtypes::kFloat, Shapes::kNormalization},
    {op::kGroupNorm, 3, 3, Dtypes::kFloat, Shapes::kNormalization},
    {op::kReduceMean, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kReduceSum, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kReduceMax, 1, 1, Dtypes::kNumeric, Shapes::kReduce},
    {op::kReduceMin, 1, 1, Dtypes::kNumeric, Shapes::kReduce},
    {op::kReduceProd, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kReduceL1, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kReduceL2, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kReduceSumSquare, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kReduceLogSumExp, 1, 1, Dtypes::kFloat, Shapes::kReduce},
    {op::kArgmax, 1, 1, Dtypes::kFloatToIndex, Shapes::kReduce},
    {op::kArgmin, 1, 1, Dtypes::kFloatToIndex, Shapes::kReduce},
    // Data movement.
    {op::kPad, 1, 1, Dtypes::kAnySame, Shapes::kDataMovement},
    {op::kExpand, 1, 1, Dtypes::kAnySame, Shapes::kDataMovement},
    {op::kTile, 1, 1, Dtypes::kAnySame, Shapes::kDataMovement},
    {op::kSlice, 1, 1, Dtypes::kAnySame, Shapes::kDataMovement},
    {op::kGather, 2, 2, Dtypes::kIndexed, Shapes::kDataMovement},
    {op::kGatherElements, 2, 2, Dtypes::kIndexed, Shapes::kDataMovement},
    {op::kScatterNd, 3, 3, Dtypes::kIndexed, Shapes::kDataMovement},
    {op::kResize, 1, 1, Dtypes::kFloat, Shapes::kDataMovement},
    {op::kDepthToSpace, 1, 1, Dtypes::kAnySame, Shapes::kDataMovement},
    {op::kSpaceToDepth, 1, 1, Dtypes::kAnySame, Shapes::kDataMovement},
    {op::kConvTranspose2d, 2, 3, Dtypes::kFloat, Shapes::kConvTranspose},
    {op::kConvTranspose3d, 2, 3, Dtypes::kFloat, Shapes::kConvTranspose},
    // 1-D and 3-D forms of the first table's windowed ops.
    {op::kConv1d, 2, 3, Dtypes::kFloat, Shapes::kOriginal},
    {op::kConv3d, 2, 3, Dtypes::kFloat, Shapes::kOriginal},
    {op::kMaxPool1d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kMaxPool3d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kAvgPool1d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kAvgPool3d, 1, 1, Dtypes::kFloat, Shapes::kOriginal},
    {op::kCumsum, 1, 1, Dtypes::kNumeric, Shapes::kUnary},
    {op::kRoiAlign, 3, 3, Dtypes::kRoiAlign, Shapes::kRoiAlign},
    // Quantization (x, scale, zero point; dequantize's zero point optional).
    {op::kQuantizeLinear, 3, 3, Dtypes::kQuantization, Shapes::kQuantization},
    {op::kDequantizeLinear, 2, 3, Dtypes::kQuantization, Shapes::kQuantization},
    // Recurrent layers: every ONNX input present (the importer fills defaults).
    {op::kLstm, 8, 8, Dtypes::kRecurrent, Shapes::kRecurrent},
    {op::kGru, 6, 6, Dtypes::kRecurrent, Shapes::kRecurrent},
    {op::kRnn, 6, 6, Dtypes::kRecurrent, Shapes::kRecurrent},
    // Outputs sized by data (ops_dynamic.cc).
    {op::kNonZero, 1, 1, Dtypes::kDynamic, Shapes::kDynamic},
    {op::kTopK, 1, 2, Dtypes::kDynamic, Shapes::kDynamic},
    {op::kNonMaxSuppression, 2, 2, Dtypes::kDynamic, Shapes::kDynamic},
    {op::kShape, 1, 1, Dtypes::kDynamic, Shapes::kDynamic},
    {op::kFullLike, 1, 1, Dtypes::kCast, Shapes::kCast},
    {op::kUnique, 1, 1, Dtypes::kNumeric, Shapes::kUnique},
};

const OpInfo* find_op(std::string_view name) {
  for (const OpInfo& info : kOps) {
    if (info.op == name) return &info;
  }
  return nullptr;
}

bool is_numeric(ScalarType t) {
  return t == ScalarType::kFloat || t == ScalarType::kLong || t == ScalarType::kInt;
}

Status dtype_error(std::string_view op, std::size_t index, ScalarType got, std::string_view want) {
  // An int8/uint8 tensor where float is wanted has no scale to give it a
  // meaning: say what the model is missing.
  const bool quantized = got == ScalarType::kChar || got == ScalarType::kByte;
  return invalid(std::string(op) + " input " + std::to_string(index) + " has dtype " +
                 std::string(to_string(got)) + ", expected " + std::string(want) +
                 (quantized && want == "FLOAT"
                      ? " (an int8/uint8 tensor has no scale here: dequantize it first)"
                      : ""));
}

// Checks `in` against the op's dtype rule; returns the output dtype.
StatusOr<ScalarType> check_dtypes(const OpInfo& info, std::span<const TensorType> in,
                                  const AttributeMap& attrs) {
  const std::string_view op = info.op;
  auto all_same_from = [&](std::size_t first) -> Status {
    for (std::size_t i = first + 1; i < in.size(); ++i) {
      if (in[i].dtype != in[first].dtype) {
        return dtype_error(op, i, in[i].dtype, to_string(in[first].dtype));
      }
    }
    return Status();
  };
  switch (info.dtypes) {
    case Dtypes::kFloat:
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i].dtype != ScalarType::kFloat) return dtype_error(op, i, in[i].dtype, "FLOAT");
      }
      return ScalarType::kFloat;
    case Dtypes::kAnySame: GLASSBOX_RETURN_IF_ERROR(all_same_from(0)); return in[0].dtype;
    case Dtypes::kNumeric:
    case Dtypes::kCompare:
      if (!is_numeric(in[0].dtype)) return dtype_error(op, 0, in[0].dtype, "FLOAT, LONG or INT");
      GLASSBOX_RETURN_IF_ERROR(all_same_from(0));
      return info.dtypes == Dtypes::kCompare ? ScalarType::kBool : in[0].dtype;
    case Dtypes::kBool:
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i].dtype != ScalarType::kBool) return dtype_error(op, i, in[i].dtype, "BOOL");
      }
      return ScalarType::kBool;
    case Dtypes::kWhere:
      if (in[0].dtype != ScalarType::kBool) return dtype_error(op, 0, in[0].dtype, "BOOL");
      GLASSBOX_RETURN_IF_ERROR(all_same_from(1));
      return in[1].dtype;
    case Dtypes::kIndexed:
      if (in[1].dtype != ScalarType::kLong) return dtype_error(op, 1, in[1].dtype, "LONG");
      if (in.size() == 3 && in[2].dtype != in[0].dtype) {
        return dtype_error(op, 2, in[2].dtype, to_string(in[0].dtype));
      }
      return in[0].dtype;
    case Dtypes::kCast: {
      GLASSBOX_ASSIGN_OR_RETURN(std::int64_t to, int_attr(attrs, "dtype"));
      const auto target = static_cast<ScalarType>(to);
      if (to < 0 || to > 127 || element_size(target) == 0 ||
          !(is_numeric(target) || target == ScalarType::kBool || target == ScalarType::kChar ||
            target == ScalarType::kByte)) {
        return invalid("cast to dtype " + std::to_string(to) + " is not supported");
      }
      return target;
    }
    case Dtypes::kFloatToIndex:
      if (in[0].dtype != ScalarType::kFloat) return dtype_error(op, 0, in[0].dtype, "FLOAT");
      return ScalarType::kLong;
    case Dtypes::kQuantization:
      return op == op::kQuantizeLinear && in.size() == 3 ? in[2].dtype : ScalarType::kFloat;
    case Dtypes::kRecurrent:
      for (std::size_t i = 0; i < in.size(); ++i) {
        const ScalarType want = i == 4 ? ScalarType::kLong : ScalarType::kFloat;
        if (in[i].dtype != want) return dtype_error(op, i, in[i].dtype, to_string(want));
      }
      return ScalarType::kFloat;
    case Dtypes::kRoiAlign: return ScalarType::kFloat;
    case Dtypes::kDynamic: return dynamic_op_dtype(op, in);
  }
  return invalid("unknown dtype rule");
}

StatusOr<TensorType> infer_original(std::string_view op_name, std::span<const TensorType> in,
                                    const AttributeMap& attrs) {
  if (const std::size_t n = spatial_rank(op_name); n != 0) {
    if (op_name.starts_with("conv")) return infer_conv(op_name, n, in, attrs);
    return infer_pool(op_name, n, in, attrs);
  }
  if (op_name == op::kTranspose) return infer_transpose(in[0], attrs);
  if (op_name == op::kLinear) return infer_linear(in);
  if (op_name == op::kMatmul) return infer_matmul(in);
  if (op_name == op::kBatchNorm) return infer_batch_norm(in, attrs);
  if (op_name == op::kFlatten) return infer_flatten(in[0], attrs);
  if (op_name == op::kReshape) {
    GLASSBOX_RETURN_IF_ERROR(check_dynamic_reshape(in[0], attrs));
    return infer_reshape(in[0], attrs);
  }
  if (op_name == op::kConcat) return infer_concat(in, attrs);
  if (op_name == op::kGlobalAvgPool2d) {
    GLASSBOX_RETURN_IF_ERROR(expect_rank(in[0], 4, "global_avg_pool2d input"));
    return TensorType{in[0].dtype, {in[0].shape[0], in[0].shape[1], 1, 1}};
  }
  if (op_name == op::kSoftmax) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis, int_attr(attrs, "axis"));
    GLASSBOX_RETURN_IF_ERROR(axis_in(axis, in[0].shape.size(), "softmax axis"));
    return in[0];
  }
  if (op_name == op::kClamp) {
    // Either bound may be absent (unbounded on that side, as ONNX Clip).
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    if (attrs.contains("min")) {
      GLASSBOX_ASSIGN_OR_RETURN(min, float_attr(attrs, "min"));
    }
    if (attrs.contains("max")) {
      GLASSBOX_ASSIGN_OR_RETURN(max, float_attr(attrs, "max"));
    }
    if (!(min <= max)) return invalid("clamp min must be <= max");
    return in[0];
  }
  if (op_name == op::kHardsigmoid) {
    GLASSBOX_ASSIGN_OR_RETURN(double alpha, float_attr(attrs, "alpha"));
    GLASSBOX_ASSIGN_OR_RETURN(double beta, float_attr(attrs, "beta"));
    if (!std::isfinite(alpha) || !std::isfinite(beta)) {
      return invalid("hardsigmoid alpha and beta must be finite");
    }
    return in[0];
  }
  return in[0];  // relu, sigmoid, hardswish, tan, sin, cos
}

}  // namespace

bool is_known_op(std::string_view name) { return find_op(name) != nullptr; }

std::size_t spatial_rank(std::string_view op_name) {
  struct Windowed {
    std::string_view op;
    std::size_t rank;
  };
  static constexpr Windowed kWindowed[] = {
      {op::kConv1d, 1},          {op::kConv2d, 2},          {op::kConv3d, 3},
      {op::kConvTranspose2d, 2}, {op::kConvTranspose3d, 3}, {op::kMaxPool1d, 1},
      {op::kMaxPool2d, 2},       {op::kMaxPool3d, 3},       {op::kAvgPool1d, 1},
      {op::kAvgPool2d, 2},       {op::kAvgPool3d, 3},
  };
  for (const Windowed& w : kWindowed) {
    if (w.op == op_name) return w.rank;
  }
  return 0;
}

StatusOr<TensorType> infer_output_type(std::string_view op_name, std::span<const TensorType> in,
                                       const AttributeMap& attrs) {
  const OpInfo* info = find_op(op_name);
  if (info == nullptr) return invalid("unknown op '" + std::string(op_name) + "'");
  if (in.size() < info->min_inputs || in.size() > info->max_inputs) {
    return invalid(std::string(op_name) + " takes " + std::to_string(info->min_inputs) +
                   (info->max_inputs == info->min_inputs ? ""
                    : info->max_inputs == kVariadic      ? " or more"
                                                    : " to " + std::to_string(info->max_inputs)) +
                   " inputs, got " + std::to_string(in.size()));
  }
  // Bounds first, so that no shape rule below can overflow int64: every
  // dimension and integer attribute is at most 2^31 in magnitude, ranks at
  // most 6, so sums and products of a few of them stay far below 2^63.
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Shape& shape = in[i].shape;
    if (shape.size() > kMaxRank) {
      return invalid("input " + std::to_string(i) + " has rank " + std::to_string(shape.size()) +
                     "; at most " + std::to_string(kMaxRank) + " is supported");
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] < 0 || shape[d] > kMaxDimension) {
        return invalid("input " + std::to_string(i) + " dim " + std::to_string(d) + " is " +
                       std::to_string(shape[d]) + " in " + shape_string(shape) +
                       "; dims must be in [0, 2^31]");
      }
    }
  }
  for (const auto& [name, value] : attrs) {
    Shape ints;
    if (const auto* one = std::get_if<std::int64_t>(&value)) ints.push_back(*one);
    if (const auto* list = std::get_if<Shape>(&value)) ints = *list;
    for (std::int64_t v : ints) {
      if (v < -kMaxDimension || v > kMaxDimension) {
        return invalid("attribute '" + name + "' has the value " + std::to_string(v) +
                       "; integer attributes must be within +-2^31");
      }
    }
  }
  GLASSBOX_ASSIGN_OR_RETURN(ScalarType out_dtype, check_dtypes(*info, in, attrs));
  // A dynamic input holds its bound until the kernel that makes it runs:
  // only an op whose kernel reads its inputs' actual sizes may take one.
  bool any_dynamic = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i].dynamic) continue;
    const bool sized_in_prepare = info->shapes == Shapes::kBroadcast ||
                                  info->shapes == Shapes::kUnary || info->shapes == Shapes::kCast ||
                                  info->shapes == Shapes::kReduce;
    if (!sized_in_prepare && !takes_dynamic_inputs(op_name)) {
      return invalid("input " + std::to_string(i) + " is sized by data at run time (at most " +
                     shape_string(in[i].shape) + "), which " + std::string(op_name) +
                     " does not take");
    }
    any_dynamic = true;
  }
  StatusOr<TensorType> out = [&]() -> StatusOr<TensorType> {
    switch (info->shapes) {
      case Shapes::kOriginal: return infer_original(op_name, in, attrs);
      case Shapes::kUnary: return infer_unary_extended(op_name, in, attrs);
      case Shapes::kBroadcast: return infer_broadcast(op_name, in, attrs, out_dtype);
      case Shapes::kCast: return infer_cast(in, attrs);
      case Shapes::kNormalization: return infer_normalization(op_name, in, attrs);
      case Shapes::kReduce: return infer_reduce(op_name, in, attrs);
      case Shapes::kDataMovement: return infer_data_movement(op_name, in, attrs);
      case Shapes::kConvTranspose: return infer_conv_transpose(op_name, in, attrs);
      case Shapes::kQuantization: return infer_quantization(op_name, in, attrs);
      case Shapes::kRoiAlign: return infer_roi_align(in, attrs);
      case Shapes::kUnique: {
        GLASSBOX_ASSIGN_OR_RETURN(std::vector<TensorType> all, infer_unique(in, attrs));
        return all.front();
      }
      case Shapes::kDynamic: {
        GLASSBOX_ASSIGN_OR_RETURN(std::vector<TensorType> all, infer_dynamic(op_name, in, attrs));
        return all.front();
      }
      case Shapes::kRecurrent: {
        GLASSBOX_ASSIGN_OR_RETURN(std::vector<TensorType> all, infer_recurrent(op_name, in, attrs));
        return all.front();
      }
    }
    return invalid("no shape rule for '" + std::string(op_name) + "'");
  }();
  if (!out.ok()) return out;
  out->dtype = out_dtype;
  if (any_dynamic && op_name != op::kShape) out->dynamic = true;  // shape: sizes, not data
  if (out->shape.size() > kMaxRank) {
    return invalid("the output would have rank " + std::to_string(out->shape.size()) +
                   "; at most " + std::to_string(kMaxRank) + " is supported");
  }
  GLASSBOX_RETURN_IF_ERROR(checked_numel(out->shape));
  return out;
}

StatusOr<std::vector<TensorType>> infer_output_types(std::string_view op_name,
                                                     std::span<const TensorType> in,
                                                     const AttributeMap& attrs) {
  // infer_output_type runs the checks every op shares (and gives output 0).
  GLASSBOX_ASSIGN_OR_RETURN(TensorType first, infer_output_type(op_name, in, attrs));
  const OpInfo* info = find_op(op_name);
  if (info->shapes == Shapes::kRecurrent) return infer_recurrent(op_name, in, attrs);
  if (info->shapes == Shapes::kDynamic) return infer_dynamic(op_name, in, attrs);
  if (info->shapes == Shapes::kUnique) return infer_unique(in, attrs);
  return std::vector<TensorType>{std::move(first)};
}

}  // namespace glassbox::aot

// Conv, MaxPool, AveragePool, LpPool (1-D, 2-D and 3-D), GlobalAveragePool,
// GlobalMaxPool, BatchNormalization,
// MatMul, Gemm and Softmax.

#include <onnx/onnx_pb.h>

#include <array>
#include <cmath>
#include <string_view>

#include "frontends/onnx/constant_folding.h"
#include "frontends/onnx/converters.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;
using Shape = std::vector<std::int64_t>;

// The spatial window attributes shared by Conv and the pools, one entry
// per spatial dim, resolved against the input's sizes (auto_pad decides
// the pads).
struct Window {
  Shape kernel;
  Shape stride;
  Shape dilation;
  Shape pads;  // ONNX order: the begins, then the ends
};

// A per-spatial-dim attribute (strides, dilations, kernel_shape) of n
// entries.
StatusOr<Shape> spatial(ImportContext& c, const std::string& name, std::size_t n, Shape fallback) {
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> v, c.attributes().get_ints(name));
  if (!v) return fallback;
  if (v->size() != n) {
    return c.invalid("attribute '" + name + "' must have " + std::to_string(n) +
                     " entries, one per spatial dim");
  }
  for (std::int64_t e : *v) {
    if (e < 1) return c.invalid("attribute '" + name + "' must be >= 1");
  }
  return *v;
}

StatusOr<Window> read_window(ImportContext& c, const Shape& x, Shape kernel) {
  const std::size_t n = kernel.size();
  Window w;
  w.kernel = std::move(kernel);
  w.pads.assign(2 * n, 0);
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(w.stride, spatial(c, "strides", n, Shape(n, 1)));
  GLASSBOX_ASSIGN_OR_RETURN(w.dilation, spatial(c, "dilations", n, Shape(n, 1)));
  GLASSBOX_ASSIGN_OR_RETURN(std::string auto_pad, attrs.get_string("auto_pad", "NOTSET"));
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> pads, attrs.get_ints("pads"));
  if (auto_pad == "NOTSET") {
    if (pads) {
      if (pads->size() != 2 * n) {
        return c.invalid("attribute 'pads' must have " + std::to_string(2 * n) +
                         " entries, two per spatial dim");
      }
      for (std::size_t i = 0; i < 2 * n; ++i) {
        if ((*pads)[i] < 0) return c.invalid("attribute 'pads' must be >= 0");
        w.pads[i] = (*pads)[i];
      }
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (std::size_t i = 0; i < n; ++i) {
      // Output size ceil(in / stride); the odd pad goes at the end for
      // SAME_UPPER, at the beginning for SAME_LOWER.
      const std::int64_t in = x[2 + i];
      const std::int64_t out = (in + w.stride[i] - 1) / w.stride[i];
      const std::int64_t span = w.dilation[i] * (w.kernel[i] - 1) + 1;
      const std::int64_t total = std::max<std::int64_t>((out - 1) * w.stride[i] + span - in, 0);
      const std::int64_t small = total / 2;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pads[i + n] = total - w.pads[i];
    }
  } else if (auto_pad != "VALID") {
    return c.invalid("unknown auto_pad '" + auto_pad + "'");
  }
  return w;
}

// Symmetric padding is written as n entries, so graphs stay in the form
// PyTorch-built ones have (and backends reading [h, w] keep working) --
// unless it breaks PyTorch's "at most half the kernel" rule that ops.h
// applies to that form; ONNX allows more, as 2n entries.
aot::AttributeValue padding_attribute(const Window& w) {
  const std::size_t n = w.kernel.size();
  bool symmetric = true;
  for (std::size_t i = 0; i < n; ++i) {
    symmetric = symmetric && w.pads[i] == w.pads[n + i] && 2 * w.pads[i] <= w.kernel[i];
  }
  if (symmetric) return Shape(w.pads.begin(), w.pads.begin() + static_cast<std::ptrdiff_t>(n));
  return w.pads;
}

// The spatial rank of an N x C x D1 x ... input: 1, 2 or 3.
StatusOr<std::size_t> spatial_dims(ImportContext& c, const Shape& x, const char* what) {
  if (x.size() >= 3 && x.size() <= 5) return x.size() - 2;
  return c.unsupported(std::string(what) + " has rank " + std::to_string(x.size()) +
                       "; only 1-D, 2-D and 3-D (NCL, NCHW, NCDHW) are supported");
}

// The IR op of a windowed family by spatial rank (1, 2 or 3).
std::string_view by_rank(std::size_t n, std::string_view one, std::string_view two,
                         std::string_view three) {
  return n == 1 ? one : n == 2 ? two : three;
}

}  // namespace

StatusOr<ValueId> emit_conv(ImportContext& c, std::vector<ValueId> inputs) {
  const Shape x_shape = c.writer().type_of(inputs[0]).shape;
  const Shape w_shape = c.writer().type_of(inputs[1]).shape;
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t n, spatial_dims(c, x_shape, "the input"));
  if (w_shape.size() != x_shape.size()) {
    return c.invalid("the weight's rank " + std::to_string(w_shape.size()) +
                     " differs from the input's " + std::to_string(x_shape.size()));
  }
  const Shape weight_kernel(w_shape.begin() + 2, w_shape.end());
  GLASSBOX_ASSIGN_OR_RETURN(Shape kernel, spatial(c, "kernel_shape", n, weight_kernel));
  if (kernel != weight_kernel) return c.invalid("kernel_shape does not match the weight's shape");
  GLASSBOX_ASSIGN_OR_RETURN(Window w, read_window(c, x_shape, kernel));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t group, c.attributes().get_int("group", 1));
  return c.emit(by_rank(n, aot::op::kConv1d, aot::op::kConv2d, aot::op::kConv3d), std::move(inputs),
                {{"stride", w.stride},
                 {"padding", padding_attribute(w)},
                 {"dilation", w.dilation},
                 {"groups", group}});
}

namespace {

Status convert_conv(ImportContext& c) {
  std::vector<ValueId> inputs;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!c.has_input(i)) continue;
    GLASSBOX_ASSIGN_OR_RETURN(ValueId v, c.value_input(i));
    inputs.push_back(v);
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_conv(c, std::move(inputs)));
  c.set_output(0, y);
  return Status();
}

// A pool's window: kernel_shape (required) and read_window's attributes.
StatusOr<Window> read_pool_window(ImportContext& c, const Shape& x_shape, std::size_t n) {
  GLASSBOX_ASSIGN_OR_RETURN(std::optional<Shape> kernel_attr,
                            c.attributes().get_ints("kernel_shape"));
  if (!kernel_attr) return c.invalid("attribute 'kernel_shape' is required");
  GLASSBOX_ASSIGN_OR_RETURN(Shape kernel, spatial(c, "kernel_shape", n, Shape(n, 1)));
  return read_window(c, x_shape, kernel);
}

Status pool(ImportContext& c, bool avg) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape x_shape, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t n, spatial_dims(c, x_shape, "the input"));
  if (c.has_output(1)) return c.unsupported("the Indices output is not supported");
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(Window w, read_pool_window(c, x_shape, n));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t ceil_mode, attrs.get_int("ceil_mode", 0));
  aot::AttributeMap out = {
      {"kernel", w.kernel}, {"stride", w.stride}, {"padding", padding_attribute(w)}};
  if (ceil_mode != 0) out["ceil_mode"] = std::int64_t{1};
  const bool dilated = w.dilation != Shape(n, 1);
  if (avg) {
    // ONNX's default is 0, the IR's (PyTorch's) is 1: always write it.
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t include, attrs.get_int("count_include_pad", 0));
    out["count_include_pad"] = include;
    if (dilated) return c.unsupported("AveragePool dilations are not supported");
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t storage_order, attrs.get_int("storage_order", 0));
    if (storage_order != 0) return c.unsupported("storage_order 1 is not supported");
    if (dilated) out["dilation"] = w.dilation;
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const std::string_view op =
      avg ? by_rank(n, aot::op::kAvgPool1d, aot::op::kAvgPool2d, aot::op::kAvgPool3d)
          : by_rank(n, aot::op::kMaxPool1d, aot::op::kMaxPool2d, aot::op::kMaxPool3d);
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, c.emit(op, {x}, std::move(out)));
  c.set_output(0, y);
  return Status();
}

Status convert_max_pool(ImportContext& c) { return pool(c, false); }
Status convert_average_pool(ImportContext& c) { return pool(c, true); }

// LpPool: (sum over the window of |x|^p)^(1/p). The window sum is a
// depthwise convolution with a weight of ones (zero padding, dilations and
// every spatial rank come with it); |x|^p before and the root after are
// elementwise (p = 1 and 2 as abs / x*x and sqrt). One source operator.
Status convert_lp_pool(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape x_shape, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(std::size_t n, spatial_dims(c, x_shape, "the input"));
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(Window w, read_pool_window(c, x_shape, n));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t ceil_mode, attrs.get_int("ceil_mode", 0));
  if (ceil_mode != 0) return c.unsupported("LpPool's ceil_mode 1 is not supported");
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t p, attrs.get_int("p", 2));
  if (p < 1) return c.invalid("attribute 'p' must be >= 1, got " + std::to_string(p));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  ValueId powered = x;
  if (p == 2) {
    GLASSBOX_ASSIGN_OR_RETURN(powered, c.emit(aot::op::kMul, {x, x}, {}, "square"));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(powered, c.emit(aot::op::kAbs, {x}));
    if (p > 2) {
      const ValueId exponent = c.add_constant("p", {}, {static_cast<float>(p)});
      GLASSBOX_ASSIGN_OR_RETURN(powered, c.emit(aot::op::kPow, {powered, exponent}));
    }
  }
  const std::int64_t channels = x_shape[1];
  Shape weight_shape = {channels, 1};
  std::int64_t weight_count = channels;
  for (std::int64_t k : w.kernel) {
    weight_shape.push_back(k);
    weight_count *= k;
  }
  const ValueId ones = c.add_constant(
      "window", weight_shape, std::vector<float>(static_cast<std::size_t>(weight_count), 1.0f));
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId sum,
      c.emit(by_rank(n, aot::op::kConv1d, aot::op::kConv2d, aot::op::kConv3d), {powered, ones},
             {{"stride", w.stride},
              {"padding", padding_attribute(w)},
              {"dilation", w.dilation},
              {"groups", channels}},
             "window_sum"));
  ValueId y = sum;
  if (p == 2) {
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kSqrt, {sum}));
  } else if (p > 2) {
    const ValueId root = c.add_constant("root", {}, {1.0f / static_cast<float>(p)});
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kPow, {sum, root}));
  }
  c.set_output(0, y);
  return Status();
}

// A global pool of any spatial rank: 2-D average is the IR's (and the
// delegates') global_avg_pool2d; the rest are reduce_mean / reduce_max
// over the spatial axes with the dims kept, which is the same arithmetic.
Status global_pool(ImportContext& c, bool avg) {
  GLASSBOX_ASSIGN_OR_RETURN(Shape x_shape, c.input_shape(0));
  if (x_shape.size() < 3) {
    return c.invalid("the input has rank " + std::to_string(x_shape.size()) +
                     "; a global pool needs N x C x spatial dims");
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  ValueId y;
  if (avg && x_shape.size() == 4) {
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kGlobalAvgPool2d, {x}));
  } else {
    Shape axes;
    for (std::size_t a = 2; a < x_shape.size(); ++a) axes.push_back(static_cast<std::int64_t>(a));
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(avg ? aot::op::kReduceMean : aot::op::kReduceMax, {x},
                                        {{"axes", axes}, {"keepdims", std::int64_t{1}}}));
  }
  c.set_output(0, y);
  return Status();
}

Status convert_global_average_pool(ImportContext& c) { return global_pool(c, true); }
Status convert_global_max_pool(ImportContext& c) { return global_pool(c, false); }

Status convert_batch_norm(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t training, attrs.get_int("training_mode", 0));
  if (training != 0 || c.has_output(1) || c.has_output(2)) {
    return c.unsupported("training mode (running statistics outputs) is not supported");
  }
  constexpr float kDefaultEpsilon = 1e-5f;
  GLASSBOX_ASSIGN_OR_RETURN(float eps, attrs.get_float("epsilon", kDefaultEpsilon));
  // ONNX order: X, scale, B, mean, var; the IR's: x, mean, var, weight, bias.
  std::array<ValueId, 5> in;
  for (std::size_t i = 0; i < in.size(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(in[i], c.value_input(i));
  }
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kBatchNorm, {in[0], in[3], in[4], in[1], in[2]},
                                   {{"eps", static_cast<double>(eps)}}));
  c.set_output(0, y);
  return Status();
}

// numpy.matmul: a 1-D operand is a row (a) or column (b) vector, whose
// unit dim is dropped from the result.
}  // namespace

StatusOr<ValueId> emit_matmul(ImportContext& c, ValueId a, ValueId b) {
  Shape sa = c.writer().type_of(a).shape;
  Shape sb = c.writer().type_of(b).shape;
  if (sa.empty() || sb.empty()) return c.invalid("MatMul operands must have rank >= 1");
  const bool a_vector = sa.size() == 1;
  const bool b_vector = sb.size() == 1;
  if (a_vector) {
    GLASSBOX_ASSIGN_OR_RETURN(
        a, c.emit(aot::op::kReshape, {a}, {{"shape", Shape{1, sa[0]}}}, "a_row"));
  }
  if (b_vector) {
    GLASSBOX_ASSIGN_OR_RETURN(
        b, c.emit(aot::op::kReshape, {b}, {{"shape", Shape{sb[0], 1}}}, "b_column"));
  }
  const bool squeeze = a_vector || b_vector;
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kMatmul, {a, b}, {}, squeeze ? "matmul" : ""));
  if (squeeze) {
    Shape out = c.writer().type_of(y).shape;
    if (b_vector) out.pop_back();
    if (a_vector) out.erase(out.end() - (b_vector ? 1 : 2));
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kReshape, {y}, {{"shape", out}}));
  }
  return y;
}

namespace {

Status convert_matmul(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, c.value_input(0));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId b, c.value_input(1));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y, emit_matmul(c, a, b));
  c.set_output(0, y);
  return Status();
}

// Y = alpha * A' * B' + beta * C as linear(A', W) with W = B'^T [N, K],
// transposed and scaled at import when B is a constant; C of shape [N]
// becomes linear's bias, any other broadcastable C an add.
Status convert_gemm(ImportContext& c) {
  const NodeAttributes attrs = c.attributes();
  GLASSBOX_ASSIGN_OR_RETURN(float alpha, attrs.get_float("alpha", 1.0f));
  GLASSBOX_ASSIGN_OR_RETURN(float beta, attrs.get_float("beta", 1.0f));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t trans_a, attrs.get_int("transA", 0));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t trans_b, attrs.get_int("transB", 0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape sa, c.input_shape(0));
  GLASSBOX_ASSIGN_OR_RETURN(Shape sb, c.input_shape(1));
  if (sa.size() != 2 || sb.size() != 2) return c.invalid("Gemm operands must be 2-D");
  const std::int64_t n = trans_b ? sb[0] : sb[1];

  GLASSBOX_ASSIGN_OR_RETURN(ValueId a, c.value_input(0));
  if (trans_a) {
    GLASSBOX_ASSIGN_OR_RETURN(
        a, c.emit(aot::op::kTranspose, {a}, {{"perm", Shape{1, 0}}}, "transpose_a"));
  }
  bool alpha_applied = alpha == 1.0f;
  ValueId w;
  if (trans_b && alpha_applied) {
    GLASSBOX_ASSIGN_OR_RETURN(w, c.value_input(1));  // Already [N, K]: share it.
  } else if (c.is_host(1)) {
    GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* b, c.host_input(1, "B"));
    if (!b->is_float) return c.unsupported("an integer B is not supported");
    HostTensor weight = *b;
    if (!trans_b) {
      StatusOr<HostTensor> t = fold_transpose(weight, {1, 0});
      if (!t.ok()) return c.invalid(t.message());
      weight = *std::move(t);
    }
    if (!alpha_applied) {
      for (float& v : weight.floats) v *= alpha;
      alpha_applied = true;
    }
    w = c.add_constant("weight", weight.shape, std::move(weight.floats));
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(w, c.value_input(1));
    if (!trans_b) {
      GLASSBOX_ASSIGN_OR_RETURN(
          w, c.emit(aot::op::kTranspose, {w}, {{"perm", Shape{1, 0}}}, "transpose_b"));
    }
  }

  std::vector<ValueId> linear_inputs{a, w};
  bool c_used = !c.has_input(2);
  if (!c_used && alpha_applied) {
    GLASSBOX_ASSIGN_OR_RETURN(Shape sc, c.input_shape(2));
    if (sc == Shape{n} && (beta == 1.0f || c.is_host(2))) {
      ValueId bias;
      if (beta == 1.0f) {
        GLASSBOX_ASSIGN_OR_RETURN(bias, c.value_input(2));
      } else {
        GLASSBOX_ASSIGN_OR_RETURN(const HostTensor* ct, c.host_input(2, "C"));
        if (!ct->is_float) return c.unsupported("an integer C is not supported");
        std::vector<float> scaled = ct->floats;
        for (float& v : scaled) v *= beta;
        bias = c.add_constant("bias_scaled", {n}, std::move(scaled));
      }
      linear_inputs.push_back(bias);
      c_used = true;
    }
  }
  const bool more = !alpha_applied || !c_used;
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kLinear, linear_inputs, {}, more ? "linear" : ""));
  if (!alpha_applied) {
    const ValueId scale = c.add_constant("alpha", {}, {alpha});
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kMul, {y, scale}, {}, c_used ? "" : "alpha"));
  }
  if (!c_used) {
    GLASSBOX_ASSIGN_OR_RETURN(ValueId cv, c.value_input(2));
    if (beta != 1.0f) {
      const ValueId scale = c.add_constant("beta", {}, {beta});
      GLASSBOX_ASSIGN_OR_RETURN(cv, c.emit(aot::op::kMul, {cv, scale}, {}, "beta"));
    }
    GLASSBOX_ASSIGN_OR_RETURN(y, c.emit(aot::op::kAdd, {y, cv}));
  }
  c.set_output(0, y);
  return Status();
}

// Softmax-13 normalises one axis. Softmax-11/12 flatten the input to 2-D at
// `axis` (default 1) and normalise the rows: a reshape around the softmax,
// unless the axis is already the last.
Status convert_softmax(ImportContext& c) {
  GLASSBOX_ASSIGN_OR_RETURN(ValueId x, c.value_input(0));
  const Shape shape = c.writer().type_of(x).shape;
  const bool coerce_2d = c.opset() < 13;
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t axis_attr,
                            c.attributes().get_int("axis", coerce_2d ? 1 : -1));
  StatusOr<std::size_t> axis = normalize_axis(axis_attr, shape.size());
  if (!axis.ok()) return c.invalid(axis.message());
  if (!coerce_2d || *axis + 1 == shape.size()) {
    GLASSBOX_ASSIGN_OR_RETURN(
        ValueId y, c.emit(aot::op::kSoftmax, {x}, {{"axis", static_cast<std::int64_t>(*axis)}}));
    c.set_output(0, y);
    return Status();
  }
  std::int64_t rows = 1, cols = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) (d < *axis ? rows : cols) *= shape[d];
  GLASSBOX_ASSIGN_OR_RETURN(
      ValueId flat, c.emit(aot::op::kReshape, {x}, {{"shape", Shape{rows, cols}}}, "to_2d"));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId soft,
                            c.emit(aot::op::kSoftmax, {flat}, {{"axis", std::int64_t{1}}}));
  GLASSBOX_ASSIGN_OR_RETURN(ValueId y,
                            c.emit(aot::op::kReshape, {soft}, {{"shape", shape}}, "from_2d"));
  c.set_output(0, y);
  return Status();
}

}  // namespace

void add_nn_converters(ConverterTable* table) {
  table->emplace("AveragePool", convert_average_pool);
  table->emplace("BatchNormalization", convert_batch_norm);
  table->emplace("Conv", convert_conv);
  table->emplace("Gemm", convert_gemm);
  table->emplace("GlobalAveragePool", convert_global_average_pool);
  table->emplace("GlobalMaxPool", convert_global_max_pool);
  table->emplace("MatMul", convert_matmul);
  table->emplace("LpPool", convert_lp_pool);
  table->emplace("MaxPool", convert_max_pool);
  table->emplace("Softmax", convert_softmax);
}

}  // namespace glassbox::frontends::onnx

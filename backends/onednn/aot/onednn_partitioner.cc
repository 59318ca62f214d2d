#include "backends/onednn/aot/onednn_partitioner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
#include "backends/onednn/aot/fused_patterns.h"
#include "backends/onednn/aot/recurrent_lowering.h"
#include "backends/onednn/onednn_format.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::onednn {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

constexpr char kTaken[] = "";

const Node* dequantized_constant_node(const Graph& graph, ValueId id);

// Computed inside the partition: an input or a node output other than a
// dequantized constant (which the lowering reads as a constant).
bool computed(const Graph& graph, ValueId id) {
  return is_computed(graph, id) && dequantized_constant_node(graph, id) == nullptr;
}

bool is_int8(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }

std::string value_rejection(const Graph& graph, ValueId id, bool int8_ok = false) {
  const aot::Value* v = graph.find_value(id);
  if (v == nullptr) return "unknown value";
  // Its size is set by the portable kernel that makes it, at each execution.
  if (v->dynamic) return "tensor sized by data (dynamic)";
  if (v->dtype != ScalarType::kFloat && !(int8_ok && is_int8(v->dtype))) {
    return is_int8(v->dtype) ? "int8 tensor outside quantize_linear / dequantize_linear"
                             : "non-float tensor";
  }
  if (v->shape.empty()) return "0-d tensor";
  if (v->shape.size() > kDnnMaxRank) return "tensor of rank > 6";
  for (std::int64_t d : v->shape) {
    if (d <= 0) return "empty tensor";
  }
  return kTaken;
}

const std::vector<std::int64_t>& shape_of(const Graph& graph, ValueId id) {
  static const std::vector<std::int64_t> kNone;
  const aot::Value* v = graph.find_value(id);
  return v == nullptr ? kNone : v->shape;
}

bool is_binary(std::string_view op) {
  return op == "add" || op == "sub" || op == "mul" || op == "div" || op == "min" || op == "max";
}

const aot::Value* constant_value(const Graph& graph, ValueId id) {
  const aot::Value* v = graph.find_value(id);
  return v != nullptr && v->kind == aot::ValueKind::kConstant ? v : nullptr;
}

// The users of `id` among the graph's nodes, and whether it is an output.
std::vector<const Node*> readers_of(const Graph& graph, ValueId id, bool* is_output) {
  std::vector<const Node*> readers;
  for (const Node& n : graph.nodes) {
    if (std::find(n.inputs.begin(), n.inputs.end(), id) != n.inputs.end()) readers.push_back(&n);
  }
  *is_output = std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
  return readers;
}

std::string quantize_rejection(const Graph& graph, const Node& node) {
  if (node.op == aot::op::kDequantizeLinear && !computed(graph, node.inputs[0])) {
    return kTaken;  // a dequantized constant: see onednn_rejection
  }
  if (!per_tensor_quant(graph, node)) {
    return "quantization other than one constant scale and zero point (int8 or uint8)";
  }
  if (node.op == aot::op::kQuantizeLinear) {
    if (!computed(graph, node.inputs[0])) return "constant input";
    return value_rejection(graph, node.inputs[0]);
  }
  if (computed(graph, node.inputs[0])) return value_rejection(graph, node.inputs[0], true);
  return kTaken;  // a dequantized constant: see onednn_rejection
}

std::string conv_rejection(const Graph& graph, const Node& node) {
  const std::size_t rank = node.op == aot::op::kConv1d ? 3 : node.op == aot::op::kConv3d ? 5 : 4;
  if (shape_of(graph, node.inputs[0]).size() != rank) {
    return std::string(node.op) + " input not " + std::to_string(rank) + "-D";
  }
  if (!is_constant_operand(graph, node.inputs[1])) return "non-constant weights";
  if (node.inputs.size() > 2 && !is_constant_operand(graph, node.inputs[2])) {
    return "non-constant bias";
  }
  return kTaken;
}

// Folded into the convolution before it when it is that convolution's only
// user; otherwise (DenseNet's, after a concat) a depthwise 1x1 convolution
// whose weights are the per-channel scale and shift.
std::string batch_norm_rejection(const Graph& graph, const Node& node) {
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {  // (never dequantized: float only)
    if (!is_float_constant(graph, node.inputs[i])) return "non-constant batch_norm parameters";
  }
  if (!computed(graph, node.inputs[0])) return "constant input";
  const std::size_t rank = shape_of(graph, node.inputs[0]).size();
  if (rank == 3 || rank == 5) {
    // Folded into the conv1d (conv3d) before it: the lone form is a 2-D
    // depthwise convolution.
    const std::string_view conv_op = rank == 3 ? aot::op::kConv1d : aot::op::kConv3d;
    const Node* conv = producer_of(graph, node.inputs[0]);
    bool is_output = false;
    if (conv == nullptr || conv->op != conv_op ||
        readers_of(graph, node.inputs[0], &is_output).size() != 1 || is_output ||
        !conv_rejection(graph, *conv).empty()) {
      return rank == 3 ? "batch_norm of a 3-D input other than a conv1d's only reader"
                       : "batch_norm of a 5-D input other than a conv3d's only reader";
    }
    return kTaken;
  }
  if (shape_of(graph, node.inputs[0]).size() != 4) return "batch_norm input not 4-D";
  return kTaken;
}

std::string binary_rejection(const Graph& graph, const Node& node) {
  const auto& out = shape_of(graph, node.outputs[0]);
  const bool a_full = shape_of(graph, node.inputs[0]) == out;
  const bool b_full = shape_of(graph, node.inputs[1]) == out;
  const bool commutative =
      node.op == "add" || node.op == "mul" || node.op == "min" || node.op == "max";
  if (!a_full && !(commutative && b_full)) return "both operands broadcast";
  for (ValueId in : node.inputs) {
    if (!computed(graph, in) && !is_constant_operand(graph, in)) return "constant without data";
  }
  const ValueId full = a_full ? node.inputs[0] : node.inputs[1];
  if (!computed(graph, full)) return "constant operand";
  return kTaken;
}

const Node* dequantized_constant_node(const Graph& graph, ValueId id) {
  return dequantized_constant(graph, id);
}

}  // namespace

const Node* dequantized_constant(const Graph& graph, ValueId id) {
  const Node* dq = producer_of(graph, id);
  if (dq == nullptr || dq->op != aot::op::kDequantizeLinear || dq->inputs.size() < 2) {
    return nullptr;
  }
  const aot::Value* x = constant_value(graph, dq->inputs[0]);
  const aot::Value* scale = constant_value(graph, dq->inputs[1]);
  if (x == nullptr || scale == nullptr ||
      x->int_data.size() != static_cast<std::size_t>(x->numel()) || scale->data.empty()) {
    return nullptr;
  }
  if (dq->inputs.size() > 2 && dq->inputs[2].is_set()) {
    const aot::Value* zp = constant_value(graph, dq->inputs[2]);
    if (zp == nullptr || zp->int_data.size() != scale->data.size()) return nullptr;
  }
  return dq;
}

bool is_constant_operand(const Graph& graph, ValueId id) {
  return is_float_constant(graph, id) || dequantized_constant(graph, id) != nullptr;
}

std::vector<float> constant_operand_data(const Graph& graph, ValueId id) {
  const Node* dq = dequantized_constant(graph, id);
  if (dq == nullptr) return graph.find_value(id)->data;
  const aot::Value& x = *graph.find_value(dq->inputs[0]);
  const std::vector<float>& scales = graph.find_value(dq->inputs[1])->data;
  std::vector<std::int64_t> zps(scales.size(), 0);
  if (dq->inputs.size() > 2 && dq->inputs[2].is_set())
    zps = graph.find_value(dq->inputs[2])->int_data;
  // Index of the scale for element i: per tensor, or along `axis`.
  std::int64_t inner = 1, axis_size = 1;
  if (scales.size() > 1) {
    std::int64_t axis = int_attr(*dq, "axis", 1);
    if (axis < 0) axis += static_cast<std::int64_t>(x.shape.size());
    axis_size = x.shape[static_cast<std::size_t>(axis)];
    for (std::size_t k = static_cast<std::size_t>(axis) + 1; k < x.shape.size(); ++k) {
      inner *= x.shape[k];
    }
  }
  std::vector<float> out(x.int_data.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t c =
        scales.size() > 1
            ? static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % axis_size)
            : 0;
    out[i] = static_cast<float>(x.int_data[i] - zps[c]) * scales[c];
  }
  return out;
}

std::optional<TensorQuant> per_tensor_quant(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2) return std::nullopt;
  const aot::Value* scale = constant_value(graph, node.inputs[1]);
  if (scale == nullptr || scale->data.size() != 1 || !(scale->data[0] > 0) ||
      !std::isfinite(scale->data[0])) {
    return std::nullopt;
  }
  TensorQuant q;
  q.scale = scale->data[0];
  const ValueId quantized = node.op == aot::op::kQuantizeLinear ? node.outputs[0] : node.inputs[0];
  const aot::Value* qv = graph.find_value(quantized);
  if (qv == nullptr || !is_int8(qv->dtype)) return std::nullopt;
  q.type = qv->dtype;
  if (node.inputs.size() > 2 && node.inputs[2].is_set()) {
    const aot::Value* zp = constant_value(graph, node.inputs[2]);
    if (zp == nullptr || zp->int_data.size() != 1) return std::nullopt;
    q.zero_point = static_cast<std::int32_t>(zp->int_data[0]);
  }
  return q;
}

std::set<std::string, std::less<>> onednn_supported_ops() {
  return {"conv2d",
          "conv1d",      // as conv2d over [N, C, 1, L] (as_2d)
          "max_pool1d",  // as max_pool2d likewise
          "avg_pool1d",  // as avg_pool2d likewise
          "conv3d",      // oneDNN's 3-D primitives (format 1.5)
          "max_pool3d",
          "avg_pool3d",
          "batch_norm",
          "linear",
          "matmul",
          "max_pool2d",
          "avg_pool2d",
          "pad",  // zeros before an average pool only (onednn_rejection)
          "global_avg_pool2d",
          "relu",
          "leaky_relu",
          "clamp",
          "sigmoid",
          "hardswish",
          "hardsigmoid",
          "gelu",
          "erf",          // inside a GELU only (onednn_rejection)
          "reduce_mean",  // inside a LayerNorm only
          "pow",          // inside a LayerNorm only
          "tanh",
          "exp",
          "log",
          "abs",
          "sqrt",
          "elu",
          "neg",
          "softplus",
          "add",
          "sub",
          "mul",
          "div",
          "min",
          "max",
          "softmax",
          "concat",
          "flatten",
          "layer_norm",
          "reshape",
          "transpose",
          "slice",
          "gather",
          "quantize_linear",
          "dequantize_linear",
          "lstm",  // oneDNN's RNN primitives (recurrent_lowering.h)
          "gru",
          "rnn"};
}

bool is_volume_op(const Node& node) {
  return node.op == aot::op::kConv3d || node.op == aot::op::kMaxPool3d ||
         node.op == aot::op::kAvgPool3d;
}

namespace {

// Attribute `name` of a window of `n` spatial dims; `fallback` for each
// when absent.
std::vector<std::int64_t> window_ints(const Node& node, std::string_view name, std::size_t n,
                                      std::int64_t fallback) {
  std::vector<std::int64_t> v = ints_attr(node, name);
  if (v.size() != n) v.assign(n, fallback);
  return v;
}

// Padding of `n` spatial dims as begins then ends (the attribute gives
// int[n], both sides alike, or int[2n]).
std::vector<std::int64_t> window_padding(const Node& node, std::size_t n) {
  std::vector<std::int64_t> v = ints_attr(node, "padding");
  if (v.size() == n) v.insert(v.end(), v.begin(), v.end());
  if (v.size() != 2 * n) v.assign(2 * n, 0);
  return v;
}

}  // namespace

std::vector<std::int64_t> conv3d_ints(const Node& node) {
  std::vector<std::int64_t> ints = window_ints(node, "stride", 3, 1);
  const std::vector<std::int64_t> dilation = window_ints(node, "dilation", 3, 1);
  const std::vector<std::int64_t> pads = window_padding(node, 3);
  ints.insert(ints.end(), dilation.begin(), dilation.end());
  ints.insert(ints.end(), pads.begin(), pads.end());
  ints.push_back(int_attr(node, "groups", 1));
  return ints;
}

namespace {

std::optional<PoolGeometry> pool_geometry_of(const Node& node, const std::vector<std::int64_t>& in,
                                             const std::vector<std::int64_t>& out) {
  const bool volume = is_volume_op(node);
  const std::size_t n = volume ? 3 : 2;
  if (in.size() != n + 2 || out.size() != n + 2) return std::nullopt;
  PoolGeometry g;
  g.dims = n;
  if (node.op == aot::op::kGlobalAvgPool2d) {
    g.kernel = {in[2], in[3]};
    g.stride = {1, 1};
    return g;
  }
  const std::vector<std::int64_t> kernel = window_ints(node, "kernel", n, 0);
  const std::vector<std::int64_t> stride =
      ints_attr(node, "stride").size() == n ? ints_attr(node, "stride") : kernel;
  const bool max = node.op == aot::op::kMaxPool2d || node.op == aot::op::kMaxPool3d;
  const std::vector<std::int64_t> dilation =
      max ? window_ints(node, "dilation", n, 1) : std::vector<std::int64_t>(n, 1);
  const std::vector<std::int64_t> pads = window_padding(node, n);
  for (std::size_t k = 0; k < n; ++k) {
    g.kernel[k] = kernel[k];
    g.stride[k] = stride[k];
    g.dilation[k] = dilation[k];
    if (g.kernel[k] <= 0 || g.stride[k] <= 0 || g.dilation[k] <= 0) return std::nullopt;
    g.pad_begin[k] = pads[k];
    const std::int64_t window = g.dilation[k] * (g.kernel[k] - 1) + 1;
    // The end padding that makes oneDNN's floor rule give the declared size.
    const std::int64_t needed = (out[2 + k] - 1) * g.stride[k] + window - in[2 + k] - pads[k];
    g.pad_end[k] = std::max(needed, pads[n + k]);
    if (needed > pads[n + k]) g.ceil_extra = true;
    if ((in[2 + k] + g.pad_begin[k] + g.pad_end[k] - window) / g.stride[k] + 1 != out[2 + k]) {
      return std::nullopt;
    }
  }
  return g;
}

}  // namespace

std::optional<PoolGeometry> pool_geometry(const Graph& graph, const Node& node) {
  const auto& in = shape_of(graph, node.inputs[0]);
  const auto& out = shape_of(graph, node.outputs[0]);
  if (is_one_dimensional(node)) {
    if (in.size() != 3 || out.size() != 3) return std::nullopt;
    return pool_geometry_of(as_2d(node), with_unit_height(in), with_unit_height(out));
  }
  return pool_geometry_of(node, in, out);
}

bool is_spatial_mean(const Graph& graph, const Node& node) {
  if (node.op != aot::op::kReduceMean || node.inputs.size() != 1) return false;
  // [N, C, H, W] over H and W, [N, C, L] over L (a 1-D global pool), or
  // [N, C, D, H, W] over D, H and W (a video network's).
  const auto rank = static_cast<std::int64_t>(shape_of(graph, node.inputs[0]).size());
  if (rank < 3 || rank > 5) return false;
  std::vector<std::int64_t> axes = ints_attr(node, "axes");
  for (std::int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  std::vector<std::int64_t> spatial;
  for (std::int64_t a = 2; a < rank; ++a) spatial.push_back(a);
  return axes == spatial;
}

std::string onednn_rejection(const Graph& graph, const Node& node) {
  if (node.is_delegate_call()) return "already delegated";
  if (aot::is_recurrent_op(node.op)) {
    // One kRnn operator (recurrent_lowering.h): its own rules, then x, the
    // initial states and y as any op's computed tensors.
    if (std::string why = recurrent_rejection(graph, node); !why.empty()) return why;
    if (!computed(graph, node.inputs[0])) return "constant input";
    for (ValueId in : {node.inputs[0], node.inputs[5]}) {
      if (computed(graph, in)) {
        if (std::string why = value_rejection(graph, in); !why.empty()) return why;
      }
    }
    if (node.op == aot::op::kLstm && computed(graph, node.inputs[6])) {
      if (std::string why = value_rejection(graph, node.inputs[6]); !why.empty()) return why;
    }
    return value_rejection(graph, node.outputs[0]);
  }
  if (!onednn_supported_ops().contains(node.op)) return "op not supported by oneDNN";
  // oneDNN has no erf, but runs the GELU an erf is the middle of.
  if (node.op == aot::op::kErf && !gelu_chain_of_erf(graph, node)) {
    return "erf outside a GELU (oneDNN has no erf of its own)";
  }
  if (node.op == aot::op::kReduceMean && is_spatial_mean(graph, node)) return kTaken;
  if (node.op == aot::op::kQuantizeLinear || node.op == aot::op::kDequantizeLinear) {
    if (std::string why = quantize_rejection(graph, node); !why.empty()) return why;
    if (computed(graph, node.inputs[0])) return kTaken;
    // A dequantized constant: taken with its readers (each reads it as a
    // constant), so never a delegate output.
    bool is_output = false;
    const std::vector<const Node*> readers = readers_of(graph, node.outputs[0], &is_output);
    if (is_output || readers.empty() || dequantized_constant(graph, node.outputs[0]) == nullptr) {
      return "dequantized constant read by an op oneDNN does not take";
    }
    for (const Node* r : readers) {
      if (r->op == aot::op::kDequantizeLinear || r->op == aot::op::kQuantizeLinear ||
          !onednn_rejection(graph, *r).empty()) {
        return "dequantized constant read by an op oneDNN does not take";
      }
    }
    return kTaken;
  }
  if ((node.op == aot::op::kReduceMean || node.op == aot::op::kPow) &&
      !layer_norm_chain_of(graph, node)) {
    return node.op == aot::op::kPow
               ? "pow outside a LayerNorm over the last axis"
               : "reduce_mean other than over H and W or inside a LayerNorm over the last axis";
  }
  for (ValueId out : node.outputs) {
    if (std::string why = value_rejection(graph, out); !why.empty()) return why;
  }
  for (ValueId in : node.inputs) {
    if (computed(graph, in)) {
      if (std::string why = value_rejection(graph, in); !why.empty()) return why;
    }
  }
  if (!computed(graph, node.inputs[0]) && !is_binary(node.op) && node.op != aot::op::kConcat) {
    return "constant input";
  }
  const std::string_view op = node.op;
  if (op == aot::op::kSlice) {
    for (std::int64_t step : ints_attr(node, "steps")) {
      if (step < 1) return "slice with a negative step";
    }
    return kTaken;
  }
  if (op == aot::op::kConv2d || op == aot::op::kConv1d || op == aot::op::kConv3d) {
    return conv_rejection(graph, node);
  }
  if (op == aot::op::kPad) {
    // Taken only with its pool, which lowers both.
    const std::optional<PaddedAvgPool> pair = padded_avg_pool_of(graph, node);
    if (!pair || !onednn_rejection(graph, *pair->pool).empty()) {
      return "pad other than zeros of H, W before a taken average pool";
    }
    return kTaken;
  }
  if (op == aot::op::kBatchNorm) return batch_norm_rejection(graph, node);
  if (op == aot::op::kMatmul && !is_constant_operand(graph, node.inputs[1])) {
    // Activation x activation (attention): a batched matmul of two
    // computed operands.
    if (!computed(graph, node.inputs[1])) return "constant without data";
    if (shape_of(graph, node.inputs[0]).size() < 2 || shape_of(graph, node.inputs[1]).size() < 2) {
      return "1-D matmul input";
    }
    return kTaken;
  }
  if (op == aot::op::kLinear || op == aot::op::kMatmul) {
    if (!is_constant_operand(graph, node.inputs[1]) ||
        shape_of(graph, node.inputs[1]).size() != 2) {
      return op == aot::op::kMatmul ? "constant weights of rank other than 2"
                                    : "non-constant weights";
    }
    if (node.inputs.size() > 2 && !is_constant_operand(graph, node.inputs[2])) {
      return "non-constant bias";
    }
    if (shape_of(graph, node.inputs[0]).size() < 2) return "1-D matmul input";
    return kTaken;
  }
  if (op == aot::op::kMaxPool2d || op == aot::op::kAvgPool2d || op == aot::op::kGlobalAvgPool2d ||
      op == aot::op::kMaxPool1d || op == aot::op::kAvgPool1d || op == aot::op::kMaxPool3d ||
      op == aot::op::kAvgPool3d) {
    const std::optional<PoolGeometry> g = pool_geometry(graph, node);
    if (!g) return "pooling window oneDNN cannot express";
    if ((op == aot::op::kAvgPool2d || op == aot::op::kAvgPool1d || op == aot::op::kAvgPool3d) &&
        g->ceil_extra && int_attr(node, "count_include_pad", 1) != 0) {
      return "ceil-mode average pool counting padding";
    }
    return kTaken;
  }
  if (is_binary(op)) return binary_rejection(graph, node);
  if (op == aot::op::kLayerNorm) {
    const auto& x = shape_of(graph, node.inputs[0]);
    const std::int64_t axis = int_attr(node, "axis", -1);
    if (axis != -1 && axis != static_cast<std::int64_t>(x.size()) - 1) {
      return "layer norm not over the last axis only";
    }
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      if (!is_float_constant(graph, node.inputs[i])) return "non-constant layer norm scale or bias";
    }
    return kTaken;
  }
  if (op == aot::op::kConcat) {
    // Constants (a class token) are copied into the blob.
    for (ValueId in : node.inputs) {
      if (!computed(graph, in) && !is_float_constant(graph, in)) return "constant without data";
    }
  }
  if (op == aot::op::kGather) {
    // One constant index: a slice of that index (the class token's pick).
    const auto gather = constant_gather(graph, node);
    if (const auto* why = std::get_if<std::string>(&gather)) return *why;
  }
  return kTaken;
}

std::vector<std::string> onednn_partition_report(const Graph& graph) {
  std::vector<std::string> report;
  report.reserve(graph.nodes.size());
  for (const Node& node : graph.nodes) report.push_back(onednn_rejection(graph, node));
  return report;
}

}  // namespace glassbox::backends::onednn

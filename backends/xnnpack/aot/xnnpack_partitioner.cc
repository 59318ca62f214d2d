#include "backends/xnnpack/aot/xnnpack_partitioner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "backends/common/graph_uses.h"
#include "backends/common/node_attributes.h"
#include "backends/xnnpack/aot/xnnpack_recurrent.h"
#include "backends/xnnpack/xnnpack_format.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

constexpr char kTaken[] = "";
constexpr char kNotSupported[] = "op not supported by XNNPACK";
constexpr char kConstantOperand[] = "constant operand";
constexpr char kNonConstantWeights[] = "non-constant weights";

std::string dtype_name(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::kLong: return "int64";
    case ScalarType::kInt: return "int32";
    case ScalarType::kBool: return "bool";
    default: {
      std::string name(to_string(dtype));
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      return name;
    }
  }
}

// Why a value the delegate computes with cannot be an XNNPACK tensor.
std::string value_rejection(const Graph& graph, ValueId id) {
  const aot::Value* v = graph.find_value(id);
  if (v == nullptr) return "unknown value";
  // Its size is set by the portable kernel that makes it, at each execution.
  if (v->dynamic) return "tensor sized by data (dynamic)";
  if (v->dtype != ScalarType::kFloat) return dtype_name(v->dtype) + " tensor";
  if (v->shape.empty()) return "0-d tensor";
  if (v->shape.size() > kXnnMaxRank) return "tensor of rank > 6";
  for (std::int64_t d : v->shape) {
    if (d <= 0) return "empty tensor";
    if (d > std::numeric_limits<std::int32_t>::max()) return "dimension too large";
  }
  return kTaken;
}

// A float constant, or a dequantized one (QDQ weights and biases).
bool is_weight(const Graph& graph, ValueId id) {
  return is_float_constant(graph, id) || quantized_constant(graph, id).has_value();
}

// conv2d, conv_transpose2d, linear: a computed input and constant weights.
std::string weighted_rejection(const Graph& graph, const Node& node) {
  if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {
    if (!is_weight(graph, node.inputs[i])) return kNonConstantWeights;
  }
  if (node.op == aot::op::kConvTranspose2d) {
    const auto stride = int_pair(node, "stride", {1, 1});
    const auto adjustment = int_pair(node, "output_padding", {0, 0});
    if (adjustment[0] >= stride[0] || adjustment[1] >= stride[1]) {
      return "output_padding >= stride";
    }
  }
  return kTaken;
}

// Folded into the convolution before it when it is that convolution's only
// user; otherwise (DenseNet's, after a concat) a depthwise 1x1 convolution
// whose weights are the per-channel scale and shift.
std::string batch_norm_rejection(const Graph& graph, const Node& node) {
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {
    if (!is_float_constant(graph, node.inputs[i])) return "non-constant batch_norm statistics";
  }
  const aot::Value* x = graph.find_value(node.inputs[0]);
  if (x != nullptr && (x->shape.size() == 3 || x->shape.size() == 5)) {
    // Folded into the conv1d before it (a 2-D convolution of height 1), or
    // the conv3d (format 1.8).
    const bool one_d = x->shape.size() == 3;
    const Node* conv = producer_of(graph, node.inputs[0]);
    if (conv == nullptr || conv->op != (one_d ? aot::op::kConv1d : aot::op::kConv3d) ||
        GraphUses(graph).sole_user(node.inputs[0]) != &node ||
        !xnnpack_rejection(graph, *conv).empty()) {
      return one_d ? "batch_norm of a 3-D input other than a conv1d's only reader"
                   : "batch_norm of a 5-D input other than a conv3d's only reader";
    }
    return kTaken;
  }
  if (x == nullptr || x->shape.size() != 4) return "batch_norm input not 4-D";
  if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
  return kTaken;
}

std::string matmul_rejection(const Graph& graph, const Node& node) {
  if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
  if (quantized_constant(graph, node.inputs[1])) {
    if (graph.find_value(node.inputs[1])->shape.size() != 2) return "batched constant matmul";
    return kTaken;
  }
  if (is_computed(graph, node.inputs[1])) {
    // Format 1.4's batch matmul: equal ranks and batch dims.
    const auto& a = graph.find_value(node.inputs[0])->shape;
    const auto& b = graph.find_value(node.inputs[1])->shape;
    if (a.size() < 2 || a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin())) {
      return "activation x activation matmul with broadcast batch dims";
    }
    return kTaken;
  }
  if (!is_float_constant(graph, node.inputs[1])) return kNonConstantWeights;
  if (graph.find_value(node.inputs[1])->shape.size() != 2) return "batched constant matmul";
  return kTaken;
}

// Binary ops and concat: a computed operand, and constants the blob's
// constants section can hold (format 1.2).
std::string constant_operands_rejection(const Graph& graph, const Node& node) {
  bool any_computed = false;
  for (ValueId in : node.inputs) {
    if (is_computed(graph, in)) {
      any_computed = true;
      continue;
    }
    const aot::Value* v = graph.find_value(in);
    if (v->dtype != ScalarType::kFloat) return dtype_name(v->dtype) + " constant";
    if (!is_float_constant(graph, in)) return "constant without data";
    if (v->shape.size() > kXnnMaxRank) return "constant of rank > 6";
    if (v->numel() == 0) return "empty constant";
  }
  return any_computed ? kTaken : kConstantOperand;
}

std::string pool_rejection(const Node& node, bool average) {
  const auto pad = padding_tlbr(node);
  const bool padded = pad[0] != 0 || pad[1] != 0 || pad[2] != 0 || pad[3] != 0;
  // XNNPACK refuses a 1x1 pooling window (alexnet's adaptive pool exports
  // as one); with stride 1 and no padding it is a copy (identity_pool).
  const auto kernel = int_pair(node, "kernel", {1, 1});
  if (kernel[0] * kernel[1] < 2) {
    return identity_pool(node) ? kTaken : "1x1 pooling window with a stride or padding";
  }
  if (!average) return kTaken;
  // Ceil mode's overhang is padding XNNPACK excludes from the divisor like
  // the portable kernel does; only explicit padding may be counted.
  if (padded && int_attr(node, "count_include_pad", 1) != 0) {
    return "average pooling counting the padding";
  }
  return kTaken;
}

std::int64_t rank_of(const Graph& graph, ValueId id) {
  return static_cast<std::int64_t>(graph.find_value(id)->shape.size());
}

std::string pow_rejection(const Graph& graph, const Node& node) {
  if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
  const ValueId e = node.inputs[1];
  if (!is_float_constant(graph, e) || graph.find_value(e)->data.size() != 1 ||
      graph.find_value(e)->data[0] != 2.0f) {
    return "pow exponent not a constant 2";
  }
  // A [1]-shaped exponent must not broadcast a 0-d base up.
  if (graph.find_value(node.outputs[0])->shape != graph.find_value(node.inputs[0])->shape) {
    return "pow exponent broadcasts the base";
  }
  return kTaken;
}

std::string prelu_rejection(const Graph& graph, const Node& node) {
  if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
  if (!is_float_constant(graph, node.inputs[1])) return "non-constant prelu slope";
  if (graph.find_value(node.outputs[0])->shape != graph.find_value(node.inputs[0])->shape) {
    return "prelu slope broadcasts the input";
  }
  if (!prelu_slope(graph, node)) return "prelu slope not per channel";
  return kTaken;
}

std::string pad_rejection(const Node& node) {
  const std::string mode = string_attr(node, "mode", "constant");
  if (mode != "constant") return mode + " pad mode";
  for (std::int64_t p : ints_attr(node, "pads")) {
    if (p < 0) return "negative pad (crop)";
  }
  return kTaken;
}

std::string resize_rejection(const Graph& graph, const Node& node) {
  if (string_attr(node, "mode", "nearest") != "linear") return "nearest resize";
  const std::string coordinates = string_attr(node, "coordinate_transformation_mode", "half_pixel");
  const auto& in = graph.find_value(node.inputs[0])->shape;
  const auto& out = graph.find_value(node.outputs[0])->shape;
  if (coordinates == "pytorch_half_pixel" && (out[2] == 1 || out[3] == 1)) {
    return "pytorch_half_pixel resize to size 1";
  }
  if (coordinates != "half_pixel" && coordinates != "pytorch_half_pixel" &&
      coordinates != "align_corners") {
    return coordinates + " resize coordinates";
  }
  // XNNPACK derives the scale from the sizes; an explicit one must agree.
  for (int i = 0; i < 2; ++i) {
    const std::optional<double> scale = float_attr(node, i == 0 ? "scale_h" : "scale_w");
    const double implied = static_cast<double>(out[2 + i]) / static_cast<double>(in[2 + i]);
    if (scale && std::abs(*scale - implied) > 1e-6 * implied) {
      return "resize scales other than output/input";
    }
  }
  return kTaken;
}

// Format 1.4's layer norm: over the last axis only, with constant scale
// (and bias) of that axis's size.
std::string layer_norm_rejection(const Graph& graph, const Node& node) {
  const auto& x = graph.find_value(node.inputs[0])->shape;
  const std::int64_t axis = int_attr(node, "axis", -1);
  if (axis != -1 && axis != static_cast<std::int64_t>(x.size()) - 1) {
    return "layer_norm over more than the last axis";
  }
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {
    if (!is_float_constant(graph, node.inputs[i])) return kNonConstantWeights;
    if (graph.find_value(node.inputs[i])->shape != std::vector<std::int64_t>{x.back()}) {
      return "layer_norm scale or bias not one per channel";
    }
  }
  return kTaken;
}

// Quantize and dequantize: per tensor for activations; a dequantized
// constant only where its every user is taken (it has no operator of its
// own: its users read it as weights or as a float constant).
std::string quantization_rejection(const Graph& graph, const Node& node) {
  const ValueId x = node.inputs[0];
  if (node.op == aot::op::kDequantizeLinear && !is_computed(graph, x)) {
    if (!quantized_constant(graph, node.outputs[0])) return "dequantized constant without data";
    if (GraphUses(graph).is_output(node.outputs[0])) return "dequantized constant is an output";
    // Its users read it as weights, or as a constant operand the blob
    // stores; no other op reads a constant.
    for (const Node& user : graph.nodes) {
      const auto read = std::find(user.inputs.begin(), user.inputs.end(), node.outputs[0]);
      if (read == user.inputs.end()) continue;
      const std::string_view op = user.op;
      const bool weight = (op == aot::op::kConv2d || op == aot::op::kConvTranspose2d ||
                           op == aot::op::kLinear || op == aot::op::kMatmul) &&
                          read != user.inputs.begin();
      const bool operand = op == aot::op::kAdd || op == aot::op::kSub || op == aot::op::kMul ||
                           op == aot::op::kDiv || op == aot::op::kMin || op == aot::op::kMax ||
                           op == aot::op::kConcat;
      if (!(weight || operand) || !xnnpack_supports(graph, user)) {
        return "dequantized constant read by an op that does not take it as a constant";
      }
    }
    return kTaken;
  }
  if (!is_computed(graph, x)) return kConstantOperand;
  const std::optional<TensorQuant> quant = per_tensor_quant(graph, node);
  if (!quant) return "per-axis or non-constant activation quantization";
  const ValueId float_side = node.op == aot::op::kQuantizeLinear ? x : node.outputs[0];
  if (std::string why = value_rejection(graph, float_side); !why.empty()) return why;
  return kTaken;
}

std::string op_rejection(const Graph& graph, const Node& node) {
  const std::string_view op = node.op;
  if (op == aot::op::kConv2d || op == aot::op::kLinear || op == aot::op::kConvTranspose2d) {
    return weighted_rejection(graph, node);
  }
  if (op == aot::op::kConv1d) {
    // A 2-D convolution of height 1 inside the delegate; float weights
    // only (an int8 conv1d has no quantized lowering).
    if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      if (!is_float_constant(graph, node.inputs[i])) return kNonConstantWeights;
    }
    return rank_of(graph, node.inputs[0]) == 3 ? kTaken : "conv1d input not 3-D";
  }
  if (op == aot::op::kConv3d) {
    // Format 1.8: a sum of 2-D convolutions over frames, one per temporal
    // tap (runtime/conv3d_layer.h), on NDHWC slots.
    if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      if (!is_float_constant(graph, node.inputs[i])) return kNonConstantWeights;
    }
    return rank_of(graph, node.inputs[0]) == 5 ? kTaken : "conv3d input not 5-D";
  }
  if (op == aot::op::kBatchNorm) return batch_norm_rejection(graph, node);
  if (op == aot::op::kMatmul) return matmul_rejection(graph, node);
  if (op == aot::op::kPow) return pow_rejection(graph, node);
  if (op == aot::op::kPrelu) return prelu_rejection(graph, node);
  if (op == aot::op::kLayerNorm) {
    if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
    return layer_norm_rejection(graph, node);
  }
  if (op == aot::op::kGather) {
    if (!is_computed(graph, node.inputs[0])) return kConstantOperand;
    const auto gather = constant_gather(graph, node);
    if (const auto* why = std::get_if<std::string>(&gather)) return *why;
    return kTaken;
  }
  if (op == aot::op::kAdd || op == aot::op::kSub || op == aot::op::kMul || op == aot::op::kDiv ||
      op == aot::op::kMin || op == aot::op::kMax || op == aot::op::kConcat) {
    return constant_operands_rejection(graph, node);
  }
  // Every other op just needs computed operands: the blob stores only
  // weights, slopes and the binary ops' and concat's constant operands.
  for (ValueId in : node.inputs) {
    if (!is_computed(graph, in)) return kConstantOperand;
  }
  if (op == aot::op::kMaxPool2d) return pool_rejection(node, false);
  if (op == aot::op::kAvgPool2d) return pool_rejection(node, true);
  if (op == aot::op::kMaxPool1d || op == aot::op::kAvgPool1d) {
    // A 2-D pool of height 1 inside the delegate.
    if (int_pair(as_2d(node), "kernel", {1, 1})[1] < 2) return "1-D pooling window of 1";
    return pool_rejection(as_2d(node), op == aot::op::kAvgPool1d);
  }
  if (op == aot::op::kSoftmax) {
    const std::int64_t axis = int_attr(node, "axis", -1);
    const std::int64_t rank = rank_of(graph, node.inputs[0]);
    return axis == -1 || axis == rank - 1 ? kTaken : "softmax not on the last axis";
  }
  if (op == aot::op::kReduceMean) {
    return mean_axes(graph, node) ? kTaken : "mean not over the last axis, H, W or D, H, W";
  }
  if (op == aot::op::kElu) {
    return float_attr(node, "alpha").value_or(1.0) > 0 ? kTaken : "elu alpha <= 0";
  }
  if (op == aot::op::kLeakyRelu) return kTaken;
  if (op == aot::op::kHardsigmoid) {
    const bool finite = std::isfinite(float_attr(node, "alpha").value_or(0.2)) &&
                        std::isfinite(float_attr(node, "beta").value_or(0.5));
    return finite ? kTaken : "hardsigmoid alpha or beta not finite";
  }
  if (op == aot::op::kPad) return pad_rejection(node);
  if (op == aot::op::kDepthToSpace) {
    if (string_attr(node, "mode", "DCR") != "DCR") return "CRD depth_to_space";
    return int_attr(node, "blocksize", 1) >= 2 ? kTaken : "depth_to_space blocksize 1";
  }
  if (op == aot::op::kResize) return resize_rejection(graph, node);
  if (op == aot::op::kSlice) {
    return slice_axis(graph, node) || strided_slice(graph, node)
               ? kTaken
               : "slice with a negative step or a dim over 2^24";
  }
  return kTaken;
}

}  // namespace

std::set<std::string, std::less<>> xnnpack_supported_ops() {
  using namespace aot::op;
  static constexpr std::string_view kOps[] = {kConv2d,
                                              kConv1d,  // as conv2d of height 1
                                              kConv3d,  // as conv2d per temporal tap
                                              kMaxPool1d,
                                              kAvgPool1d,
                                              kBatchNorm,
                                              kLinear,
                                              kMatmul,
                                              kMaxPool2d,
                                              kAvgPool2d,
                                              kGlobalAvgPool2d,
                                              kAdd,
                                              kSub,
                                              kMul,
                                              kDiv,
                                              kRelu,
                                              kClamp,
                                              kHardswish,
                                              kSigmoid,
                                              kSoftmax,
                                              kFlatten,
                                              kReshape,
                                              kConcat,
                                              kAbs,
                                              kNeg,
                                              kFloor,
                                              kCeil,
                                              kRound,
                                              kSqrt,
                                              kElu,
                                              kLeakyRelu,
                                              kPow,
                                              kMin,
                                              kMax,
                                              kPrelu,
                                              kPad,
                                              kDepthToSpace,
                                              kResize,
                                              kConvTranspose2d,
                                              kReduceMean,
                                              kHardsigmoid,
                                              kSlice,
                                              kTranspose,
                                              kLayerNorm,
                                              kErf,
                                              kGather,
                                              kQuantizeLinear,
                                              kDequantizeLinear,
                                              kLstm,
                                              kGru,
                                              kRnn};
  return {std::begin(kOps), std::end(kOps)};
}

std::string xnnpack_rejection(const Graph& graph, const Node& node) {
  if (node.is_delegate_call()) return "already delegated";
  if (aot::is_recurrent_op(node.op)) {
    // One operator for the layer, the cell unrolled (xnnpack_recurrent.h).
    if (std::string why = recurrent_rejection(graph, node); !why.empty()) return why;
    for (std::size_t i : {std::size_t{0}, std::size_t{5}, std::size_t{6}}) {
      if (i >= node.inputs.size() || !is_computed(graph, node.inputs[i])) continue;
      if (std::string why = value_rejection(graph, node.inputs[i]); !why.empty()) return why;
    }
    return value_rejection(graph, node.outputs[0]);
  }
  if (!xnnpack_supported_ops().contains(node.op)) return kNotSupported;
  if (node.op == aot::op::kQuantizeLinear || node.op == aot::op::kDequantizeLinear) {
    return quantization_rejection(graph, node);
  }
  if ((node.op == aot::op::kReshape || node.op == aot::op::kFlatten) &&
      graph.find_value(node.inputs[0])->dtype != ScalarType::kFloat) {
    return int8_reshape(graph, node) ? kTaken : "int8 reshape of a value no quantize_linear made";
  }
  for (ValueId out : node.outputs) {
    if (std::string why = value_rejection(graph, out); !why.empty()) return why;
  }
  for (ValueId in : node.inputs) {
    if (!is_computed(graph, in)) continue;  // constants: the op's rule decides
    if (std::string why = value_rejection(graph, in); !why.empty()) return why;
  }
  return op_rejection(graph, node);
}

bool xnnpack_supports(const Graph& graph, const Node& node) {
  return xnnpack_rejection(graph, node).empty();
}

std::vector<std::string> xnnpack_partition_report(const Graph& graph) {
  std::vector<std::string> reasons;
  reasons.reserve(graph.nodes.size());
  for (const Node& node : graph.nodes) reasons.push_back(xnnpack_rejection(graph, node));
  return reasons;
}

std::optional<TensorQuant> per_tensor_quant(const Graph& graph, const Node& node) {
  if (node.op != aot::op::kQuantizeLinear && node.op != aot::op::kDequantizeLinear) {
    return std::nullopt;
  }
  const aot::Value* q =
      graph.find_value(node.op == aot::op::kQuantizeLinear ? node.outputs[0] : node.inputs[0]);
  const aot::Value* scale = node.inputs.size() > 1 ? graph.find_value(node.inputs[1]) : nullptr;
  if (q == nullptr || (q->dtype != ScalarType::kChar && q->dtype != ScalarType::kByte) ||
      scale == nullptr || !is_float_constant(graph, scale->id) || scale->data.size() != 1 ||
      !(scale->data[0] > 0) || !std::isfinite(scale->data[0])) {
    return std::nullopt;
  }
  TensorQuant quant{q->dtype, scale->data[0], 0};
  if (node.inputs.size() > 2) {
    const aot::Value* zp = graph.find_value(node.inputs[2]);
    if (zp == nullptr || zp->kind != aot::ValueKind::kConstant || zp->int_data.size() != 1) {
      return std::nullopt;
    }
    quant.zero_point = static_cast<std::int32_t>(zp->int_data[0]);
  }
  return quant;
}

std::optional<QuantizedConstant> quantized_constant(const Graph& graph, ValueId id) {
  const Node* dq = producer_of(graph, id);
  if (dq == nullptr || dq->op != aot::op::kDequantizeLinear || dq->inputs.size() < 2) {
    return std::nullopt;
  }
  const aot::Value* x = graph.find_value(dq->inputs[0]);
  const aot::Value* scale = graph.find_value(dq->inputs[1]);
  if (x == nullptr || x->kind != aot::ValueKind::kConstant ||
      static_cast<std::int64_t>(x->int_data.size()) != x->numel() || x->numel() == 0 ||
      scale == nullptr || !is_float_constant(graph, scale->id) || scale->data.empty()) {
    return std::nullopt;
  }
  QuantizedConstant c;
  c.values = x;
  c.scales = scale->data;
  c.zero_points.assign(c.scales.size(), 0);
  if (dq->inputs.size() > 2) {
    const aot::Value* zp = graph.find_value(dq->inputs[2]);
    if (zp == nullptr || zp->kind != aot::ValueKind::kConstant ||
        zp->int_data.size() != c.scales.size()) {
      return std::nullopt;
    }
    c.zero_points = zp->int_data;
  }
  const auto rank = static_cast<std::int64_t>(x->shape.size());
  c.axis = int_attr(*dq, "axis", 1);
  if (c.axis < 0) c.axis += rank;
  if (c.scales.size() > 1 &&
      (c.axis < 0 || c.axis >= rank ||
       x->shape[static_cast<std::size_t>(c.axis)] != static_cast<std::int64_t>(c.scales.size()))) {
    return std::nullopt;
  }
  return c;
}

std::vector<float> QuantizedConstant::dequantized() const {
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < values->shape.size(); ++d) {
    inner *= values->shape[d];
  }
  std::vector<float> out(values->int_data.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t k =
        scales.size() == 1 ? 0 : (i / static_cast<std::size_t>(inner)) % scales.size();
    out[i] = static_cast<float>(values->int_data[i] - zero_points[k]) * scales[k];
  }
  return out;
}

std::optional<std::vector<float>> constant_floats(const Graph& graph, ValueId id) {
  if (is_float_constant(graph, id)) return graph.find_value(id)->data;
  if (const std::optional<QuantizedConstant> c = quantized_constant(graph, id)) {
    return c->dequantized();
  }
  return std::nullopt;
}

std::optional<Int8Weights> int8_weights(const Graph& graph, const Node& node, std::int64_t channels,
                                        std::int64_t channel_axis, float x_scale) {
  const std::optional<QuantizedConstant> w = quantized_constant(graph, node.inputs[1]);
  if (!w || (w->scales.size() != 1 && (w->axis != channel_axis ||
                                       static_cast<std::int64_t>(w->scales.size()) != channels))) {
    return std::nullopt;
  }
  const auto& shape = w->values->shape;
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(channel_axis) + 1; d < shape.size(); ++d) {
    inner *= shape[d];
  }
  Int8Weights q;
  q.kernel.resize(w->values->int_data.size());
  for (std::size_t i = 0; i < q.kernel.size(); ++i) {
    const std::size_t k =
        w->scales.size() == 1 ? 0 : (i / static_cast<std::size_t>(inner)) % w->scales.size();
    const std::int64_t v = w->values->int_data[i] - w->zero_points[k];
    if (v < -128 || v > 127) return std::nullopt;
    q.kernel[i] = static_cast<std::int8_t>(v);
  }
  q.scales.resize(static_cast<std::size_t>(channels));
  for (std::size_t c = 0; c < q.scales.size(); ++c) {
    q.scales[c] = w->scales[w->scales.size() == 1 ? 0 : c];
  }
  q.bias.assign(static_cast<std::size_t>(channels), 0);
  if (node.inputs.size() < 3) return q;
  const std::optional<QuantizedConstant> b = quantized_constant(graph, node.inputs[2]);
  const std::optional<std::vector<float>> floats = constant_floats(graph, node.inputs[2]);
  if (!floats || floats->size() != q.bias.size()) return std::nullopt;
  for (std::size_t c = 0; c < q.bias.size(); ++c) {
    const float scale = x_scale * q.scales[c];
    const std::size_t k = b && b->scales.size() > 1 ? c : 0;
    const bool exact = b && b->values->dtype == ScalarType::kInt && b->scales[k] == scale &&
                       b->zero_points[k] == 0;
    const double v = exact ? static_cast<double>(b->values->int_data[c])
                           : std::nearbyint(static_cast<double>((*floats)[c]) / scale);
    if (!(std::abs(v) < 2147483647.0)) return std::nullopt;
    q.bias[c] = static_cast<std::int32_t>(v);
  }
  return q;
}

namespace {

// The int8 value a dequantize_linear producing `id` reads, with its
// quantization, when the dequantize is per tensor, of a computed value, and
// agrees with the quantize_linear (if any) that made that value.
std::optional<std::pair<ValueId, TensorQuant>> dequantized_activation(const Graph& graph,
                                                                      ValueId id) {
  const Node* dq = producer_of(graph, id);
  if (dq == nullptr || dq->op != aot::op::kDequantizeLinear || !is_computed(graph, dq->inputs[0])) {
    return std::nullopt;
  }
  const std::optional<TensorQuant> quant = per_tensor_quant(graph, *dq);
  if (!quant || !xnnpack_supports(graph, *dq)) return std::nullopt;
  const Node* q = producer_of(graph, dq->inputs[0]);
  if (q != nullptr && (q->op != aot::op::kQuantizeLinear || per_tensor_quant(graph, *q) != quant)) {
    return std::nullopt;
  }
  return std::make_pair(dq->inputs[0], *quant);
}

bool is_table_op(std::string_view op) {
  return op == aot::op::kSigmoid || op == aot::op::kHardswish || op == aot::op::kHardsigmoid ||
         op == aot::op::kRelu || op == aot::op::kClamp;
}

}  // namespace

bool int8_reshape(const Graph& graph, const Node& node) {
  if (node.op != aot::op::kReshape && node.op != aot::op::kFlatten) return false;
  const aot::Value* x = graph.find_value(node.inputs[0]);
  const aot::Value* y = graph.find_value(node.outputs[0]);
  if (x == nullptr || y == nullptr || x->dtype != y->dtype ||
      (x->dtype != ScalarType::kChar && x->dtype != ScalarType::kByte) ||
      y->shape.size() > kXnnMaxRank || y->shape.empty() || x->shape.empty()) {
    return false;
  }
  // QLinearConv's import: an int8 value straight from a quantize_linear
  // (or another such reshape), quantized per tensor.
  const Node* producer = producer_of(graph, x->id);
  if (producer == nullptr) return false;
  if (producer->op == aot::op::kQuantizeLinear) {
    return per_tensor_quant(graph, *producer).has_value() && xnnpack_supports(graph, *producer);
  }
  return int8_reshape(graph, *producer);
}

std::optional<QuantizedGroup> quantized_group(const Graph& graph, const Node& node) {
  const std::string_view op = node.op;
  const bool weighted = op == aot::op::kConv2d || op == aot::op::kLinear || op == aot::op::kMatmul;
  const bool fuses = weighted || is_table_op(op) || op == aot::op::kAdd || op == aot::op::kMul ||
                     op == aot::op::kMaxPool2d || op == aot::op::kAvgPool2d ||
                     op == aot::op::kGlobalAvgPool2d;
  if ((!fuses && op != aot::op::kConcat && op != aot::op::kFlatten && op != aot::op::kReshape) ||
      !xnnpack_supports(graph, node)) {
    return std::nullopt;
  }
  QuantizedGroup group;
  std::vector<TensorQuant> quants;
  // Weights, and reshape's shape, are no activations.
  const std::size_t activations = weighted || op == aot::op::kReshape ? 1 : node.inputs.size();
  for (std::size_t i = 0; i < activations; ++i) {
    const auto in = dequantized_activation(graph, node.inputs[i]);
    if (!in) return std::nullopt;
    group.inputs.push_back(in->first);
    quants.push_back(in->second);
  }
  group.min = -std::numeric_limits<float>::infinity();
  group.max = std::numeric_limits<float>::infinity();
  if (const std::optional<ActivationRange> own = activation_range(node)) {
    group.min = own->min;
    group.max = own->max;
  }
  const GraphUses uses(graph);
  ValueId out = node.outputs[0];
  while (fuses) {
    const Node* user = uses.sole_user(out);
    const std::optional<ActivationRange> range =
        user != nullptr ? activation_range(*user) : std::nullopt;
    if (!range || !xnnpack_supports(graph, *user)) break;
    group.activations.push_back(user);
    group.min = std::max(group.min, range->min);
    group.max = std::min(group.max, range->max);
    out = user->outputs[0];
  }
  group.quantize = uses.sole_user(out);
  if (group.quantize == nullptr || group.quantize->op != aot::op::kQuantizeLinear ||
      !xnnpack_supports(graph, *group.quantize)) {
    return std::nullopt;
  }
  const TensorQuant y = *per_tensor_quant(graph, *group.quantize);
  // A relu / clamp quantized on its own with the same parameters (PyTorch
  // exports conv -> Q -> DQ -> ReLU6 -> Q): fused too, its range applied in
  // the same int8 domain.
  while (fuses) {
    const Node* dq = uses.sole_user(group.quantize->outputs[0]);
    if (dq == nullptr || dq->op != aot::op::kDequantizeLinear ||
        per_tensor_quant(graph, *dq) != y || !xnnpack_supports(graph, *dq)) {
      break;
    }
    const Node* act = uses.sole_user(dq->outputs[0]);
    const std::optional<ActivationRange> range =
        act != nullptr ? activation_range(*act) : std::nullopt;
    if (!range || !xnnpack_supports(graph, *act)) break;
    const Node* q = uses.sole_user(act->outputs[0]);
    if (q == nullptr || q->op != aot::op::kQuantizeLinear || per_tensor_quant(graph, *q) != y ||
        !xnnpack_supports(graph, *q)) {
      break;
    }
    group.activations.insert(group.activations.end(), {group.quantize, dq, act});
    group.min = std::max(group.min, range->min);
    group.max = std::min(group.max, range->max);
    group.quantize = q;
  }
  const TensorQuant& x = quants[0];
  if (op == aot::op::kConv2d) {
    const auto& w = graph.find_value(node.inputs[1])->shape;
    if (!int8_weights(graph, node, w[0], 0, x.scale)) return std::nullopt;
  } else if (weighted) {
    const auto& w = graph.find_value(node.inputs[1])->shape;
    const bool linear = op == aot::op::kLinear;
    if (w.size() != 2 || (!linear && node.inputs.size() > 2) ||
        !int8_weights(graph, node, linear ? w[0] : w[1], linear ? 0 : 1, x.scale)) {
      return std::nullopt;
    }
  } else if (op == aot::op::kMaxPool2d || op == aot::op::kAvgPool2d) {
    // s8 max pooling does not requantize; a 1x1 window is a float copy.
    if (identity_pool(node) || (op == aot::op::kMaxPool2d && !(x == y))) return std::nullopt;
  } else if (op == aot::op::kFlatten || op == aot::op::kReshape) {
    if (!(x == y)) return std::nullopt;
  }
  return group;
}

std::vector<bool> xnnpack_int8_report(const Graph& graph) {
  std::vector<bool> int8(graph.nodes.size(), false);
  std::unordered_map<const Node*, std::size_t> index;
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) index[&graph.nodes[n]] = n;
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const std::optional<QuantizedGroup> group = quantized_group(graph, graph.nodes[n]);
    if (!group) continue;
    int8[n] = true;
    for (const Node* a : group->activations) int8[index.at(a)] = true;
    int8[index.at(group->quantize)] = true;
  }
  return int8;
}

std::optional<PreluSlope> prelu_slope(const Graph& graph, const Node& node) {
  const auto& x = graph.find_value(node.inputs[0])->shape;
  const auto& slope = graph.find_value(node.inputs[1])->shape;
  if (slope.size() > x.size()) return std::nullopt;
  // The axes (of x, slope aligned from the right) where the slope varies.
  std::vector<std::size_t> varying;
  for (std::size_t i = 0; i < slope.size(); ++i) {
    if (slope[slope.size() - 1 - i] != 1) varying.push_back(x.size() - 1 - i);
  }
  if (varying.empty()) return PreluSlope::kScalar;
  if (varying.size() != 1) return std::nullopt;
  if (varying[0] == x.size() - 1) return PreluSlope::kLastAxis;
  if (x.size() == 4 && varying[0] == 1) return PreluSlope::kChannels4d;
  return std::nullopt;
}

std::optional<ValueId> bias_of_add(const Graph& graph, const Node& add, ValueId product) {
  if (add.op != aot::op::kAdd || add.inputs.size() != 2) return std::nullopt;
  const ValueId bias = add.inputs[0] == product ? add.inputs[1] : add.inputs[0];
  if ((add.inputs[0] != product && add.inputs[1] != product) || !is_float_constant(graph, bias)) {
    return std::nullopt;
  }
  const auto& x = graph.find_value(product)->shape;
  const auto& b = graph.find_value(bias)->shape;
  if (x.empty() || b.empty() || b.size() > x.size() || b.back() != x.back() ||
      graph.find_value(add.outputs[0])->shape != x) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {
    if (b[i] != 1) return std::nullopt;
  }
  return bias;
}

namespace {

// A slice node's input shape and its starts, steps and output shape, one
// of each per input dim; nullopt when the attributes are not that.
struct SliceAttrs {
  const std::vector<std::int64_t>& in;
  std::vector<std::int64_t> starts, steps, shape;
};
std::optional<SliceAttrs> slice_attrs(const Graph& graph, const Node& node) {
  SliceAttrs a{graph.find_value(node.inputs[0])->shape, ints_attr(node, "starts"),
               ints_attr(node, "steps"), ints_attr(node, "shape")};
  if (a.starts.size() != a.in.size() || a.steps.size() != a.in.size() ||
      a.shape.size() != a.in.size()) {
    return std::nullopt;
  }
  return a;
}

}  // namespace

std::optional<SliceAxis> slice_axis(const Graph& graph, const Node& node) {
  const std::optional<SliceAttrs> a = slice_attrs(graph, node);
  if (!a) return std::nullopt;
  std::optional<SliceAxis> sliced;
  for (std::size_t d = 0; d < a->in.size(); ++d) {
    if (a->shape[d] == a->in[d] && a->starts[d] == 0 && (a->steps[d] == 1 || a->shape[d] == 1)) {
      continue;
    }
    if (sliced || (a->steps[d] != 1 && a->shape[d] != 1)) return std::nullopt;
    sliced = SliceAxis{d, a->starts[d]};
  }
  return sliced.value_or(SliceAxis{0, 0});
}

std::optional<StridedSlice> strided_slice(const Graph& graph, const Node& node) {
  const std::optional<SliceAttrs> a = slice_attrs(graph, node);
  if (!a || a->in.size() > kXnnMaxRank) return std::nullopt;
  StridedSlice slice{a->starts, a->steps};
  for (std::size_t d = 0; d < a->in.size(); ++d) {
    if (a->shape[d] == 1) slice.step[d] = 1;  // one element: the step does not matter
    // (Dims past 2^24 would not fit the format's params.)
    if (slice.step[d] < 1 || a->starts[d] < 0 || a->in[d] > (std::int64_t{1} << 24) ||
        (a->shape[d] > 0 && a->starts[d] + (a->shape[d] - 1) * slice.step[d] >= a->in[d])) {
      return std::nullopt;
    }
  }
  return slice;
}

std::optional<ChannelShuffle> channel_shuffle_of(const Graph& graph, const Node& transpose) {
  if (transpose.op != aot::op::kTranspose ||
      ints_attr(transpose, "perm") != std::vector<std::int64_t>{0, 2, 1, 3, 4}) {
    return std::nullopt;
  }
  const Node* split = producer_of(graph, transpose.inputs[0]);
  if (split == nullptr || split->op != aot::op::kReshape ||
      count_users(graph, transpose.inputs[0]) != 1 ||
      count_users(graph, transpose.outputs[0]) != 1) {
    return std::nullopt;
  }
  const Node* merge = nullptr;
  for (const Node& n : graph.nodes) {
    if (!n.inputs.empty() && n.inputs[0] == transpose.outputs[0]) merge = &n;
  }
  if (merge == nullptr || merge->op != aot::op::kReshape) return std::nullopt;
  const auto& x = graph.find_value(split->inputs[0])->shape;
  const auto& groups = graph.find_value(split->outputs[0])->shape;
  if (x.size() != 4 || groups.size() != 5 || groups[0] != x[0] || groups[1] * groups[2] != x[1] ||
      groups[3] != x[2] || groups[4] != x[3] || graph.find_value(merge->outputs[0])->shape != x) {
    return std::nullopt;
  }
  return ChannelShuffle{split, merge, groups[1]};
}

bool identity_pool(const Node& node) {
  const auto kernel = int_pair(node, "kernel", {1, 1});
  const auto stride = int_pair(node, "stride", kernel);
  const auto dilation = int_pair(node, "dilation", {1, 1});
  const auto pad = padding_tlbr(node);
  return kernel[0] == 1 && kernel[1] == 1 && stride[0] == 1 && stride[1] == 1 && dilation[0] == 1 &&
         dilation[1] == 1 && pad[0] == 0 && pad[1] == 0 && pad[2] == 0 && pad[3] == 0;
}

std::optional<MeanAxes> mean_axes(const Graph& graph, const Node& node) {
  const std::int64_t rank = rank_of(graph, node.inputs[0]);
  std::vector<std::int64_t> axes = ints_attr(node, "axes");
  for (std::int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  if (axes == std::vector<std::int64_t>{rank - 1}) return MeanAxes::kLast;
  if (rank == 4 && axes == std::vector<std::int64_t>{2, 3}) return MeanAxes::kHw;
  // Format 1.8: a global average pool over an NDHWC slot's D * H * W pixels.
  if (rank == 5 && axes == std::vector<std::int64_t>{2, 3, 4}) return MeanAxes::kHw;
  return std::nullopt;
}

}  // namespace glassbox::backends::xnnpack

#include "backends/xnnpack/aot/xnnpack_partitioner.h"

#include "backends/xnnpack/aot/node_attributes.h"
#include "backends/xnnpack/aot/xnnpack_format.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::Graph;
using aot::Node;
using aot::ValueId;

bool plain_float(const Graph& graph, ValueId id) {
  const aot::Value* v = graph.find_value(id);
  if (v == nullptr || v->dtype != ScalarType::kFloat || v->shape.empty() ||
      v->shape.size() > kXnnMaxRank) {
    return false;
  }
  for (std::int64_t d : v->shape) {
    if (d <= 0 || d > (std::int64_t{1} << 31) - 1) return false;
  }
  return true;
}

bool computed(const Graph& graph, ValueId id) {
  const aot::Value* v = graph.find_value(id);
  return v != nullptr && v->kind != aot::ValueKind::kConstant;
}

const Node* producer_of(const Graph& graph, ValueId id) {
  for (const Node& n : graph.nodes) {
    for (ValueId out : n.outputs) {
      if (out == id) return &n;
    }
  }
  return nullptr;
}

int users_of(const Graph& graph, ValueId id) {
  int users = 0;
  for (const Node& n : graph.nodes) {
    for (ValueId in : n.inputs) users += in == id ? 1 : 0;
  }
  for (ValueId out : graph.outputs) users += out == id ? 1 : 0;
  return users;
}

bool conv_ok(const Graph& graph, const Node& node) {
  if (!computed(graph, node.inputs[0])) return false;
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {
    if (!is_constant_with_data(graph, node.inputs[i])) return false;
  }
  return true;
}

bool batch_norm_ok(const Graph& graph, const Node& node) {
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {
    if (!is_constant_with_data(graph, node.inputs[i])) return false;
  }
  const Node* conv = producer_of(graph, node.inputs[0]);
  return conv != nullptr && conv->op == aot::op::kConv2d && conv_ok(graph, *conv) &&
         users_of(graph, node.inputs[0]) == 1;
}

bool pool_ok(const Node& node, bool average) {
  if (int_attr(node, "ceil_mode", 0) != 0) return false;
  // XNNPACK refuses a 1x1 pooling window (found on alexnet, whose adaptive
  // pool exports as a 1x1 AveragePool): leave it on the portable kernels.
  const auto kernel = int_pair(node, "kernel", {1, 1});
  if (kernel[0] * kernel[1] < 2) return false;
  if (!average) return true;
  const auto pad = padding_tlbr(node);
  const bool padded = pad[0] != 0 || pad[1] != 0 || pad[2] != 0 || pad[3] != 0;
  return !padded || int_attr(node, "count_include_pad", 1) == 0;
}

bool softmax_ok(const Graph& graph, const Node& node) {
  const aot::Value* x = graph.find_value(node.inputs[0]);
  const auto rank = static_cast<std::int64_t>(x->shape.size());
  const std::int64_t axis = int_attr(node, "axis", -1);
  return axis == -1 || axis == rank - 1;
}

}  // namespace

std::set<std::string, std::less<>> xnnpack_supported_ops() {
  using namespace aot::op;
  std::set<std::string, std::less<>> ops;
  for (std::string_view name :
       {kConv2d, kBatchNorm, kLinear, kMatmul, kMaxPool2d, kAvgPool2d, kGlobalAvgPool2d, kAdd,
        kSub, kMul, kDiv, kRelu, kClamp, kHardswish, kSigmoid, kSoftmax, kFlatten, kReshape,
        kConcat}) {
    ops.emplace(name);
  }
  return ops;
}

bool xnnpack_supports(const Graph& graph, const Node& node) {
  for (ValueId out : node.outputs) {
    if (!plain_float(graph, out)) return false;
  }
  for (ValueId in : node.inputs) {
    if (!plain_float(graph, in)) return false;
  }
  const std::string_view op = node.op;
  if (op == aot::op::kConv2d || op == aot::op::kLinear) return conv_ok(graph, node);
  if (op == aot::op::kBatchNorm) return batch_norm_ok(graph, node);
  if (op == aot::op::kMatmul) {
    const aot::Value* b = graph.find_value(node.inputs[1]);
    return computed(graph, node.inputs[0]) && is_constant_with_data(graph, node.inputs[1]) &&
           b->shape.size() == 2;
  }
  if (op == aot::op::kMaxPool2d) return pool_ok(node, false);
  if (op == aot::op::kAvgPool2d) return pool_ok(node, true);
  if (op == aot::op::kSoftmax) return computed(graph, node.inputs[0]) && softmax_ok(graph, node);
  // Everything else just needs computed operands: a constant operand would
  // need storing in the blob, which only conv/linear weights are.
  for (ValueId in : node.inputs) {
    if (!computed(graph, in)) return false;
  }
  return xnnpack_supported_ops().contains(op);
}

}  // namespace glassbox::backends::xnnpack

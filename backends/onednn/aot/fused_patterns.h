#pragma once
// Chains of nodes the ONNX exporters write for one PyTorch operator, that
// oneDNN runs as one primitive: the partitioner takes their odd members
// (erf, pow, reduce_mean: oneDNN has no primitive for them alone) only
// inside a chain, and the lowering maps the one primitive to every node.
//
// GELU before opset 20: y = (x * (erf(x / sqrt(2)) + 1)) * 0.5, five
// nodes, one gelu_erf eltwise.

#include <optional>

#include "glassbox/aot/graph.h"

namespace glassbox::backends::onednn {

struct GeluChain {
  const aot::Node* scale = nullptr;  // x / sqrt(2), or x * (1 / sqrt(2))
  const aot::Node* erf = nullptr;
  const aot::Node* add = nullptr;   // + 1
  const aot::Node* mul = nullptr;   // x * (...)
  const aot::Node* half = nullptr;  // * 0.5
  aot::ValueId x;
  aot::ValueId out;
};

/// The chain `erf` is the middle of (operands of the adds and muls in
/// either order), or nullopt. Every value inside the chain must have one
/// use, so that nothing else reads what the fused primitive never writes.
std::optional<GeluChain> gelu_chain_of_erf(const aot::Graph& graph, const aot::Node& erf);

// LayerNorm before opset 17, over the last axis:
//   mean = reduce_mean(x);  d = x - mean
//   y = d / sqrt(reduce_mean(d ^ 2) + eps) * gamma + beta
// nine nodes, one layer normalization.
struct LayerNormChain {
  const aot::Node* nodes[9] = {};  // in the order above, first mean, last + beta
  aot::ValueId x;
  aot::ValueId out;
  aot::ValueId gamma, beta;  // float constants of x's last dim
  double eps = 0;
};

/// The chain `node` is a member of, found from its reduce_mean, pow or
/// first reduce_mean; nullopt when `node` is none of those or the graph
/// around it is not the chain (values inside it must have no other use).
std::optional<LayerNormChain> layer_norm_chain_of(const aot::Graph& graph, const aot::Node& node);

// y = alpha * x + beta with scalar constants: x * c, c * x, x / c, x + c,
// c + x, x - c (the forms the partitioner takes; it leaves c - x and c / x
// portable). oneDNN's eltwise linear, so a post-op of whatever computes x
// (a scale after a matmul: attention written as (Q K^T) / sqrt(d)).
struct ScalarAffine {
  float alpha = 1;
  float beta = 0;
};

/// `node` as alpha * x + beta, when it is one of the forms above with x
/// one of its operands and the other a one-element float constant (a
/// division by zero is not taken); nullopt otherwise.
std::optional<ScalarAffine> scalar_affine_of(const aot::Graph& graph, const aot::Node& node,
                                             aot::ValueId x);

// PyTorch's exporter writes avg_pool2d(padding=p, count_include_pad=True)
// as a Pad of zeros and an AveragePool without padding (inception_v3's
// branches). oneDNN has no pad primitive; the pair is one average pool
// with padding p, counting it.
struct PaddedAvgPool {
  const aot::Node* pad = nullptr;
  const aot::Node* pool = nullptr;
  std::int64_t pad_begin[2] = {};  // H, W
  std::int64_t pad_end[2] = {};
};

/// The pair `node` (the pad or the pool) belongs to: a constant-zero pad of
/// H and W only (non-negative) of a 4-D value, whose only use is an
/// avg_pool2d without padding of its own; nullopt otherwise.
std::optional<PaddedAvgPool> padded_avg_pool_of(const aot::Graph& graph, const aot::Node& node);

}  // namespace glassbox::backends::onednn

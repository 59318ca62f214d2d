#pragma once
// PyTorch's exact GELU as the ONNX exporters write it before opset 20,
//   y = (x * (erf(x / sqrt(2)) + 1)) * 0.5,
// five nodes that oneDNN runs as one gelu_erf eltwise. The partitioner
// takes the erf only inside this chain (oneDNN has no erf of its own) and
// the lowering turns the chain into one primitive mapped to all five.

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

}  // namespace glassbox::backends::onednn

#pragma once
/// @file
/// Quantized (QDQ) graphs: which quantize_linear / dequantize_linear nodes
/// belong to which float operator.
///
/// A QDQ model spells one int8 operator as several nodes:
///
///   x_q --> [dequantize_linear] --.
///   w_q --> [dequantize_linear] --+--> [conv2d] --> [quantize_linear] --> y_q
///   b_q --> [dequantize_linear] --'                 [dequantize_linear] --> next op
///
/// The user wrote the conv2d. group_quantization_nodes gives the nodes that
/// quantize for it its debug handle, module hierarchy and source location,
/// so the Inspector shows one row named after the conv2d (maps, module
/// paths and numeric rows alike), and a delegate that runs the group as one
/// int8 operator maps it to that one handle.

#include <functional>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// Whether `op` is quantize_linear or dequantize_linear.
bool is_quantization_op(std::string_view op);

/// Regroups the quantization nodes of `graph` (which must not be null):
/// - a dequantize_linear of a constant (weights, biases) takes the handle
///   of the one node that reads it, when exactly one does and it is not a
///   quantization node;
/// - a relu or clamp read only by quantize_linear nodes, whose input only it
///   reads, takes the handle of the operator before it (a fused ConvReLU);
/// - a quantize_linear of a float operator's output takes that operator's
///   handle;
/// - a dequantize_linear of a quantize_linear's output takes the handle
///   the quantize_linear has then.
/// Any other quantization node (the model input's quantize, a chain of
/// them) keeps its own handle. Nodes are visited in order, so a chain
/// resolves in one pass. Handles left without a node are simply unused.
void group_quantization_nodes(Graph* graph);

/// A copy of `graph` without the quantization of the activations chosen:
/// each quantize_linear `q` with `remove(q)` true loses the
/// dequantize_linear nodes reading it, whose readers read q's float input
/// instead; q goes when nothing reads it any more, and so do the constants
/// only they read. Weights stay dequantized int8. Used for the float
/// reference (remove every pair) and `lower --keep-float` (the pairs of
/// the ops kept in float).
Graph without_activation_quantization(const Graph& graph,
                                      const std::function<bool(const Node& q)>& remove);

/// The nodes of `float_model` that compute what the nodes of `quantized`
/// compute: quantization nodes aside, the two graphs must have the same
/// operators in the same order, each reading the counterparts of its
/// inputs' producers. Returns quantized debug handle -> the float debug
/// handle of the last node it covers (a fused ConvReLU's relu).
/// kInvalidArgument naming the first operator that differs (names differ
/// after PyTorch's quantization, so they are not compared).
StatusOr<std::map<DebugHandle, DebugHandle>> align_float_twin(const Graph& quantized,
                                                              const Graph& float_model);

/// As align_float_twin, but every aligned pair of compute nodes' handles
/// (quantized, float), in graph order: a fused ConvReLU gives two pairs
/// with the same quantized handle. For joins that must cover every float
/// op (`glassbox compare`), where align_float_twin keeps only the last.
StatusOr<std::vector<std::pair<DebugHandle, DebugHandle>>> align_float_twin_pairs(
    const Graph& quantized, const Graph& float_model);

}  // namespace glassbox::aot

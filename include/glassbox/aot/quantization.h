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

#include <string_view>

#include "glassbox/aot/graph.h"

namespace glassbox::aot {

/// Whether `op` is quantize_linear or dequantize_linear.
bool is_quantization_op(std::string_view op);

/// Regroups the quantization nodes of `graph` (which must not be null):
/// - a dequantize_linear of a constant (weights, biases) takes the handle
///   of the one node that reads it, when exactly one does and it is not a
///   quantization node;
/// - a quantize_linear of a float operator's output takes that operator's
///   handle;
/// - a dequantize_linear of a quantize_linear's output takes the handle
///   the quantize_linear has then.
/// Any other quantization node (the model input's quantize, a chain of
/// them) keeps its own handle. Nodes are visited in order, so a chain
/// resolves in one pass. Handles left without a node are simply unused.
void group_quantization_nodes(Graph* graph);

}  // namespace glassbox::aot

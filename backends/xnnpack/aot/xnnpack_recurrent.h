#pragma once
/// @file
/// The XNNPACK delegate's rule and lowering for the recurrent layers (lstm,
/// gru, rnn; format 1.7's kRecurrent, xnnpack_format.h). The runtime
/// unrolls the cell (runtime/recurrent_layer.h), so it takes a layer that
/// runs every sequence to its end (sequence_lens constant and all T), with
/// constant weights, no peepholes, no input_forget and Sigmoid / Tanh /
/// Relu activations; anything else stays on the portable kernel with the
/// reason.

#include <string>

#include "backends/xnnpack/aot/xnnpack_program.h"
#include "glassbox/aot/graph.h"

namespace glassbox::backends::xnnpack {

/// Why the delegate cannot run recurrent `node` ("" when it can); the
/// caller checks the tensors' dtypes and sizes.
std::string recurrent_rejection(const aot::Graph& graph, const aot::Node& node);

/// The kRecurrent operator for `node` (which recurrent_rejection took):
/// kind, ints and floats; the caller fills operands (x, initial_h and for
/// lstm initial_c) and output, and adds the kRecurrentState operators for
/// Y_h and Y_c.
XnnOp recurrent_op(const aot::Graph& graph, const aot::Node& node);

}  // namespace glassbox::backends::xnnpack

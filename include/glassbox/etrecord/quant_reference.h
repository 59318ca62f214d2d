#pragma once
/// @file
/// The references of a quantized (QDQ) model, for the Inspector's quant
/// view: three tensors per quantized operator, joined on its debug handle
/// with what the delegate computed.
///
///   reference_op_outputs  the simulation: the QDQ graph itself on the
///                         portable kernels (attach_reference)
///   float_op_outputs      the float reference: the float twin's outputs
///                         (lower --float-model), or the QDQ graph with the
///                         quantization of every activation removed
///                         (weights stay dequantized int8)
///   isolated_op_outputs   the op alone: the float reference's graph with
///                         only this op's output quantized, so each op's
///                         own quantization loss is measured on float
///                         inputs
///
/// Each tensor's quantization is counted once, at the op that produces it:
/// the quantize of an op's output belongs to that op's handle
/// (aot::group_quantization_nodes), so a scale that is wrong for one tensor
/// shows in exactly one op's isolated error.
///
///   etrecord::attach_reference(edge, inputs, &record);
///   etrecord::attach_quantization_reference(edge, float_twin_or_null, &record);

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::etrecord {

/// Whether `graph` has quantize_linear nodes (an int8 model).
bool is_quantized_graph(const aot::Graph& graph);

/// Computes and stores `record`'s float_op_outputs and isolated_op_outputs
/// for `edge_graph` (with constant data; the graph `record` describes), on
/// `record`'s reference inputs, which attach_reference stored first.
/// `float_model`, if not null, is the float twin (imported with constant
/// data): aligned with aot::align_float_twin and run on the same inputs for
/// the float reference. Errors: kInvalidArgument (no reference inputs, no
/// quantization in the graph, a twin that does not align, naming the first
/// operator that differs), and run_reference's. On error `record` is
/// unchanged.
Status attach_quantization_reference(const aot::Graph& edge_graph, const aot::Graph* float_model,
                                     ETRecord* record);

}  // namespace glassbox::etrecord

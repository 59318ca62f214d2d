#pragma once
/// @file
/// ONNX's recurrent layers (lstm, gru, rnn; glassbox/aot/ops.h) on oneDNN's
/// RNN primitives: which ones the delegate takes, and the kRnn operator
/// (onednn_format.h) each becomes, its weights already in oneDNN's gate
/// order so that nothing is reordered at run time.
///
/// Taken: weights, recurrence, bias and peepholes constant; sequence_lens
/// a constant of T for every batch entry (oneDNN runs every step of every
/// sequence); the default activations (lstm Sigmoid,Tanh,Tanh; gru
/// Sigmoid,Tanh; rnn Tanh, Relu or Sigmoid, the same for both
/// directions); no clip; no input_forget. y_h and y_c are kRnnState
/// operators, copies of the layer's final states. Forward, reverse and bidirectional, layouts 0
/// and 1, initial states computed, constant or absent (zeros).

#include <string>
#include <vector>

#include "backends/onednn/onednn_format.h"
#include "glassbox/aot/graph.h"

namespace glassbox::backends::onednn {

/// Why the delegate leaves recurrent `node` on the portable kernel, or ""
/// when it takes it. Checks the op's own rules; the caller checks the
/// computed tensors' types and shapes as for any op.
std::string recurrent_rejection(const aot::Graph& graph, const aot::Node& node);

/// A taken recurrent node as one kRnn operator: its ints, its constants
/// (each with its dims) and the computed or constant initial states it
/// reads (unset when absent or all zeros).
struct RecurrentPlan {
  std::vector<std::int64_t> ints;  ///< as onednn_format.h lists for kRnn
  struct Constant {
    std::vector<std::int64_t> dims;
    std::vector<float> data;
  };
  Constant w_layer;   ///< [D, I, G, H], oneDNN's gate order
  Constant w_iter;    ///< [D, H, G, H]
  Constant bias;      ///< [D, G, H], or [D, 4, H] for a linear-before-reset GRU
  Constant peephole;  ///< [D, 3, H] (i, f, o); empty data when none
  aot::ValueId initial_h;
  aot::ValueId initial_c;
};

/// The plan for `node`, which recurrent_rejection took.
RecurrentPlan plan_recurrent(const aot::Graph& graph, const aot::Node& node);

}  // namespace glassbox::backends::onednn

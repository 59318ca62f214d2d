#pragma once
/// @file
/// The attributes of a recurrent node (lstm, gru, rnn; ops.h describes
/// them), read once into typed fields. Shape inference and both delegates'
/// lowerings read the node through this, so a bad attribute gets one message
/// wherever it is met. Its codes (cell, direction, activation) are core's
/// (core/recurrent_codes.h), the ones the portable kernels read too.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/recurrent_codes.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

// The codes the portable kernels use too (core/recurrent_codes.h).
using RecurrentKind = RecurrentCell;
using glassbox::RecurrentActivationKind;
using glassbox::RecurrentDirection;

/// One function with its parameters: activation_alpha_<i> /
/// activation_beta_<i>, or ONNX's defaults when absent (LeakyRelu alpha
/// 0.01, ThresholdedRelu 1, Elu 1, Affine 1 and 0, ScaledTanh 1 and 1,
/// HardSigmoid 0.2 and 0.5); 0 for a function without the parameter.
struct RecurrentActivation {
  RecurrentActivationKind kind = RecurrentActivationKind::kSigmoid;
  float alpha = 0.0f;
  float beta = 0.0f;

  bool operator==(const RecurrentActivation&) const = default;
};

/// ONNX's spelling ("Sigmoid", "LeakyRelu", ...).
std::string_view to_string(RecurrentActivationKind kind);

/// Where each operand is in the node's inputs. Every input is present in
/// the IR; initial_c and p only in an lstm.
struct RecurrentInputs {
  std::size_t x = 0;
  std::size_t w = 1;
  std::size_t r = 2;
  std::size_t b = 3;
  std::size_t sequence_lens = 4;
  std::size_t initial_h = 5;
  std::optional<std::size_t> initial_c;
  std::optional<std::size_t> peepholes;
  std::size_t count = 6;  ///< 8 for an lstm
};

struct RecurrentAttributes {
  RecurrentKind kind = RecurrentKind::kLstm;
  RecurrentDirection direction = RecurrentDirection::kForward;
  std::int64_t num_directions = 1;  ///< D: 2 when bidirectional
  std::int64_t hidden_size = 0;     ///< H
  std::int64_t gate_count = 4;      ///< G: lstm 4, gru 3, rnn 1
  bool batch_major = false;         ///< layout 1: x [N, T, I]
  /// D times the cell's functions (lstm f, g, h; gru f, g; rnn f), the
  /// forward direction's first.
  std::vector<RecurrentActivation> activations;
  std::optional<double> clip;        ///< positive and finite when given
  bool input_forget = false;         ///< lstm's; false in the others
  bool linear_before_reset = false;  ///< gru's; false in the others
  RecurrentInputs inputs;

  /// The cell's functions per direction: lstm 3, gru 2, rnn 1.
  std::size_t activations_per_direction() const;
};

/// The kind of recurrent op `op`, or nullopt for any other op.
std::optional<RecurrentKind> recurrent_kind(std::string_view op);

/// Reads and checks the attributes of recurrent op `op`. kInvalidArgument,
/// one message starting with the op's name ("lstm: ..."), for a missing
/// or mistyped required attribute (hidden_size, direction, activations), a
/// value outside its range, an activation ONNX does not list or a list of
/// the wrong length.
StatusOr<RecurrentAttributes> read_recurrent_attributes(std::string_view op,
                                                        const AttributeMap& attributes);
StatusOr<RecurrentAttributes> read_recurrent_attributes(const Node& node);

}  // namespace glassbox::aot

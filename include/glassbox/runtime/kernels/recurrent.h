#pragma once
/// @file
/// ONNX's recurrent layers, LSTM, GRU and RNN (opset 14), on row-major
/// contiguous float32 tensors: one call runs every time step of every
/// direction, as the ONNX node does.
///
/// Shapes (D = 1, or 2 for bidirectional; G = 4 for LSTM, 3 for GRU, 1
/// for RNN; layout 0 is time-major, layout 1 batch-major):
///
///   x          [T, N, I]          layout 1: [N, T, I]
///   w          [D, G*H, I]        gates in ONNX order: LSTM i, o, f, c;
///   r          [D, G*H, H]                             GRU z, r, h
///   b          [D, 2*G*H]         W's biases then R's; null = zeros
///   seq_lens   [N] (int64)        null = T for every batch entry
///   initial_h  [D, N, H]          layout 1: [N, D, H]; null = zeros
///   initial_c  [D, N, H]          LSTM only; as initial_h
///   p          [D, 3*H]           LSTM peepholes i, o, f; null = zeros
///   y          [T, D, N, H]       layout 1: [N, T, D, H]
///   y_h, y_c   [D, N, H]          layout 1: [N, D, H]
///
/// Each step, with f, g, h the direction's activations and every gate's
/// pre-activation clipped to [-clip, clip] when clip > 0:
///
///   LSTM  i = f(x Wi + h Ri + Pi * c + bi)    f' = f(x Wf + h Rf + Pf * c + bf)
///         (input_forget: f' = 1 - i)          ĉ = g(x Wc + h Rc + bc)
///         c = f' * c + i * ĉ                  o = f(x Wo + h Ro + Po * c + bo)
///         h = o * h(c)
///   GRU   z = f(x Wz + h Rz + bz)             r = f(x Wr + h Rr + br)
///         ĥ = g(x Wh + (r * h) Rh + Rbh + Wbh)       (linear_before_reset 0)
///         ĥ = g(x Wh + r * (h Rh + Rbh) + Wbh)       (linear_before_reset 1)
///         h = (1 - z) * ĥ + z * h
///   RNN   h = f(x Wi + h Ri + Wbi + Rbi)
///
/// The reverse direction runs from step seq_lens[n] - 1 down to 0. Steps at
/// or past seq_lens[n] leave the state alone and write zeros to y; y_h and
/// y_c hold each direction's last state (the initial one when seq_lens[n]
/// is 0). Products are the GEMM's (gemm.h: float32 sums in an unspecified
/// order); the activations are those of elementwise.h / elementwise_ext.h.
///
/// Pointers are borrowed for the call. Outputs must not overlap inputs or
/// each other; any of y, y_h, y_c may be null (not produced). Nothing
/// allocates: the caller passes rnn_scratch_bytes() of 64-byte-aligned
/// scratch.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/recurrent_codes.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

// The codes the IR's attribute reader uses too (core/recurrent_codes.h).
using RnnCell = RecurrentCell;
using RnnDirection = RecurrentDirection;
using RnnActivationKind = RecurrentActivationKind;

struct RnnActivation {
  RnnActivationKind kind = RnnActivationKind::kSigmoid;
  float alpha = 0.0f;
  float beta = 0.0f;
};

/// The most activations a call takes: LSTM's f, g, h per direction.
inline constexpr std::size_t kMaxRnnActivations = 6;

struct RnnParams {
  RnnCell cell = RnnCell::kLstm;
  RnnDirection direction = RnnDirection::kForward;
  std::int64_t seq_length = 0;   ///< T
  std::int64_t batch = 0;        ///< N
  std::int64_t input_size = 0;   ///< I
  std::int64_t hidden_size = 0;  ///< H
  bool batch_major = false;      ///< ONNX layout = 1
  /// Per direction, forward first: LSTM f, g, h; GRU f, g; RNN f.
  RnnActivation activations[kMaxRnnActivations];
  float clip = 0.0f;                 ///< <= 0: no clipping
  bool input_forget = false;         ///< LSTM only
  bool linear_before_reset = false;  ///< GRU only
};

struct RnnTensors {
  const float* x = nullptr;
  const float* w = nullptr;
  const float* r = nullptr;
  const float* b = nullptr;
  const std::int64_t* seq_lens = nullptr;
  const float* initial_h = nullptr;
  const float* initial_c = nullptr;
  const float* p = nullptr;
  float* y = nullptr;
  float* y_h = nullptr;
  float* y_c = nullptr;
};

/// The activation ONNX calls `name` (compared ignoring case, as ONNX
/// Runtime does), with ONNX's defaults for its parameters: LeakyRelu alpha
/// 0.01, ThresholdedRelu alpha 1, HardSigmoid alpha 0.2 beta 0.5, Elu alpha
/// 1, Affine alpha 1 beta 0, ScaledTanh alpha 1 beta 1. False for a name
/// not in RnnActivationKind.
bool rnn_activation_from_name(const char* name, std::size_t length, RnnActivation* out);
/// Whether `kind` reads alpha (beta): the six (three) with parameters above.
bool rnn_activation_takes_alpha(RnnActivationKind kind);
/// Applies `a` to v[0..n) in place: the layers' gate functions (a delegate
/// that runs the cell itself applies them with this too).
void rnn_activate(const RnnActivation& a, float* v, std::int64_t n);
/// ONNX's clip: v[0..n) into [-clip, clip] when clip > 0, else unchanged.
void rnn_clip(float clip, float* v, std::int64_t n);
bool rnn_activation_takes_beta(RnnActivationKind kind);

/// Gates per step of `cell` (G above) and activations per direction.
std::int64_t rnn_gate_count(RnnCell cell);
std::size_t rnn_activation_count(RnnCell cell);

/// Scratch bytes rnn() needs (0 for invalid sizes).
std::size_t rnn_scratch_bytes(const RnnParams& params);

/// Runs the layer. kInvalidArgument for negative or overflowing sizes, a
/// null x, w or r with a non-empty tensor, initial_c or p given to a GRU
/// or RNN, a seq_lens entry outside [0, T], or scratch below
/// rnn_scratch_bytes().
Error rnn(const RnnParams& params, const RnnTensors& tensors, Span<float> scratch);

}  // namespace glassbox::runtime::kernels

#pragma once
/// @file
/// The codes of ONNX's recurrent layers (LSTM, GRU, RNN) that the IR's
/// attribute reader (aot/recurrent_attributes.h) and the portable kernels
/// (runtime/kernels/recurrent.h) share: one definition below both layers,
/// so a lowering hands the reader's codes to a kernel as they are.

#include <cstdint>

namespace glassbox {

enum class RecurrentCell : std::uint8_t { kRnn, kGru, kLstm };

enum class RecurrentDirection : std::uint8_t { kForward, kReverse, kBidirectional };

/// The activation functions ONNX lists for its recurrent ops, with its
/// definitions: Affine alpha*x + beta, LeakyRelu x < 0 ? alpha*x : x,
/// ThresholdedRelu x > alpha ? x : 0, ScaledTanh alpha*tanh(beta*x),
/// HardSigmoid clamp(alpha*x + beta, 0, 1), Elu x < 0 ? alpha*(e^x - 1) : x.
enum class RecurrentActivationKind : std::uint8_t {
  kSigmoid,
  kTanh,
  kRelu,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
};

}  // namespace glassbox

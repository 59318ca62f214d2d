#pragma once
/// @file
/// Which graph nodes the oneDNN backend takes, and why it leaves the
/// others on the portable kernels:
///
/// - conv2d: weight (and bias) constant; grouped and depthwise included.
///   conv1d likewise (the 2-D primitive over [N, C, 1, L]); conv3d likewise
///   (the 3-D primitive over [N, C, D, H, W]).
/// - batch_norm: statistics constant; folded into the taken convolution
///   before it when it is that convolution's only user, else (4-D computed
///   input) a depthwise 1x1 convolution of per-channel scale and shift.
/// - linear: weight (and bias) constant, 2-D. matmul: b a constant 2-D matrix.
/// - max_pool2d, avg_pool2d (and their 1-D and 3-D forms): ceil mode
///   becomes extra end padding; avg with count_include_pad=1 only when
///   ceil mode adds none.
/// - global_avg_pool2d: always.
/// - pad: zeros on H and W before an avg_pool2d without padding: that
///   pool's padding (fused_patterns.h).
/// - relu leaky_relu clamp sigmoid hardswish hardsigmoid gelu tanh exp log
///   abs sqrt elu neg softplus: input computed.
/// - add sub mul div min max: the output has one operand's shape (sub, div:
///   the first's); the other operand computed or a float constant.
/// - softmax, flatten, reshape: always. concat: every input computed.
/// - layer_norm: over the last axis only; scale and bias constant.
/// - lstm, gru, rnn: one kRnn operator on oneDNN's RNN primitives when
///   recurrent_lowering.h takes them (constant weights, sequence_lens all
///   T, the default activations, no clip or input_forget).
///
/// - transpose, slice, gather, matmul of two computed tensors, the GELU
///   and LayerNorm chains: see docs/operators.md.
///
/// Int8 (QDQ models, docs/quantization.md): quantize_linear of a computed
/// float tensor and dequantize_linear of a computed int8/uint8 one, both
/// per tensor; dequantize_linear of a constant (int8 weights, int32 biases)
/// when every reader is taken, which then reads it as a constant (in int8
/// when the lowering runs the reader in int8, else dequantized once at
/// export). No other node may read or write an int8 tensor.
///
/// Every other computed value must be float32 of rank 1..6 with no
/// zero-sized dimension. Group norm, other pads, resize, reductions other than global
/// average pooling, and erf and pow outside their chains stay portable.

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::backends::onednn {

/// The ops the table names (the per-node rules are in onednn_rejection).
std::set<std::string, std::less<>> onednn_supported_ops();

/// Why the backend leaves `node` of `graph` on the portable kernels, as a
/// short phrase; empty when it takes the node.
std::string onednn_rejection(const aot::Graph& graph, const aot::Node& node);

/// For every node of `graph`, in node order, onednn_rejection (empty for
/// the nodes it takes); a delegate_call node is "already delegated".
std::vector<std::string> onednn_partition_report(const aot::Graph& graph);

/// A reduce_mean over H and W of an NCHW tensor, over L of an N x C x L
/// one or over D, H and W of an N x C x D x H x W one (keepdims or not): a
/// global average pool.
bool is_spatial_mean(const aot::Graph& graph, const aot::Node& node);

/// The dequantize_linear node whose output `id` is, when it dequantizes a
/// constant with recorded data (scale and zero point constant too); null
/// otherwise.
const aot::Node* dequantized_constant(const aot::Graph& graph, aot::ValueId id);

/// A float constant (is_float_constant) or a dequantized constant.
bool is_constant_operand(const aot::Graph& graph, aot::ValueId id);

/// The float values of a constant operand (a dequantized one computed
/// here, per tensor or per axis).
std::vector<float> constant_operand_data(const aot::Graph& graph, aot::ValueId id);

/// A quantize_linear or dequantize_linear node's one scale and zero point
/// and its int8 type (kChar or kByte); nullopt when per axis, not
/// constant, or of another type.
struct TensorQuant {
  ScalarType type = ScalarType::kChar;
  float scale = 1.f;
  std::int32_t zero_point = 0;
  friend bool operator==(const TensorQuant&, const TensorQuant&) = default;
};
std::optional<TensorQuant> per_tensor_quant(const aot::Graph& graph, const aot::Node& node);

/// A 2-D (or 3-D: D, H, W) pooling window as oneDNN takes it; the first
/// `dims` entries of each array are used.
struct PoolGeometry {
  std::size_t dims = 2;
  std::array<std::int64_t, 3> kernel{};
  std::array<std::int64_t, 3> stride{};
  std::array<std::int64_t, 3> dilation{1, 1, 1};
  std::array<std::int64_t, 3> pad_begin{};  ///< (front,) top, left
  std::array<std::int64_t, 3> pad_end{};    ///< (back,) bottom, right, ceil mode's rows included
  /// Whether ceil mode added padding beyond the node's own.
  bool ceil_extra = false;
};

/// The window of a max_pool2d / avg_pool2d / global_avg_pool2d node (or
/// of a max_pool1d / avg_pool1d as its 2-D form, as_2d; or of a
/// max_pool3d / avg_pool3d over D, H, W) whose end padding
/// reproduces the output shape the graph declares.
std::optional<PoolGeometry> pool_geometry(const aot::Graph& graph, const aot::Node& node);

/// Whether `node` is a conv3d, max_pool3d or avg_pool3d: oneDNN's 3-D
/// primitive over [N, C, D, H, W] (format 1.5).
bool is_volume_op(const aot::Node& node);

/// A conv3d's window as kConvolution's ints take it before has_sum:
/// strides (D, H, W), dilations, pads begin (front, top, left), pads end,
/// groups.
std::vector<std::int64_t> conv3d_ints(const aot::Node& node);

}  // namespace glassbox::backends::onednn

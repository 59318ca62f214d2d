#pragma once
/// @file
/// Which graph nodes the XNNPACK backend takes, and why it leaves the
/// others on the portable kernels.
///
/// - conv2d: weight (and bias) constant; covers depthwise and grouped.
/// - conv_transpose2d: weight (and bias) constant; output_padding < stride.
/// - conv1d: float weight (and bias) constant; the conv2d of height 1 over
///   NHWC [N, 1, L, C] (the delegate keeps a chain of 1-D ops in that form;
///   a reshape and a layout conversion at its ends).
/// - batch_norm: statistics constant. Folded into the conv2d (conv1d) before
///   it when it is that convolution's only user; otherwise, over a 4-D
///   computed input, a depthwise 1x1 convolution of per-channel scale and
///   shift.
/// - linear: weight (and bias) constant.
/// - matmul: b a constant 2-D matrix (becomes fully connected); or both
///   operands computed with equal ranks and batch dims (format 1.4's batch
///   matmul: attention's Q x K^T and weights x V).
/// - max_pool2d: ceil mode as extra bottom / right padding; a 1x1 window
///   only without stride or padding (then a copy).
/// - avg_pool2d: as max_pool2d; padding only with count_include_pad=0
///   (XNNPACK excludes padding) unless ceil mode adds none.
/// - max_pool1d, avg_pool1d: as their 2-D form of height 1 (a window of 1
///   is refused).
/// - global_avg_pool2d: always.
/// - reduce_mean: over the last axis, or over H, W of a 4-D tensor.
/// - add sub mul div min max: one operand computed; a float constant other
///   one is stored in the blob (format 1.2), or is the bias of a matmul or
///   linear it follows.
/// - relu clamp hardswish sigmoid abs neg floor ceil round sqrt: input
///   computed.
/// - leaky_relu: input computed.
/// - hardsigmoid: input computed; alpha, beta finite (multiply by alpha, add
///   beta clamped to [0, 1]: two operators, one identifier).
/// - elu: alpha > 0.
/// - pow: exponent a constant 2 (XNNPACK's square).
/// - prelu: slope constant, a scalar or per channel (along C of a 4-D input,
///   or along the last axis).
/// - pad: mode "constant", no negative pad.
/// - depth_to_space: mode "DCR", blocksize >= 2.
/// - resize: mode "linear" with half_pixel, pytorch_half_pixel (output H, W
///   > 1) or align_corners; no scales other than output/input.
/// - softmax: over the last axis.
/// - flatten reshape: input computed.
/// - concat: one input computed; float constant others stored in the blob.
/// - slice: along one axis, step 1 (a strided copy).
/// - transpose: any permutation; reshape, transpose (0, 2, 1, 3, 4),
///   reshape is one channel shuffle, otherwise format 1.4's transpose.
/// - layer_norm: over the last axis, scale (and bias) constant [C].
/// - erf: input computed.
/// - lstm, gru, rnn: one operator for the layer (format 1.7's kRecurrent;
///   the runtime unrolls the cell on XNNPACK's fully connected operators):
///   xnnpack_recurrent.h says which.
///
/// - quantize_linear: float input, one scale and zero point (per tensor).
/// - dequantize_linear: of an int8 / uint8 value quantized per tensor; or
///   of a constant (weights, biases) whose every user the backend takes.
///   A float op whose activations are such dequantizes and whose output
///   (after relu / clamp) has one quantize_linear user runs as one int8
///   operator (format 1.6, docs/quantization.md "Delegates"); other float
///   ops read the constants dequantized at AOT time and the activations
///   through a convert to float.
///
/// - reshape, flatten of an int8 / uint8 value: int8_reshape.
///
/// All computed values must be float32 (int8 / uint8 between a
/// quantize_linear and its dequantize_linear) of rank 1..6 with no zero-sized
/// dimension. XNNPACK 2022's operator API has no transpose, activation x
/// activation matmul, layer norm or erf: format 1.4 runs those with
/// Glassbox's own kernels inside the delegate (runtime/own_kernels.h), so a
/// transformer encoder is one delegate. Group norm, tanh, exp, log, and
/// every op not in the table, stay portable.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::backends::xnnpack {

/// A quantize_linear's or dequantize_linear's parameters when they are one
/// scale and zero point: the int8 side's type (kChar or kByte), the scale
/// and the zero point, as the graph has them.
struct TensorQuant {
  ScalarType type = ScalarType::kChar;
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  friend bool operator==(const TensorQuant&, const TensorQuant&) = default;
};

/// `q_or_dq`'s parameters if constant and per tensor; nullopt otherwise.
std::optional<TensorQuant> per_tensor_quant(const aot::Graph& graph, const aot::Node& q_or_dq);

/// A dequantize_linear of a constant (int8 / uint8 weights, int32 biases).
struct QuantizedConstant {
  const aot::Value* values = nullptr;     ///< the quantized constant
  std::vector<float> scales;              ///< 1, or one per index of `axis`
  std::vector<std::int64_t> zero_points;  ///< as many as scales
  std::int64_t axis = 0;                  ///< non-negative
  /// (q - zero point) * scale, computed (one pass over the values) on
  /// request: the partitioner only needs the parameters.
  std::vector<float> dequantized() const;
};

/// The dequantize_linear producing `id` when it reads a constant with
/// recorded data and constant parameters; nullopt otherwise.
std::optional<QuantizedConstant> quantized_constant(const aot::Graph& graph, aot::ValueId id);

/// A float constant's data, or a dequantized constant's (quantized_constant);
/// nullopt for anything else.
std::optional<std::vector<float>> constant_floats(const aot::Graph& graph, aot::ValueId id);

/// A float op the backend runs as one int8 operator (format 1.6): every
/// activation it reads a per-tensor dequantize_linear of an int8 / uint8
/// value, its output (after relu / clamp users, fused) read only by one
/// per-tensor quantize_linear, and the op one with an int8 lowering:
/// conv2d and linear (or matmul by a constant [K, N]) with constant int8 /
/// uint8 weights per tensor or per output channel (zero points folded in
/// int8) and an optional bias; add, mul; max_pool2d (output quantized like
/// its input); avg_pool2d; global_avg_pool2d; concat; flatten, reshape
/// (output quantized like the input); sigmoid, hardswish, hardsigmoid,
/// relu, clamp (a lookup table). A relu / clamp after the quantize, between
/// a dequantize and a quantize with its parameters, is fused as well.
struct QuantizedGroup {
  std::vector<aot::ValueId> inputs;  ///< the int8 activations read
  /// relu / clamp fused after it (with the quantize and dequantize before
  /// a relu / clamp quantized on its own)
  std::vector<const aot::Node*> activations;
  const aot::Node* quantize = nullptr;  ///< the quantize_linear ending it
  float min = 0, max = 0;               ///< the fused range (float)
};

/// Whether `node` is a reshape or flatten of an int8 / uint8 value made by
/// a per-tensor quantize_linear (or by another such reshape): a copy of the
/// bytes (format 1.6's kQCopy).
bool int8_reshape(const aot::Graph& graph, const aot::Node& node);

/// `node`'s group when the backend runs it in int8; nullopt otherwise.
std::optional<QuantizedGroup> quantized_group(const aot::Graph& graph, const aot::Node& node);

/// Per node of `graph`: whether the backend runs it as (part of) an int8
/// operator: a taken node that heads a quantized_group, or is fused into
/// one (its relu / clamp and quantize_linear).
std::vector<bool> xnnpack_int8_report(const aot::Graph& graph);

/// Int8 weights of a conv2d / linear / matmul `node` with `channels`
/// output channels along `channel_axis` of the weight: the values minus
/// their zero points (all must fit int8), one scale per channel, and the
/// int32 bias at scale x_scale * w_scale (an int32 bias at exactly that
/// scale is kept as is, any other rounded to it). nullopt otherwise.
struct Int8Weights {
  std::vector<std::int8_t> kernel;  ///< in the graph's order
  std::vector<float> scales;
  std::vector<std::int32_t> bias;
};
std::optional<Int8Weights> int8_weights(const aot::Graph& graph, const aot::Node& node,
                                        std::int64_t channels, std::int64_t channel_axis,
                                        float x_scale);

/// The ops the table names (the per-node rules are in xnnpack_rejection).
std::set<std::string, std::less<>> xnnpack_supported_ops();

/// Why the backend leaves `node` of `graph` on the portable kernels, as a
/// short phrase ("activation x activation matmul", "int64 tensor",
/// "op not supported by XNNPACK", ...); empty when it takes the node.
std::string xnnpack_rejection(const aot::Graph& graph, const aot::Node& node);

/// Whether the backend takes `node` of `graph` (the table's rules).
bool xnnpack_supports(const aot::Graph& graph, const aot::Node& node);

/// The partition report: for every node of `graph`, in node order, the
/// reason the partitioner leaves it (xnnpack_rejection), empty for the
/// nodes it takes. A delegate_call node is "already delegated".
std::vector<std::string> xnnpack_partition_report(const aot::Graph& graph);

/// Where a taken prelu's slope varies.
enum class PreluSlope {
  kScalar,      ///< one value for every element
  kLastAxis,    ///< along the last logical axis
  kChannels4d,  ///< along C of a 4-D input (NHWC inside the delegate)
};

/// The slope shape of a prelu whose slope is constant; nullopt when it
/// is neither a scalar nor per channel.
std::optional<PreluSlope> prelu_slope(const aot::Graph& graph, const aot::Node& node);

/// The constant operand of `add` when it adds a bias over the last axis to
/// `product` (its other operand, [..., N]): a float constant whose dims
/// are all 1 but the last, which is N, and which does not broadcast
/// `product` up; nullopt otherwise.
std::optional<aot::ValueId> bias_of_add(const aot::Graph& graph, const aot::Node& add,
                                        aot::ValueId product);

/// The axes a taken reduce_mean averages.
enum class MeanAxes {
  kLast,  ///< the last axis
  kHw,    ///< H and W of a 4-D tensor, or D, H and W of a 5-D one (global average pooling)
};

/// The axes of a reduce_mean XNNPACK can run; nullopt for others.
std::optional<MeanAxes> mean_axes(const aot::Graph& graph, const aot::Node& node);

/// A slice XNNPACK copies as rows: at most one axis narrowed, with step 1
/// (size-1 picks of any step count as step 1). No axis narrowed: axis 0.
struct SliceAxis {
  std::size_t axis;  ///< logical
  std::int64_t start;
};
std::optional<SliceAxis> slice_axis(const aot::Graph& graph, const aot::Node& node);

/// Any other slice with positive steps (format 1.5's kStridedSlice): per
/// logical dim, the first index and the step (1 where one element is
/// taken). nullopt for a negative step or a rank over kXnnMaxRank.
struct StridedSlice {
  std::vector<std::int64_t> start, step;
};
std::optional<StridedSlice> strided_slice(const aot::Graph& graph, const aot::Node& node);

/// A channel shuffle as PyTorch exports it: reshape [N, C, H, W] to
/// [N, G, C/G, H, W], transpose with perm [0, 2, 1, 3, 4], reshape back.
/// Found from the transpose; nullopt when `transpose` is not its middle.
struct ChannelShuffle {
  const aot::Node* split;  ///< the first reshape
  const aot::Node* merge;  ///< the reshape back
  std::int64_t groups;
};
std::optional<ChannelShuffle> channel_shuffle_of(const aot::Graph& graph,
                                                 const aot::Node& transpose);

/// A max or average pool whose 1x1 window, stride 1 and no padding make it
/// the identity: lowered as a copy (XNNPACK refuses 1x1 windows).
bool identity_pool(const aot::Node& node);

}  // namespace glassbox::backends::xnnpack

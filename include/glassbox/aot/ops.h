#pragma once
/// @file
/// The operator set of the graph IR: names, attributes and type inference.
/// Layout is NCHW. Every op but lstm, gru and rnn has exactly one output.
/// Each op states the dtypes it takes and gives (float is float32, int64 is ScalarType::kLong,
/// bool is ScalarType::kBool, one byte 0 or 1).
///
/// | op                 | inputs                          | attributes |
/// |--------------------|---------------------------------|----------------------------------------------|
/// | conv2d             | x[N,C,H,W], w[O,C/g,kH,kW], b[O]? | stride, dilation (int[2]), padding
/// (int[2], or int[4] top,left,bottom,right), groups | | relu sigmoid hardswish tan sin cos | x | -
/// | | clamp              | x                               | min?, max? (float, min <= max; absent
/// = unbounded) | | hardsigmoid        | x                               | alpha, beta (float):
/// max(0, min(1, alpha*x+beta)) | | add sub mul div    | a, b (broadcast, numpy rules)   | - | |
/// linear             | x[...,in], w[out,in], b[out]?   | - | | matmul             | a[...,m,k],
/// b[...,k,n]          | - (batch dims broadcast)                     | | max_pool2d avg_pool2d |
/// x[N,C,H,W]                   | kernel, stride (int[2]), padding (int[2] with PyTorch's "at most
/// half the kernel", or int[4] top,left,bottom,right, each smaller than the window); optional
/// ceil_mode (0/1, default 0: round down); max only: optional dilation (int[2]); avg only: optional
/// count_include_pad (0/1, default 1 as PyTorch; ONNX's default is 0) | | global_avg_pool2d  |
/// x[N,C,H,W] -> [N,C,1,1]         | -                                            | | batch_norm |
/// x[N,C,...], mean, var, weight, bias (all [C]) | eps (float)                    | | flatten | x
/// | start_dim, end_dim (int, may be negative)    | | reshape            | x | shape (int list, at
/// most one -1)             | | concat             | x0, x1, ... (at least one)      | axis (int,
/// may be negative)                  | | softmax            | x                               |
/// axis (int, may be negative)                  | | transpose          | x | perm (int list, a
/// permutation of the dims)   |
///
/// Operators added for transformers and modern CNNs (ONNX semantics, see
/// docs/operators.md for each one's ONNX source):
///
/// | op                 | inputs (dtypes)                 | attributes |
/// |--------------------|---------------------------------|----------------------------------------------|
/// | erf tanh exp log neg abs sqrt reciprocal sign floor ceil round softplus softsign | x (float) |
/// - | | gelu               | x (float)                       | approximate (string "none" or
/// "tanh")        | | leaky_relu elu     | x (float)                       | alpha (float) | | selu
/// | x (float)                       | alpha, gamma (float)                         | | logical_not
/// | x (bool)                        | -                                            | | add sub mul
/// div min max | a, b (float or int64, broadcast) | -                                     | | mod
/// | a, b (float or int64, broadcast) | fmod (0: floor modulo, 1: C fmod)           | | pow prelu
/// | a, b (float, broadcast)         | -                                            | | equal less
/// greater less_equal greater_equal | a, b (float or int64) -> bool | -                  | |
/// logical_and logical_or logical_xor | a, b (bool) -> bool | - | | where              | cond
/// (bool), x, y (same dtype)  | - (three-way broadcast)                      | | cast | x (float,
/// int64, int32, bool)   | dtype (int: a ScalarType number)             | | layer_norm         | x,
/// scale, bias? (float)         | axis (int), eps (float); scale/bias have x's shape from axis on |
/// | instance_norm      | x[N,C,...], scale[C], bias[C]   | eps (float) | | group_norm         |
/// x[N,C,...], scale, bias ([G] or [C]) | num_groups (int), eps (float)           | | reduce_mean
/// reduce_sum reduce_max reduce_min reduce_prod reduce_l1 reduce_l2 reduce_sum_square
/// reduce_log_sum_exp | x (float) | axes (ints, may be negative; empty = none), keepdims (0/1) | |
/// argmax argmin      | x (float) -> int64              | axis, keepdims, select_last_index (int) |
/// | pad                | x (any)                         | pads (int[2*rank]: begins then ends,
/// may be negative), mode ("constant", "reflect", "edge"), value (float) | | expand             | x
/// (any)                         | shape (ints: the output shape, a broadcast of x's) | | tile | x
/// (any)                         | repeats (ints, >= 0, one per dim)            | | slice | x (any)
/// | starts, steps, shape (ints, one per dim: first index, stride (non-zero, may be negative),
/// output size; every index read lies inside x; ONNX's clamping is the importer's job) | | gather
/// | data (any), indices (int64)     | axis (int)                                   | |
/// gather_elements    | data (any), indices (int64)     | axis (int) | | scatter_nd         | data,
/// indices (int64), updates  | reduction ("none", "add", "mul")             | | resize | x[N,C,H,W]
/// (float)              | sizes (int[4]), mode ("nearest", "linear"),
/// coordinate_transformation_mode, nearest_mode (strings); optional scale_h, scale_w (float: the
/// scales the coordinates use, default output/input) | | depth_to_space     | x[N,C,H,W] (any) |
/// blocksize (int), mode ("DCR" or "CRD")       | | space_to_depth     | x[N,C,H,W] (any) |
/// blocksize (int)                              | | conv_transpose2d   | x[N,C,H,W],
/// w[C,O/g,kH,kW], b[O]? | stride, dilation, output_padding (int[2]), padding (int[4]), groups |
///
/// conv1d conv3d max_pool1d max_pool3d avg_pool1d avg_pool3d conv_transpose3d: the 2-D op's
/// inputs and attributes over one (x[N,C,L]) or three (x[N,C,D,H,W]) spatial dims, each int[2]
/// attribute int[1] or int[3]; padding int[n] (both sides alike) or int[2n] (begins, then ends).
///
/// cumsum: x (float or int64) -> x's shape and dtype; axis (int, may be negative), exclusive and
/// reverse (int 0/1, optional): ONNX CumSum with its axis as an attribute (kernels/cumsum.h).
///
/// roi_align: x[N,C,H,W] (float), rois[R,4] (float: x1, y1, x2, y2), batch_indices[R] (int64) ->
/// [R,C,output_height,output_width] float; output_height, output_width (int >= 1),
/// sampling_ratio (int >= 0, 0 = adaptive), spatial_scale (float), mode ("avg" or "max"),
/// coordinate_transformation_mode ("half_pixel" or "output_half_pixel"): ONNX RoiAlign
/// (kernels/roi_align.h).
///
/// Recurrent layers (ONNX LSTM, GRU, RNN; the only ops with several outputs;
/// kernels/recurrent.h has the equations). D = 2 for bidirectional, else 1;
/// G = 4 (lstm), 3 (gru), 1 (rnn); T, N, I from x:
///
/// - lstm: inputs x, w[D,G*H,I], r[D,G*H,H], b[D,2*G*H], sequence_lens[N],
///   initial_h, initial_c, p[D,3*H]; outputs y, y_h, y_c.
/// - gru, rnn: inputs x, w, r, b, sequence_lens, initial_h (as lstm);
///   outputs y, y_h.
///
/// Every input is present, FLOAT but sequence_lens (LONG).
/// x is [T,N,I] (layout 0) or [N,T,I] (layout 1); y is [T,D,N,H] or
/// [N,T,D,H]; initial_h, initial_c, y_h, y_c are [D,N,H] or [N,D,H] (ONNX's
/// layouts). Attributes: hidden_size (int H), direction ("forward",
/// "reverse", "bidirectional"), layout (int 0/1), activations (string:
/// D times the cell's count of ONNX names, comma-separated, e.g.
/// "Sigmoid,Tanh,Tanh"; the runtime refuses a name kernels/recurrent.h does
/// not list), activation_alpha_<i> / activation_beta_<i> (float, the i-th
/// activation's parameters, optional), clip (float > 0, optional),
/// input_forget (lstm) and linear_before_reset (gru) (int 0/1, optional).
/// An ONNX input the model leaves out is a constant: zeros (b, initial
/// states, p) or T for every batch entry (sequence_lens).
///
/// Quantization (ONNX QuantizeLinear / DequantizeLinear; docs/quantization.md):
///
/// | op                 | inputs (dtypes)                 | attributes |
/// |--------------------|---------------------------------|----------------------------------------------|
/// | quantize_linear    | x (float), scale (float), zero_point (CHAR = int8 or BYTE = uint8; the
/// output's dtype) | axis (int, default 1; used when scale is 1-D of more than one element: one
/// scale per index of that axis) | | dequantize_linear  | x (CHAR, BYTE or INT), scale (float),
/// zero_point? (x's dtype; absent = 0) -> float | axis (as quantize_linear) |
///
/// quantize_linear: y = saturate(round_half_to_even(x / scale) + zero_point);
/// dequantize_linear: y = (x - zero_point) * scale. The scale is a scalar or
/// [1] (per tensor) or [C] with C = x.shape[axis] (per axis); the zero point
/// has the scale's shape. Scales must be positive and finite: the importer
/// checks constant ones, the kernels every one at run time.
///
/// Dynamic outputs (sized by data at each execution; the shape given is the
/// upper bound the memory plan reserves, TensorType::dynamic):
///
/// - non_zero: x (any dtype, rank >= 1) -> int64 [rank, at most numel(x)]:
///   the coordinates of x's non-zero elements, row-major order (ONNX NonZero).
/// - top_k: x (float or int64), k? (int64 [1]) -> values (x's dtype),
///   indices (int64), x's shape with the axis dim k; axis (int), largest,
///   sorted (0/1); attribute k (int >= 0) when there is no k input. A k
///   input (computed at run time) makes both outputs dynamic, bounded by the
///   axis length; a dynamic x makes them dynamic too. Ties go to the lower
///   index (ONNX TopK); the output is always sorted.
/// - non_max_suppression: boxes[B,N,4], scores[B,C,N] (float) -> int64
///   [at most B*C*min(N, max_output_boxes_per_class), 3] of (batch, class,
///   box); center_point_box (0: corners y1,x1,y2,x2 in any order; 1: centre
///   x,y, width, height), max_output_boxes_per_class (int >= 0),
///   iou_threshold (float), score_threshold (float, optional: none when
///   absent). ONNX NonMaxSuppression, each class's boxes by score, ties to
///   the lower index.
///
/// - unique: x (float or int64) -> y (x's dtype), indices, inverse_indices,
///   counts (int64); sorted (int 0/1), axis (int, optional: absent = x
///   flattened). y is [numel] or x's shape with the axis dim at most its
///   length; indices and counts [numel or that length]: these three are
///   dynamic (the number of distinct elements or slices); inverse_indices
///   has one entry per element or slice, static (ONNX Unique;
///   kernels/unique.h).
///
/// - shape: x (any dtype) -> int64 [end - start], static: x's actual sizes
///   start..end (0 <= start <= end <= rank; ONNX Shape at run time, for an x
///   sized by data).
/// - full_like: x (any dtype) -> x's shape (dynamic when x is), every
///   element `value` (float) in dtype `dtype` (int, as cast's: FLOAT, LONG
///   or BOOL); ONNX ConstantOfShape(Shape(x)).
///
/// Only the ops above and the ones ops_dynamic.cc lists as taking them
/// accept a dynamic input; any other op refuses one (its kernel would read
/// the bound).
///
/// Of the first table, flatten and reshape take any dtype (and keep it) and
/// add, sub, mul, div take float or int64; every other op there is float
/// only.
///
/// `delegate_call` is not in this table: its output types are whatever the
/// lowered subgraph produced, so they are declared, not inferred.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::aot {

/// Op names, so that code never spells them twice.
namespace op {
inline constexpr std::string_view kConv2d = "conv2d";
inline constexpr std::string_view kRelu = "relu";
inline constexpr std::string_view kClamp = "clamp";
inline constexpr std::string_view kSigmoid = "sigmoid";
inline constexpr std::string_view kHardswish = "hardswish";
inline constexpr std::string_view kTan = "tan";
inline constexpr std::string_view kSin = "sin";
inline constexpr std::string_view kCos = "cos";
inline constexpr std::string_view kAdd = "add";
inline constexpr std::string_view kSub = "sub";
inline constexpr std::string_view kMul = "mul";
inline constexpr std::string_view kDiv = "div";
inline constexpr std::string_view kLinear = "linear";
inline constexpr std::string_view kMatmul = "matmul";
inline constexpr std::string_view kMaxPool2d = "max_pool2d";
inline constexpr std::string_view kAvgPool2d = "avg_pool2d";
inline constexpr std::string_view kGlobalAvgPool2d = "global_avg_pool2d";
inline constexpr std::string_view kBatchNorm = "batch_norm";
inline constexpr std::string_view kFlatten = "flatten";
inline constexpr std::string_view kReshape = "reshape";
inline constexpr std::string_view kConcat = "concat";
inline constexpr std::string_view kSoftmax = "softmax";
inline constexpr std::string_view kHardsigmoid = "hardsigmoid";
inline constexpr std::string_view kTranspose = "transpose";
inline constexpr std::string_view kErf = "erf";
inline constexpr std::string_view kTanh = "tanh";
inline constexpr std::string_view kExp = "exp";
inline constexpr std::string_view kLog = "log";
inline constexpr std::string_view kNeg = "neg";
inline constexpr std::string_view kAbs = "abs";
inline constexpr std::string_view kSqrt = "sqrt";
inline constexpr std::string_view kReciprocal = "reciprocal";
inline constexpr std::string_view kSign = "sign";
inline constexpr std::string_view kFloor = "floor";
inline constexpr std::string_view kCeil = "ceil";
inline constexpr std::string_view kRound = "round";
inline constexpr std::string_view kSoftplus = "softplus";
inline constexpr std::string_view kSoftsign = "softsign";
inline constexpr std::string_view kGelu = "gelu";
inline constexpr std::string_view kLeakyRelu = "leaky_relu";
inline constexpr std::string_view kElu = "elu";
inline constexpr std::string_view kSelu = "selu";
inline constexpr std::string_view kLogicalNot = "logical_not";
inline constexpr std::string_view kMin = "min";
inline constexpr std::string_view kMax = "max";
inline constexpr std::string_view kMod = "mod";
inline constexpr std::string_view kPow = "pow";
inline constexpr std::string_view kPrelu = "prelu";
inline constexpr std::string_view kEqual = "equal";
inline constexpr std::string_view kLess = "less";
inline constexpr std::string_view kGreater = "greater";
inline constexpr std::string_view kLessEqual = "less_equal";
inline constexpr std::string_view kGreaterEqual = "greater_equal";
inline constexpr std::string_view kLogicalAnd = "logical_and";
inline constexpr std::string_view kLogicalOr = "logical_or";
inline constexpr std::string_view kLogicalXor = "logical_xor";
inline constexpr std::string_view kWhere = "where";
inline constexpr std::string_view kCast = "cast";
inline constexpr std::string_view kLayerNorm = "layer_norm";
inline constexpr std::string_view kInstanceNorm = "instance_norm";
inline constexpr std::string_view kGroupNorm = "group_norm";
inline constexpr std::string_view kReduceMean = "reduce_mean";
inline constexpr std::string_view kReduceSum = "reduce_sum";
inline constexpr std::string_view kReduceMax = "reduce_max";
inline constexpr std::string_view kReduceMin = "reduce_min";
inline constexpr std::string_view kReduceProd = "reduce_prod";
inline constexpr std::string_view kReduceL1 = "reduce_l1";
inline constexpr std::string_view kReduceL2 = "reduce_l2";
inline constexpr std::string_view kReduceSumSquare = "reduce_sum_square";
inline constexpr std::string_view kReduceLogSumExp = "reduce_log_sum_exp";
inline constexpr std::string_view kArgmax = "argmax";
inline constexpr std::string_view kArgmin = "argmin";
inline constexpr std::string_view kPad = "pad";
inline constexpr std::string_view kExpand = "expand";
inline constexpr std::string_view kTile = "tile";
inline constexpr std::string_view kSlice = "slice";
inline constexpr std::string_view kGather = "gather";
inline constexpr std::string_view kGatherElements = "gather_elements";
inline constexpr std::string_view kScatterNd = "scatter_nd";
inline constexpr std::string_view kResize = "resize";
inline constexpr std::string_view kDepthToSpace = "depth_to_space";
inline constexpr std::string_view kSpaceToDepth = "space_to_depth";
inline constexpr std::string_view kConvTranspose2d = "conv_transpose2d";
// Volumetric (NCDHW) and 1-D (NCL) forms of conv2d, conv_transpose2d and
// the pools, whose int[2] attributes become int[3] / int[1] (padding int[n]
// both sides alike or int[2n], the begins then the ends).
inline constexpr std::string_view kConv1d = "conv1d";
inline constexpr std::string_view kConv3d = "conv3d";
inline constexpr std::string_view kConvTranspose3d = "conv_transpose3d";
inline constexpr std::string_view kMaxPool1d = "max_pool1d";
inline constexpr std::string_view kMaxPool3d = "max_pool3d";
inline constexpr std::string_view kAvgPool1d = "avg_pool1d";
inline constexpr std::string_view kAvgPool3d = "avg_pool3d";
// Sequence models' scan (ONNX CumSum).
inline constexpr std::string_view kCumsum = "cumsum";
// Detection: pooling regions of interest (ONNX RoiAlign).
inline constexpr std::string_view kRoiAlign = "roi_align";
inline constexpr std::string_view kLstm = "lstm";
inline constexpr std::string_view kGru = "gru";
inline constexpr std::string_view kRnn = "rnn";
inline constexpr std::string_view kQuantizeLinear = "quantize_linear";
inline constexpr std::string_view kDequantizeLinear = "dequantize_linear";
// Outputs sized by data (dynamic; TensorType::dynamic).
inline constexpr std::string_view kNonZero = "non_zero";
inline constexpr std::string_view kTopK = "top_k";
inline constexpr std::string_view kNonMaxSuppression = "non_max_suppression";
inline constexpr std::string_view kUnique = "unique";
// Shape arithmetic on values sized by data: a value's actual sizes, and a
// value of another's actual shape filled with one number.
inline constexpr std::string_view kShape = "shape";
inline constexpr std::string_view kFullLike = "full_like";
inline constexpr std::string_view kDelegateCall = "delegate_call";
}  // namespace op

/// A value's type: element type and static shape.
struct TensorType {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<std::int64_t> shape;
  /// The size depends on data (non_zero, top_k with a computed k,
  /// non_max_suppression): `shape` is then an upper bound, planned as the
  /// value's buffer, and the runtime sizes the value at each execution
  /// (docs/architecture.md "Dynamic shapes").
  bool dynamic = false;
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

/// "[2, 3, 4]": a shape as errors and reports print it.
std::string shape_string(const std::vector<std::int64_t>& shape);

/// Whether `name` is an op of the table above (delegate_call is not).
bool is_known_op(std::string_view name);

/// Whether `name` is lstm, gru or rnn (the ops of several outputs).
bool is_recurrent_op(std::string_view name);

/// The number of spatial dims of a convolution or windowed pool (conv1d:
/// 1, max_pool2d: 2, conv_transpose3d: 3, ...); 0 for any other op.
std::size_t spatial_rank(std::string_view op_name);

/// The largest rank and the largest dimension, integer attribute (in
/// magnitude) and element count infer_output_type accepts: the runtime's
/// limits, and small enough that no shape rule's arithmetic can overflow.
inline constexpr std::size_t kMaxRank = 6;
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;

/// The output type of `op_name` applied to inputs of `input_types` with
/// `attributes`. Errors (kInvalidArgument) say what is wrong without naming
/// the node; callers add that context. Inputs of rank above kMaxRank or a
/// dimension above kMaxDimension, and integer attributes beyond
/// +-kMaxDimension, are errors before any shape rule runs.
StatusOr<TensorType> infer_output_type(std::string_view op_name,
                                       std::span<const TensorType> input_types,
                                       const AttributeMap& attributes);

/// Every output's type, in order: one for most ops, y, y_h (and y_c) for
/// the recurrent ones (of which infer_output_type gives y's). Errors as
/// infer_output_type.
StatusOr<std::vector<TensorType>> infer_output_types(std::string_view op_name,
                                                     std::span<const TensorType> input_types,
                                                     const AttributeMap& attributes);

}  // namespace glassbox::aot

#pragma once
/// @file
/// The XNNPACK backend's processed-bytes format, version 1.8. The AOT half
/// writes it (xnnpack_program.h), the runtime half parses and validates it
/// (runtime/program_parser.h). Constants only, so device code may include it.
///
/// All integers and floats are little-endian. A "slot" is one tensor the
/// delegate reads or writes: slots [0, num_inputs) are the delegate call's
/// inputs in order, slots [num_inputs, num_inputs + num_constants) the
/// constants (1.2; none before), and operator i writes slot num_inputs +
/// num_constants + i (SSA, so an operator may only read slots defined
/// before it; every operator may read a constant slot like an input).
///
///   offset  size  field
///   0       4     magic "GBXN"
///   4       2     u16 major version (kXnnFormatMajor; readers refuse others)
///   6       2     u16 minor version (kXnnFormatMinor; readers accept <= theirs)
///   8       4     u32 num_inputs
///   12      4     u32 num_outputs
///   16      4     u32 num_ops
///   20      4     u32 flags (0; reserved)
///   24      ...   num_inputs tensor descriptors (the input slots)
///   ...     4     u32 num_constants (1.2 only; absent in 1.0 and 1.1)
///   ...           num_constants constants (1.2 only), each:
///                   tensor descriptor (its dims and byte order; a kNhwc
///                   constant's data is already permuted)
///                   0..3 zero bytes, so that the data starts at a
///                   multiple of 4 from the blob's first byte
///                   f32 data[numel], in the descriptor's byte order
///   ...           num_ops operators, each:
///                   u8  kind (XnnOpKind)
///                   u8  identifier tag (XnnIdentifierTag), then
///                       int:    i64 identifier in [0, INT32_MAX]
///                       string: u32 byte length (1..kXnnMaxIdentifierBytes),
///                               bytes (UTF-8, no NUL)
///                   u8  operand count, then u32 slot per operand
///                   tensor descriptor of the output slot
///                   u32 params byte count, then the params (below)
///   ...     4*n   u32 output slot per delegate output (num_outputs)
///
/// Tensor descriptor: u8 rank (1..kXnnMaxRank), u8 layout (XnnLayout),
/// i64 dims[rank]; from 1.6 then u8 dtype (XnnDType) and, for kQs8 and
/// kQu8, f32 scale (finite, > 0) and i32 zero point (in [-128, 127]). Dims are always the LOGICAL
/// shape (the graph's, NCHW for 4-D tensors); the layout says how the bytes are ordered.
///
/// Layout choice: XNNPACK's spatial operators are NHWC while the graph is
/// NCHW. Inside the delegate, 4-D tensors stay NHWC from the first spatial
/// operator on; explicit kNchwToNhwc / kNhwcToNchw operators convert at the
/// delegate's inputs and outputs and wherever a layout-sensitive operator
/// (flatten, reshape, linear, softmax, a mean over the last axis, a prelu
/// whose slope runs along the last axis) needs logical order. Each conversion
/// is an operator of its own, timed and logged under its own identifier,
/// which the debug handle map ties to the source operator that needed it,
/// so its cost is visible and attributed. A 4-D tensor with C == 1 or
/// H * W == 1 has the same bytes in both layouts and needs no conversion.
///
/// Params per kind (u32 unless noted; f32 min/max is the fused activation,
/// -inf/+inf when none):
///   kConvolution     pad_top, pad_right, pad_bottom, pad_left, kernel_h,
///                    kernel_w, stride_h, stride_w, dilation_h, dilation_w,
///                    groups, group_input_channels, group_output_channels;
///                    f32 min, max; f32 kernel[G*GOC*KH*KW*GIC] in XNNPACK's
///                    [G][GOC][KH][KW][GIC] order (OHWI; batch norm already
///                    folded in); f32 bias[G*GOC]. Input and output NHWC.
///   kFullyConnected  input_channels, output_channels; f32 min, max;
///                    f32 kernel[OC*IC] ([OC][IC]); f32 bias[OC]. Logical
///                    layout; batch = numel / IC.
///   kMaxPooling      pad_top, pad_right, pad_bottom, pad_left, pool_h,
///                    pool_w, stride_h, stride_w, dilation_h, dilation_w;
///                    f32 min, max. NHWC.
///   kAveragePooling  pad_top, pad_right, pad_bottom, pad_left, pool_h,
///                    pool_w, stride_h, stride_w; f32 min, max. NHWC;
///                    padding is excluded from the divisor (XNNPACK's rule).
///   kGlobalAveragePooling  f32 min, max. NHWC input, [N, C, 1, 1] output
///                    (1.1: or [N, C], a mean over H, W without keepdims).
///   kAdd kSubtract kMultiply kDivide  f32 min, max. Operands and output in
///                    the output's layout; numpy broadcasting. (1.2: either
///                    operand may be a constant slot.)
///   kClamp           f32 min, max.
///   kHardswish kSigmoid kSoftmax kCopy kNchwToNhwc kNhwcToNchw  no params.
///                    Softmax is over the last axis of the bytes; kCopy is
///                    a reshape or flatten (logical layout).
///   kConcatenate     axis (over the bytes' order, i.e. already permuted
///                    for NHWC).
///
/// Added in 1.1 (a 1.0 reader refuses these blobs by their minor version):
///   kAbs kBankersRounding kCeiling kFloor kNegate kSquare kSquareRoot
///                    no params; elementwise like kClamp (any layout, the
///                    output's). kBankersRounding rounds halves to even.
///   kElu             f32 alpha (finite, > 0): x > 0 ? x : alpha*(e^x - 1).
///   kLeakyRelu       f32 negative_slope (finite).
///   kMaximum kMinimum  no params; two operands, like kAdd (no fused range:
///                    XNNPACK 2022 has none for these).
///   kPrelu           channels; f32 slope[channels]. channels is the last
///                    dim in the output's byte order (C for NHWC).
///   kConstantPad     pre[6], post[6] (byte order; entries past the rank
///                    0); f32 value. Output in the input's layout.
///   kDepthToSpace    block_size (>= 2). NHWC in and out; DCR order (ONNX
///                    mode "DCR", TensorFlow's DepthToSpace).
///   kResizeBilinear  align_corners (0: half-pixel centres, ONNX
///                    "half_pixel"; 1: XNN_FLAG_ALIGN_CORNERS). NHWC in and
///                    out; N and C kept, the output dims give H and W.
///   kDeconvolution   pad_top, pad_right, pad_bottom, pad_left, kernel_h,
///                    kernel_w, stride_h, stride_w, dilation_h, dilation_w,
///                    groups, group_input_channels, group_output_channels,
///                    adjustment_h, adjustment_w (each < its stride); f32
///                    min, max; f32 kernel[G*GOC*KH*KW*GIC] in XNNPACK's
///                    [G][GOC][KH][KW][GIC] order; f32 bias[G*GOC]. Output
///                    dim = stride*(in-1) + adjustment + dilation*(k-1) + 1
///                    - pads. NHWC in and out.
///   kMeanLastAxis    f32 min, max. The mean over the last logical axis
///                    (global_average_pooling_nwc with one channel);
///                    logical layout; the output keeps that axis as 1 or
///                    drops it.
///
/// Added in 1.2 (a 1.1 reader refuses these blobs by their minor version):
/// the constants section. The runtime copies each constant into a buffer
/// of its own at init (aligned, with XNNPACK's read-past slack), so the
/// blob need not outlive init for them. The AOT half stores constant
/// operands of add, subtract, multiply, divide, minimum, maximum and
/// concatenate there: a 0-d constant as [1]; one read by an NHWC operator
/// as 4-D (leading 1s added) kNhwc, e.g. a per-channel [C, 1, 1] becomes
/// logical [1, C, 1, 1] whose bytes are [1, 1, 1, C]. The same constant
/// read twice in the same layout is stored once.
///
/// Added in 1.3 (a 1.2 reader refuses these blobs by their minor version):
///   kCopy            may also be an identity in any layout (input and
///                    output with the same dims and layout): a 1x1 pooling
///                    window with stride 1 and no padding.
///   kMaxPooling kAveragePooling  ceil mode arrives as extra bottom / right
///                    padding (the format is unchanged; XNNPACK leaves padded
///                    cells out of the max and of the average's divisor).
///   kSlice           axis (byte order), start. One operand; the output has
///                    the input's layout and dims but along axis, where it
///                    holds [start, start + output dim). XNNPACK 2022 has no
///                    slice: a strided copy_nc_x32.
///   kChannelShuffle  groups (>= 1, divides C). NHWC in and out, same dims:
///                    output channel j * groups + g is input channel
///                    g * (C / groups) + j (PyTorch's channel_shuffle).
///                    XNNPACK 2022 has no transpose: Glassbox's own kernel.
///
/// Added in 1.4 (a 1.3 reader refuses these blobs by their minor version),
/// for transformers; XNNPACK 2022 has none of them, so each runs a
/// Glassbox portable kernel inside the delegate (erf, layer norm and batch
/// matmul split over the delegate's threads, own_kernels.h), which
/// keeps an encoder in one delegate instead of 28 separated by 44 portable
/// kernel calls:
///   kTranspose       perm[6] (entries past the rank 0). Logical layout in
///                    and out; output dim i is input dim perm[i].
///   kBatchMatMul     no params; two operands, logical, of equal rank >= 2:
///                    [B..., M, K] x [B..., K, N] -> [B..., M, N] with the
///                    same batch dims (no broadcasting).
///   kLayerNorm       channels; f32 epsilon (finite, >= 0); f32
///                    scale[channels]; f32 bias[channels]. Logical layout;
///                    each run of the last dim (== channels) is normalised,
///                    then scaled and shifted (ONNX LayerNormalization over
///                    the last axis).
///   kErf             no params; elementwise like kClamp.
///
/// Added in 1.5 (a 1.4 reader refuses these blobs by their minor version):
///   kStridedSlice    start[6], step[6] (entries past the rank 0; each step
///                    >= 1). Logical layout in and out, same rank; output
///                    element [i_0..i_r] is input element [start_0 + i_0 *
///                    step_0, ..]: a slice with steps or along several axes
///                    (swin_t's patch merging, x[:, 0::2, 1::2, :]), which
///                    kSlice's one run per row cannot copy. Glassbox's own
///                    kernel.
///
/// Added in 1.6 (a 1.5 reader refuses these blobs by their minor version):
/// int8 tensors and operators, for QDQ models (docs/quantization.md).
/// A quantized slot holds one byte per element: real = (q - zero_point) *
/// scale. kQu8 marks a slot the graph holds as uint8; its bytes are the
/// uint8 values minus 128 (xor 0x80) and its zero point the uint8 one
/// minus 128, so every operator computes on int8 and the runtime flips the
/// top bit only where a uint8 tensor enters or leaves the delegate (or is
/// logged). Float kinds read and write float slots only; the q kinds read
/// and write quantized ones; kNchwToNhwc and kNhwcToNchw move either,
/// output dtype and quantization equal to the input's. i32 min, max is a
/// fused activation in the output's int8 domain (-128 <= min <= max <=
/// 127). Weights are symmetric (zero point 0) int8, per output channel.
///   kQuantize        no params. f32 -> quantized (ONNX QuantizeLinear:
///                    x / scale, rounded half to even, saturated); any
///                    layout, the output's.
///   kDequantize      f32 scale (finite, > 0), i32 zero point (in [-128,
///                    127], stored like a slot's): quantized -> f32 with
///                    these (a dequantize_linear's own, which may differ
///                    from the quantize's that made its input, as
///                    ConvInteger's import writes them); any layout.
///   kQConvolution    kConvolution's 13 u32; i32 min, max; f32
///                    kernel_scale[G*GOC]; i32 bias[G*GOC] (scale input
///                    scale * kernel_scale); i8 kernel[G*GOC*KH*KW*GIC] in
///                    [G][GOC][KH][KW][GIC] order. NHWC.
///   kQFullyConnected input_channels, output_channels; i32 min, max; f32
///                    kernel_scale[OC]; i32 bias[OC]; i8 kernel[OC*IC].
///                    Logical layout; batch = numel / IC.
///   kQAdd kQMultiply i32 min, max; like kAdd (numpy broadcasting).
///   kQMaxPooling     kMaxPooling's 10 u32; i32 min, max. Output
///                    quantized like the input.
///   kQAveragePooling kAveragePooling's 8 u32, count_include_pad (0 or 1);
///                    i32 min, max. NHWC.
///   kQGlobalAveragePooling  i32 min, max; like kGlobalAveragePooling.
///   kQLookupTable    u8 table[256]: out byte = table[in byte] (sigmoid,
///                    hardswish, hardsigmoid, relu, clamp, ... computed
///                    at AOT time on the float kernel); any layout.
///   kQConcatenate    axis (byte order); inputs requantized to the
///                    output's scale and zero point.
///   kQCopy           no params; a reshape or flatten (logical layout),
///                    output quantized like the input.
///
/// Added in 1.7 (a 1.6 reader refuses these blobs by their minor version):
///   kRecurrent       cell (0 RNN, 1 GRU, 2 LSTM: kernels::RnnCell),
///                    direction (0 forward, 1 reverse, 2 bidirectional),
///                    layout (0 time-major, 1 batch-major), hidden_size H,
///                    input_size I, linear_before_reset (GRU; else 0),
///                    activations[6] (kernels::RnnActivationKind, D times
///                    the cell's count, forward first; the rest 0; only
///                    Sigmoid, Tanh, Relu); f32 clip (>= 0, 0: none);
///                    f32 w[D*G*H*I] then r[D*G*H*H] (ONNX's gate order);
///                    f32 b[D*2*G*H] (W's biases then R's). Operands: x
///                    [T,N,I] (layout 1: [N,T,I]), initial_h [D,N,H]
///                    (layout 1: [N,D,H]) and, for LSTM, initial_c (as
///                    initial_h); all logical. Output Y [T,D,N,H] (layout
///                    1: [N,T,D,H]), logical. ONNX's LSTM / GRU / RNN with
///                    every sequence length T and no peepholes: one operator
///                    for the whole layer, so it is timed and logged once
///                    under the layer's identifier. The runtime unrolls the
///                    cell (runtime/recurrent_layer.h): XNNPACK fully
///                    connected operators for x W^T (every step at once) and
///                    h R^T (each step), the gates in Glassbox's own code.
///   kRecurrentState  which (0: Y_h, 1: Y_c, LSTM only). One operand: the
///                    slot of the kRecurrent operator just before it (or
///                    before the other state). Output [D,N,H] (layout 1:
///                    [N,D,H]), logical. Not an operator that runs: the
///                    layer writes its last states there when it ends (after
///                    its last read of its operands), and the runtime
///                    neither times nor logs it, so the layer stays one event
///                    whose logged output is Y. Under the layer's
///                    identifier.
///
/// Identifiers: consecutive operators may share one (1.2; the AOT half
/// does so for hardsigmoid, a multiply by alpha then an add of beta with
/// the output range [0, 1]); each is timed and logged under it, and only
/// the last one's output is logged as the identifier's (1.7's
/// kRecurrentState, which shares its layer's, is neither timed nor logged:
/// the layer's Y is).
///
/// Added in 1.8 (a 1.7 reader refuses these blobs by their minor version),
/// for video models (r3d_18): kNhwc also orders 5-D slots, as N, D, H, W, C
/// (NDHWC: each frame an [H, W, C] image, the frames of one batch element
/// contiguous); kNchwToNhwc and kNhwcToNchw convert them, the binary and
/// elementwise kinds take them like 4-D ones, and kGlobalAveragePooling
/// may read a 5-D NDHWC input (the mean over D, H, W: output [N, C, 1, 1,
/// 1] or [N, C]).
///   kConvolution3d   pad_front, pad_back, pad_top, pad_right, pad_bottom,
///                    pad_left, kernel_d, kernel_h, kernel_w, stride_d,
///                    stride_h, stride_w, dilation_d, dilation_h,
///                    dilation_w, groups, group_input_channels,
///                    group_output_channels; f32 min, max; f32
///                    kernel[KD*G*GOC*KH*KW*GIC] in [KD][G][GOC][KH][KW][GIC]
///                    order (one kConvolution kernel per temporal tap; batch
///                    norm already folded in); f32 bias[G*GOC]. Input and
///                    output 5-D NDHWC. XNNPACK 2022 has no 3-D convolution:
///                    the runtime sums one XNNPACK 2-D convolution per tap
///                    over the frames that tap reads (runtime/conv3d_layer.h).

#include <cstdint>

namespace glassbox::backends::xnnpack {

/// The name both halves register under.
inline constexpr char kXnnpackBackendName[] = "XnnpackBackend";

inline constexpr char kXnnMagic[4] = {'G', 'B', 'X', 'N'};
inline constexpr std::uint16_t kXnnFormatMajor = 1;
inline constexpr std::uint16_t kXnnFormatMinor = 8;
/// The first minor version with the constants section.
inline constexpr std::uint16_t kXnnConstantsMinor = 2;
/// The first minor version whose tensor descriptors carry a dtype.
inline constexpr std::uint16_t kXnnQuantMinor = 6;
/// The first minor version with 5-D NDHWC slots and kConvolution3d.
inline constexpr std::uint16_t kXnnVideoMinor = 8;
/// Bytes before the first input descriptor.
inline constexpr std::uint32_t kXnnHeaderSize = 24;
inline constexpr std::uint32_t kXnnMaxRank = 6;  // XNN_MAX_TENSOR_DIMS
inline constexpr std::uint32_t kXnnMaxIdentifierBytes = 4096;

/// Operator kinds. Values are part of the format: never renumber.
enum class XnnOpKind : std::uint8_t {
  kConvolution = 1,
  kFullyConnected = 2,
  kMaxPooling = 3,
  kAveragePooling = 4,
  kGlobalAveragePooling = 5,
  kAdd = 6,
  kSubtract = 7,
  kMultiply = 8,
  kDivide = 9,
  kClamp = 10,
  kHardswish = 11,
  kSigmoid = 12,
  kSoftmax = 13,
  kCopy = 14,
  kConcatenate = 15,
  kNchwToNhwc = 16,
  kNhwcToNchw = 17,
  // 1.1
  kAbs = 18,
  kBankersRounding = 19,
  kCeiling = 20,
  kFloor = 21,
  kNegate = 22,
  kSquare = 23,
  kSquareRoot = 24,
  kElu = 25,
  kLeakyRelu = 26,
  kMaximum = 27,
  kMinimum = 28,
  kPrelu = 29,
  kConstantPad = 30,
  kDepthToSpace = 31,
  kResizeBilinear = 32,
  kDeconvolution = 33,
  kMeanLastAxis = 34,
  // 1.3
  kSlice = 35,
  kChannelShuffle = 36,
  // 1.4
  kTranspose = 37,
  kBatchMatMul = 38,
  kLayerNorm = 39,
  kErf = 40,
  // 1.5
  kStridedSlice = 41,
  // 1.6
  kQuantize = 42,
  kDequantize = 43,
  kQConvolution = 44,
  kQFullyConnected = 45,
  kQAdd = 46,
  kQMultiply = 47,
  kQMaxPooling = 48,
  kQAveragePooling = 49,
  kQGlobalAveragePooling = 50,
  kQLookupTable = 51,
  kQConcatenate = 52,
  kQCopy = 53,
  // 1.7
  kRecurrent = 54,
  kRecurrentState = 55,
  // 1.8
  kConvolution3d = 56,
};
inline constexpr std::uint8_t kXnnMaxOpKind = 56;
/// kConvolution3d's u32 params (pads, kernel, stride, dilation, groups,
/// channels per group in and out).
inline constexpr std::uint32_t kXnnConv3dInts = 18;
/// kRecurrent's u32 params: cell, direction, layout, hidden_size,
/// input_size, linear_before_reset, then the activations.
inline constexpr std::uint32_t kXnnRecurrentInts = 12;
/// Rank slots of kConstantPad's pre/post lists.
inline constexpr std::uint32_t kXnnPadRank = kXnnMaxRank;

enum class XnnLayout : std::uint8_t {
  kLogical = 0,  ///< The graph's order (NCHW for 4-D).
  kNhwc = 1,     ///< 4-D: bytes in N, H, W, C order; 5-D (1.8): N, D, H, W, C.
};

/// A slot's element type (1.6; before, every slot is kF32). Values are part
/// of the format: never renumber.
enum class XnnDType : std::uint8_t {
  kF32 = 0,
  kQs8 = 1,  ///< int8
  kQu8 = 2,  ///< uint8 in the graph, stored as int8 (value - 128)
};

enum class XnnIdentifierTag : std::uint8_t { kInt = 0, kString = 1 };

/// The metadata logged with each operator's event: XNNPACK's operator type
/// name, or ours for what XNNPACK 2022 lacks; the layout conversions'
/// "layout: ..." makes the Inspector's ops view give each a row of its own.
/// Null for an unknown kind.
constexpr const char* xnn_op_type_name(XnnOpKind kind) {
  switch (kind) {
    case XnnOpKind::kConvolution: return "convolution_nhwc_f32";
    case XnnOpKind::kFullyConnected: return "fully_connected_nc_f32";
    case XnnOpKind::kMaxPooling: return "max_pooling_nhwc_f32";
    case XnnOpKind::kAveragePooling: return "average_pooling_nhwc_f32";
    case XnnOpKind::kGlobalAveragePooling: return "global_average_pooling_nwc_f32";
    case XnnOpKind::kAdd: return "add_nd_f32";
    case XnnOpKind::kSubtract: return "subtract_nd_f32";
    case XnnOpKind::kMultiply: return "multiply_nd_f32";
    case XnnOpKind::kDivide: return "divide_nd_f32";
    case XnnOpKind::kClamp: return "clamp_nc_f32";
    case XnnOpKind::kHardswish: return "hardswish_nc_f32";
    case XnnOpKind::kSigmoid: return "sigmoid_nc_f32";
    case XnnOpKind::kSoftmax: return "softmax_nc_f32";
    case XnnOpKind::kCopy: return "copy_nc_x32";
    case XnnOpKind::kConcatenate: return "concatenate_x32";
    case XnnOpKind::kNchwToNhwc: return "layout: NCHW->NHWC";
    case XnnOpKind::kNhwcToNchw: return "layout: NHWC->NCHW";
    case XnnOpKind::kAbs: return "abs_nc_f32";
    case XnnOpKind::kBankersRounding: return "bankers_rounding_nc_f32";
    case XnnOpKind::kCeiling: return "ceiling_nc_f32";
    case XnnOpKind::kFloor: return "floor_nc_f32";
    case XnnOpKind::kNegate: return "negate_nc_f32";
    case XnnOpKind::kSquare: return "square_nc_f32";
    case XnnOpKind::kSquareRoot: return "square_root_nc_f32";
    case XnnOpKind::kElu: return "elu_nc_f32";
    case XnnOpKind::kLeakyRelu: return "leaky_relu_nc_f32";
    case XnnOpKind::kMaximum: return "maximum_nd_f32";
    case XnnOpKind::kMinimum: return "minimum_nd_f32";
    case XnnOpKind::kPrelu: return "prelu_nc_f32";
    case XnnOpKind::kConstantPad: return "constant_pad_nd_x32";
    case XnnOpKind::kDepthToSpace: return "depth_to_space_nhwc_x32";
    case XnnOpKind::kResizeBilinear: return "resize_bilinear2d_nhwc_f32";
    case XnnOpKind::kDeconvolution: return "deconvolution2d_nhwc_f32";
    case XnnOpKind::kMeanLastAxis: return "global_average_pooling_nwc_f32";
    case XnnOpKind::kSlice: return "copy_nc_x32";
    case XnnOpKind::kChannelShuffle: return "glassbox_channel_shuffle_nhwc";
    case XnnOpKind::kTranspose: return "glassbox_transpose";
    case XnnOpKind::kBatchMatMul: return "glassbox_batch_matmul";
    case XnnOpKind::kLayerNorm: return "glassbox_layer_norm";
    case XnnOpKind::kErf: return "glassbox_erf";
    case XnnOpKind::kStridedSlice: return "glassbox_strided_slice";
    case XnnOpKind::kQuantize: return "glassbox_quantize_f32_qs8";
    case XnnOpKind::kDequantize: return "convert_nc_qs8_f32";
    case XnnOpKind::kQConvolution: return "convolution_nhwc_qc8";
    case XnnOpKind::kQFullyConnected: return "convolution_nhwc_qc8 (fully connected)";
    case XnnOpKind::kQAdd: return "add_nd_qs8";
    case XnnOpKind::kQMultiply: return "multiply_nd_qs8";
    case XnnOpKind::kQMaxPooling: return "max_pooling_nhwc_s8";
    case XnnOpKind::kQAveragePooling: return "glassbox_average_pooling_nhwc_qs8";
    case XnnOpKind::kQGlobalAveragePooling: return "global_average_pooling_nwc_qs8";
    case XnnOpKind::kQLookupTable: return "glassbox_lookup_table_x8";
    case XnnOpKind::kQConcatenate: return "glassbox_concatenate_qs8";
    case XnnOpKind::kQCopy: return "copy_nc_x8";
    case XnnOpKind::kRecurrent: return "glassbox_recurrent (fully_connected_nc_f32 + gates)";
    case XnnOpKind::kRecurrentState: return "glassbox_recurrent_state";
    case XnnOpKind::kConvolution3d: return "glassbox_convolution3d (convolution_nhwc_f32 per tap)";
  }
  return nullptr;
}

}  // namespace glassbox::backends::xnnpack

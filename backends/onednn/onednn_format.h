#pragma once
/// @file
/// The oneDNN backend's processed-bytes format, version 1.6. The AOT half
/// writes it (aot/onednn_program.h), the runtime half parses and validates
/// it (runtime/program_parser.h). Constants only, so device code may
/// include it.
///
/// All integers and floats are little-endian. A "slot" is one tensor the
/// delegate reads or writes: slots [0, num_inputs) are the delegate call's
/// inputs, the next num_constants slots the constants (weights, biases,
/// constant operands), and operator i writes slot num_inputs +
/// num_constants + i (SSA: an operator reads only slots defined before it).
///
///   offset  size  field
///   0       4     magic "GBDN"
///   4       2     u16 major version (kDnnFormatMajor; readers refuse others)
///   6       2     u16 minor version (kDnnFormatMinor; readers accept <= theirs)
///   8       4     u32 num_inputs
///   12      4     u32 num_outputs
///   16      4     u32 num_constants
///   20      4     u32 num_ops
///   24      ...   num_inputs tensor descriptors
///   ...           num_constants constants, each: tensor descriptor, 0..3
///                 zero bytes (the data starts at a multiple of 4 from the
///                 blob's first byte), data[numel] in row-major order (f32;
///                 since 1.3 of the descriptor's data type: s8, u8 or s32)
///   ...           num_ops operators, each:
///                   u8  kind (DnnOpKind)
///                   u8  identifier tag (DnnIdentifierTag), then
///                       int:    i64 identifier in [0, INT32_MAX]
///                       string: u32 byte length (1..kDnnMaxIdentifierBytes),
///                               bytes (UTF-8, no NUL)
///                   u8  operand count, then u32 slot per operand
///                   tensor descriptor of the output slot
///                   u8  int count, then i64 ints
///                   u8  float count, then f32 floats
///   ...     4*n   u32 output slot per delegate output (num_outputs)
///
/// Tensor descriptor: u8 rank (1..kDnnMaxRank), i64 dims[rank]: the
/// graph's logical shape (NCHW for 4-D). Since 1.3 then u8 data type
/// (DnnDataType), and for s8 and u8 an f32 scale (finite, > 0) and an i32
/// zero point (in the type's range): real = (q - zero_point) * scale, one
/// scale per tensor. Before 1.3 every tensor is f32. The blob says nothing about
/// memory formats: the runtime lets oneDNN choose them (format_tag::any)
/// on the CPU it runs on. Slots the blob exchanges with the outside (inputs,
/// constants, delegate outputs) and the operands of kMatmul, kSoftmax,
/// kReshape and of a broadcast kBinary operand are plain row-major; the
/// AOT half places kReorder operators where a blocked format may meet them,
/// so every format change is an operator with its own identifier and event.
///
/// Post-ops (the fused activations of kConvolution, kMatmul, kBinary, and
/// the steps of kEltwise): the LAST ints are k, then k DnnEltwise codes;
/// the LAST 2k floats are each step's alpha, beta (oneDNN's meaning).
///
/// Ints and operands per kind:
///   kConvolution  operands: src [N,C,H,W], weights (a constant slot,
///                 [O, C/groups, kH, kW]), bias (a constant slot, [O]),
///                 and with has_sum a fourth: the tensor the result is
///                 added to (oneDNN's sum post-op, before the eltwise
///                 steps). ints: stride_h, stride_w, dilation_h,
///                 dilation_w (1 = dense), pad_top, pad_left, pad_bottom,
///                 pad_right, groups, has_sum, then the post-ops.
///   kMatmul       operands: src [..., K], weights (a constant slot
///                 [K, N]), bias (a constant slot [N]), and since 1.2 an
///                 optional fourth: the tensor the result is added to
///                 (oneDNN's sum post-op, before the eltwise steps; the
///                 output's shape). ints: the post-ops. Output [..., N];
///                 src's leading dims are rows.
///   kPooling      operands: src [N,C,H,W]. ints: algorithm (DnnPooling),
///                 kernel_h, kernel_w, stride_h, stride_w, dilation_h,
///                 dilation_w, pad_top, pad_left, pad_bottom, pad_right
///                 (ceil mode is extra bottom/right padding).
///   kEltwise      operands: src. ints: the post-ops (k >= 1): step 1 reads
///                 src, the others apply in turn to its output (the runtime
///                 runs them in place). Output: src's dims.
///   kBinary       operands: src0 (the output's dims), src1 (broadcast to
///                 src0 with numpy's rules, rank <= src0's). ints: DnnBinary,
///                 then the post-ops.
///   kSoftmax      operands: src. ints: axis (0..rank-1).
///   kConcat       operands: 1..kDnnMaxOperands tensors. ints: axis.
///   kReorder      operands: src. ints: target (DnnReorderTarget). Output:
///                 src's dims in another memory format.
///   kReshape      operands: src. ints: none. Output: another shape with
///                 src's element count (flatten, reshape).
///   kLayerNorm    operands: src (plain), scale and shift (constant slots
///                 [C], C src's last dim). ints: none; floats: eps (> 0).
///                 Normalizes over the last axis; output: src's dims.
///   kBatchMatmul  operands: a [..., M, K] and b [..., K, N], both computed
///                 and plain (attention's Q x K^T and weights x V). ints:
///                 the post-ops. Output [..., M, N], plain; the batch dims
///                 broadcast as numpy's (a missing or 1 dim takes the
///                 other's). Since format 1.1.
///   kTranspose    operands: src (plain). ints: the permutation, one per
///                 dim (output dim i is src dim perm[i]). Output plain; one
///                 oneDNN reorder from a strided view of src. Since 1.1.
///   kSlice        operands: src (plain). ints: starts, then steps (>= 1),
///                 one per dim; the output's dims are the sizes. Output
///                 plain; a reorder from a strided view. Since 1.1.
///
/// Int8 (since 1.3). Every operand and output of the kinds above is f32,
/// except: kPooling (max, average), kReshape and kReorder also take an s8
/// or u8 source, and then write its data type, scale and zero point.
///   kQuantize     operands: src (f32, plain). Output: s8 or u8, src's
///                 dims, plain: saturate(round(src / scale) + zero_point)
///                 with the output's scale and zero point.
///   kDequantize   operands: src (s8 or u8). Output: f32, src's dims,
///                 plain: (src - zero_point) * scale with src's.
///   kQConvolution operands: src (s8/u8 [N,C,H,W]), weights (an s8
///                 constant [O, C/groups, kH, kW], zero point 0), bias (an
///                 s32 constant [O], in units of src scale x weight scale),
///                 output scales (an f32 constant [O]: src scale x weight
///                 scale[o] / output scale). ints: kConvolution's, has_sum
///                 0, then the post-ops, which act on the rescaled result
///                 before the output's zero point is added (a relu, or a
///                 clip whose bounds are divided by the output scale).
///                 Output: s8/u8.
///   kQMatmul      operands: src (s8/u8, plain, [..., K]), weights (an s8
///                 constant [K, N]), bias (s32 [N]), output scales (f32
///                 [N]). ints: the post-ops (as kQConvolution). Output: s8/u8
///                 [..., N], plain.
///   kQBinary      operands: a and b (s8/u8, the output's dims; b in a's
///                 memory format or reordered into it). ints: DnnBinary
///                 (kAdd or kMul), then the clamp [min, max] of the output's
///                 quantized values (a fused relu or clip; the type's range
///                 for none). Output: s8/u8 in a's memory format:
///                 quantize(dequantize(a) op dequantize(b)), Glassbox's
///                 portable kernel (oneDNN 2.6's binary has no zero points).
///
/// Since 1.4:
///   kQClamp       operands: src (s8/u8), and optionally a lookup table (a
///                 u8 constant [256]). ints: the clamp [min, max] of the
///                 output's quantized values. Output: s8/u8, src's dims, in
///                 src's memory format. With one operand the output has
///                 src's type and quantization and is clamp(src, [min,
///                 max]) (a relu or clip in the quantized domain; Glassbox's
///                 quantized_clamp); with the table, y = table[byte(src)]
///                 (a relu or clip between two quantizations, each entry
///                 quantize(clip(dequantize(v))) computed at export;
///                 apply_quant_lut), min and max bound its entries.
///   kQGlobalAvgPool operands: src (s8/u8 [N,C,H,W]). ints: none. Output:
///                 [N,C,1,1] of src's type, its own scale and zero point:
///                 Glassbox's qlinear_global_avg_pool2d (oneDNN 2.6's int8
///                 pooling does not rescale).
///
/// Since 1.5, kConvolution and kPooling also run over three spatial dims:
/// src [N,C,D,H,W] (a video network's Conv3d, its pools and its global
/// average pool), weights [O, C/groups, kD, kH, kW]. Their ints are then
/// given per dim in D, H, W order where the 4-D form gives H, W:
///   kConvolution  stride_d, stride_h, stride_w, dilation_d, _h, _w,
///                 pad_front, pad_top, pad_left, pad_back, pad_bottom,
///                 pad_right, groups, has_sum, then the post-ops.
///   kPooling      algorithm, kernel_d, _h, _w, stride_d, _h, _w,
///                 dilation_d, _h, _w, pad_front, pad_top, pad_left,
///                 pad_back, pad_bottom, pad_right.
/// (The 4-D layout is the same rule with two dims per group.)
///
/// Since 1.6, a recurrent layer (ONNX's LSTM, GRU or RNN; aot/
/// recurrent_lowering.h) is one operator, every step of every direction:
///   kRnn          ints: cell (DnnRnnCell), direction (DnnRnnDirection),
///                 layout (0: x [T,N,I], y [T,D,N,H], states [D,N,H];
///                 1: x [N,T,I], y [N,T,D,H], states [N,D,H]), the
///                 activation of a kVanilla cell (DnnEltwise kTanh, kRelu
///                 or kLogistic; 0 for the others), has_peephole, has_h0,
///                 has_c0 (0/1). Operands: x (f32, plain), w_layer (a
///                 constant [D, I, G, H]), w_iter (a constant [D, H, G,
///                 H]), bias (a constant [D, G, H]; [D, 4, H] for
///                 kLbrGru), then when present peephole (a constant [D, 3,
///                 H]), h0 and c0 (plain, the states' layout). Gates are
///                 in oneDNN's order (LSTM i, f, c, o; GRU u, r, o; the
///                 peepholes i, f, o), D = 2 for kBidirectional (direction
///                 0 left to right, 1 right to left), else 1. Output: y,
///                 plain.
///   kRnnState     operands: a kRnn's output. ints: which (0: y_h, 1: y_c,
///                 an LSTM's only). Output: that kRnn's final hidden (cell)
///                 state of each direction, [D,N,H] or [N,D,H] as its
///                 layout, plain.

#include <cstdint>

namespace glassbox::backends::onednn {

/// The name both halves register under.
inline constexpr char kOnednnBackendName[] = "OnednnBackend";

inline constexpr char kDnnMagic[4] = {'G', 'B', 'D', 'N'};
inline constexpr std::uint16_t kDnnFormatMajor = 1;
inline constexpr std::uint16_t kDnnFormatMinor = 6;
/// The first minor version with data types in tensor descriptors.
inline constexpr std::uint16_t kDnnFirstInt8Minor = 3;
inline constexpr std::uint32_t kDnnHeaderSize = 24;
inline constexpr std::uint32_t kDnnMaxRank = 6;
inline constexpr std::uint32_t kDnnMaxIdentifierBytes = 4096;
inline constexpr std::uint32_t kDnnMaxOperands = 64;
/// Most inputs, and most outputs, of one delegate (a sanity bound: their
/// slots are allocated at init). A detector's post-processing hands one
/// delegate's 90 per-class score columns to the portable kernels.
inline constexpr std::uint32_t kDnnMaxDelegateIo = 4096;
/// Most fused eltwise steps of one primitive.
inline constexpr std::uint32_t kDnnMaxEltwiseSteps = 8;

/// Operator kinds. Values are part of the format: never renumber.
enum class DnnOpKind : std::uint8_t {
  kConvolution = 1,
  kMatmul = 2,
  kPooling = 3,
  kEltwise = 4,
  kBinary = 5,
  kSoftmax = 6,
  kConcat = 7,
  kReorder = 8,
  kReshape = 9,
  kLayerNorm = 10,
  kBatchMatmul = 11,
  kTranspose = 12,
  kSlice = 13,
  kQuantize = 14,
  kDequantize = 15,
  kQConvolution = 16,
  kQMatmul = 17,
  kQBinary = 18,
  kQClamp = 19,
  kQGlobalAvgPool = 20,
  kRnn = 21,
  kRnnState = 22,
};
inline constexpr std::uint8_t kDnnMaxOpKind = 22;
/// The first minor version with kQClamp and kQGlobalAvgPool.
inline constexpr std::uint16_t kDnnFirstQClampMinor = 4;
/// The first minor version with 3-D (5-D source) kConvolution and kPooling.
inline constexpr std::uint16_t kDnnFirstVolumeMinor = 5;
/// The first minor version with kRnn and kRnnState.
inline constexpr std::uint16_t kDnnFirstRnnMinor = 6;

/// kRnn's cell (values are part of the format). kLbrGru is ONNX's GRU with
/// linear_before_reset=1 (oneDNN's lbr_gru: a fourth bias, R's of the new
/// gate, inside the reset gate's product).
enum class DnnRnnCell : std::uint8_t { kVanilla = 0, kLstm = 1, kGru = 2, kLbrGru = 3 };
inline constexpr std::uint8_t kDnnMaxRnnCell = 3;
enum class DnnRnnDirection : std::uint8_t { kForward = 0, kReverse = 1, kBidirectional = 2 };
inline constexpr std::uint8_t kDnnMaxRnnDirection = 2;
/// kRnn's ints, in order.
inline constexpr std::uint32_t kDnnRnnInts = 7;

/// Tensor data types (since 1.3). Values are part of the format.
enum class DnnDataType : std::uint8_t { kF32 = 0, kS8 = 1, kU8 = 2, kS32 = 3 };
inline constexpr std::uint8_t kDnnMaxDataType = 3;

/// Bytes per element of `type`.
constexpr std::uint32_t dnn_type_size(DnnDataType type) {
  return type == DnnDataType::kS8 || type == DnnDataType::kU8 ? 1 : 4;
}

/// Whether `type` is a quantized activation type (it has a scale and a
/// zero point).
constexpr bool dnn_is_quantized(DnnDataType type) {
  return type == DnnDataType::kS8 || type == DnnDataType::kU8;
}

/// Eltwise algorithms (oneDNN's, alpha and beta as oneDNN defines them).
enum class DnnEltwise : std::uint8_t {
  kRelu = 1,       ///< alpha: negative slope
  kClip = 2,       ///< alpha: lower bound, beta: upper bound
  kLogistic = 3,   ///< sigmoid
  kHardswish = 4,  ///< x * relu6(x + 3) / 6
  kLinear = 5,     ///< alpha * x + beta
  kGeluErf = 6,
  kGeluTanh = 7,
  kTanh = 8,
  kExp = 9,
  kLog = 10,
  kAbs = 11,
  kSqrt = 12,
  kElu = 13,       ///< alpha
  kSoftRelu = 14,  ///< log(1 + e^x)
  kPow = 15,       ///< alpha * x^beta
  kSwish = 16,     ///< x * sigmoid(alpha * x) (SiLU with alpha 1). Since 1.1.
};
inline constexpr std::uint8_t kDnnMaxEltwise = 16;

enum class DnnPooling : std::uint8_t {
  kMax = 0,
  kAvgIncludePadding = 1,
  kAvgExcludePadding = 2,
};

enum class DnnBinary : std::uint8_t { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3, kMin = 4, kMax = 5 };

enum class DnnReorderTarget : std::uint8_t {
  kPlain = 0,     ///< row-major (a delegate output, a layout-sensitive reader)
  kConsumer = 1,  ///< the format the reading convolution prefers
};

enum class DnnIdentifierTag : std::uint8_t { kInt = 0, kString = 1 };

/// The primitive kind logged with each operator's event.
constexpr const char* dnn_op_kind_name(DnnOpKind kind) {
  switch (kind) {
    case DnnOpKind::kConvolution: return "convolution";
    case DnnOpKind::kMatmul: return "matmul";
    case DnnOpKind::kPooling: return "pooling";
    case DnnOpKind::kEltwise: return "eltwise";
    case DnnOpKind::kBinary: return "binary";
    case DnnOpKind::kSoftmax: return "softmax";
    case DnnOpKind::kConcat: return "concat";
    case DnnOpKind::kReorder: return "reorder";
    case DnnOpKind::kReshape: return "reshape";
    case DnnOpKind::kLayerNorm: return "layer_normalization";
    case DnnOpKind::kBatchMatmul: return "matmul";
    case DnnOpKind::kTranspose: return "transpose";
    case DnnOpKind::kSlice: return "slice";
    case DnnOpKind::kQuantize: return "quantize";
    case DnnOpKind::kDequantize: return "dequantize";
    case DnnOpKind::kQConvolution: return "convolution";
    case DnnOpKind::kQMatmul: return "matmul";
    case DnnOpKind::kQBinary: return "binary";
    case DnnOpKind::kQClamp: return "eltwise";
    case DnnOpKind::kQGlobalAvgPool: return "pooling";
    case DnnOpKind::kRnn: return "rnn";
    case DnnOpKind::kRnnState: return "rnn_state";
  }
  return nullptr;
}

}  // namespace glassbox::backends::onednn

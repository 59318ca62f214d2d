#pragma once
/// @file
/// The XNNPACK backend's processed-bytes format, version 1.0. The AOT half
/// writes it (xnnpack_program.h), the runtime half parses and validates it
/// (runtime/program_parser.h). Constants only, so device code may include it.
///
/// All integers and floats are little-endian. A "slot" is one tensor the
/// delegate reads or writes: slots [0, num_inputs) are the delegate call's
/// inputs in order, and operator i writes slot num_inputs + i (SSA, so an
/// operator may only read slots defined before it).
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
/// i64 dims[rank]. Dims are always the LOGICAL shape (the graph's, NCHW
/// for 4-D tensors); the layout says how the bytes are ordered.
///
/// Layout choice: XNNPACK's spatial operators are NHWC while the graph is
/// NCHW. Inside the delegate, 4-D tensors stay NHWC from the first spatial
/// operator on; explicit kNchwToNhwc / kNhwcToNchw operators convert at the
/// delegate's inputs and outputs and wherever a layout-sensitive operator
/// (flatten, reshape, linear, softmax) needs logical order. Each conversion
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
///   kGlobalAveragePooling  f32 min, max. NHWC input, [N, C, 1, 1] output.
///   kAdd kSubtract kMultiply kDivide  f32 min, max. Operands and output in
///                    the output's layout; numpy broadcasting.
///   kClamp           f32 min, max.
///   kHardswish kSigmoid kSoftmax kCopy kNchwToNhwc kNhwcToNchw  no params.
///                    Softmax is over the last axis of the bytes; kCopy is
///                    a reshape or flatten (logical layout).
///   kConcatenate     axis (over the bytes' order, i.e. already permuted
///                    for NHWC).

#include <cstdint>

namespace glassbox::backends::xnnpack {

/// The name both halves register under.
inline constexpr char kXnnpackBackendName[] = "XnnpackBackend";

inline constexpr char kXnnMagic[4] = {'G', 'B', 'X', 'N'};
inline constexpr std::uint16_t kXnnFormatMajor = 1;
inline constexpr std::uint16_t kXnnFormatMinor = 0;
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
};
inline constexpr std::uint8_t kXnnMaxOpKind = 17;

enum class XnnLayout : std::uint8_t {
  kLogical = 0,  ///< The graph's order (NCHW for 4-D).
  kNhwc = 1,     ///< 4-D only: bytes in N, H, W, C order.
};

enum class XnnIdentifierTag : std::uint8_t { kInt = 0, kString = 1 };

/// The metadata logged with each operator's event: XNNPACK's operator type
/// name, or ours for the layout conversions XNNPACK 2022 lacks. Null for
/// an unknown kind.
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
    case XnnOpKind::kNchwToNhwc: return "glassbox_nchw_to_nhwc";
    case XnnOpKind::kNhwcToNchw: return "glassbox_nhwc_to_nchw";
  }
  return nullptr;
}

}  // namespace glassbox::backends::xnnpack

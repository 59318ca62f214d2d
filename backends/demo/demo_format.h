#pragma once
/// @file
/// The demo backend's processed-bytes format, version 1. Shared by the AOT
/// half (which writes it) and the runtime half (which executes it), so this
/// header holds only constants and constexpr code, safe for device code.
///
/// All integers and floats are little-endian. "Slots" are the values the
/// program reads and writes: slots [0, input_count) are the delegate call's
/// inputs in order, and op i writes slot input_count + i.
///
///   offset  size  field
///   0       4     magic "GBDM"
///   4       4     u32 version (kDemoFormatVersion)
///   8       4     u32 op_count
///   12      4     u32 input_count
///   16      4     u32 output_count
///   20      ...   op_count ops, each:
///                   u8  kind (DemoOpKind)
///                   u8  identifier tag (DemoIdentifierTag), then
///                       int:    i64 identifier
///                       string: u32 byte length, bytes (UTF-8, no NUL)
///                   u8  operand count, then u32 slot per operand
///                       (conv, conv_relu, relu, sin, cos: 1; div: 2 =
///                        numerator, denominator)
///                   conv and conv_relu only, the parameters:
///                       i64 stride[2], padding[2], dilation[2], groups
///                       i64 weight shape[4] (O, C/groups, kH, kW)
///                       f32 weight[O*C/groups*kH*kW] (row-major, OIHW)
///                       u8  has_bias, then f32 bias[O] if has_bias
///   ...     4*n   u32 output slot per delegate output (output_count)
///
/// Each op's identifier is its delegate debug identifier: the runtime half
/// logs the op's events with it (int ids as DelegateDebugIntId, string ids
/// as the event name), and the AOT half's debug handle map maps it back to
/// the source operators.

#include <cstdint>

namespace glassbox::backends::demo {

/// The name both halves register under.
inline constexpr char kDemoBackendName[] = "DemoBackend";

inline constexpr char kDemoMagic[4] = {'G', 'B', 'D', 'M'};
inline constexpr std::uint32_t kDemoFormatVersion = 1;
/// Bytes before the first op.
inline constexpr std::uint32_t kDemoHeaderSize = 20;

enum class DemoOpKind : std::uint8_t {
  kConvRelu = 1,  ///< relu(conv2d(x)), one fused op.
  kConv = 2,
  kRelu = 3,
  kSin = 4,  ///< tan(x) is lowered as sin(x) / cos(x).
  kCos = 5,
  kDiv = 6,
};

/// The op kind's name ("conv_relu", "sin", ...), used by both halves (AOT:
/// string identifiers; runtime: event metadata), or null for a byte that is
/// not a DemoOpKind.
constexpr const char* demo_op_kind_name(DemoOpKind kind) {
  switch (kind) {
    case DemoOpKind::kConvRelu: return "conv_relu";
    case DemoOpKind::kConv: return "conv";
    case DemoOpKind::kRelu: return "relu";
    case DemoOpKind::kSin: return "sin";
    case DemoOpKind::kCos: return "cos";
    case DemoOpKind::kDiv: return "div";
  }
  return nullptr;
}

enum class DemoIdentifierTag : std::uint8_t { kInt = 0, kString = 1 };

}  // namespace glassbox::backends::demo

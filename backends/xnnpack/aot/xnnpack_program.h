#pragma once
/// @file
/// Host-side model of the XNNPACK backend's processed bytes
/// (xnnpack_format.h) and its encoder. The AOT half fills an XnnProgram and
/// encodes it; the runtime half parses the bytes itself (device code).

#include <cstdint>
#include <vector>

#include "backends/xnnpack/xnnpack_format.h"
#include "glassbox/aot/debug_handle_map.h"

namespace glassbox::backends::xnnpack {

/// One slot's logical shape and byte order.
struct XnnTensorDesc {
  std::vector<std::int64_t> dims;  ///< Logical (NCHW for 4-D).
  XnnLayout layout = XnnLayout::kLogical;
  /// Format 1.6: the element type, and for kQs8 / kQu8 the quantization
  /// (a kQu8 zero point already minus 128, as the format stores it).
  XnnDType dtype = XnnDType::kF32;
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  friend bool operator==(const XnnTensorDesc&, const XnnTensorDesc&) = default;
};

/// One operator. Its params are `ints` (u32 each; a quantized kind's i32
/// min, max are its last two) followed by `floats` and then `bytes` (a
/// quantized kind's i32 bias and i8 kernel, or its table), exactly as the
/// format lists them for `kind`.
struct XnnOp {
  XnnOpKind kind = XnnOpKind::kCopy;
  aot::DelegateDebugIdentifier identifier;
  std::vector<std::uint32_t> operands;  ///< Slots read.
  XnnTensorDesc output;                 ///< The slot written.
  std::vector<std::uint32_t> ints;
  std::vector<float> floats;
  std::vector<std::uint8_t> bytes;
  friend bool operator==(const XnnOp&, const XnnOp&) = default;
};

/// One constant slot (format 1.2): its descriptor and its data in the
/// descriptor's byte order.
struct XnnConstant {
  XnnTensorDesc desc;
  std::vector<float> data;
  friend bool operator==(const XnnConstant&, const XnnConstant&) = default;
};

/// Slots: the inputs, then the constants, then one per operator.
struct XnnProgram {
  std::vector<XnnTensorDesc> inputs;
  std::vector<XnnConstant> constants;
  std::vector<XnnOp> ops;
  std::vector<std::uint32_t> outputs;  ///< Slots, one per delegate output.
  friend bool operator==(const XnnProgram&, const XnnProgram&) = default;
};

/// The processed bytes for `program` (no validation: the lowering builds
/// consistent programs, and the runtime validates everything it reads).
std::vector<std::uint8_t> encode_xnn_program(const XnnProgram& program);

}  // namespace glassbox::backends::xnnpack

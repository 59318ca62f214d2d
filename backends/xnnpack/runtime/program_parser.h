#pragma once
/// @file
/// Parses and fully validates the XNNPACK backend's processed bytes
/// (backends/xnnpack/xnnpack_format.h) before any XNNPACK call sees
/// them. Device code: no exceptions, memory from the caller's allocator.
///
/// Validation goes beyond framing: every operator's output descriptor must
/// equal the shape its kind, params and inputs imply (so buffers sized from
/// the descriptors are exactly what XNNPACK writes), weights must be as
/// long as the params say, layouts must match what the kind reads, and
/// sizes are capped (kMaxSlotElements, kMaxTotalElements) so a corrupt blob
/// cannot make init reserve gigabytes.

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/xnnpack_format.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

/// Elements one slot may hold (1 GiB of float).
inline constexpr std::int64_t kMaxSlotElements = std::int64_t{1} << 28;
/// Elements all slots together may hold.
inline constexpr std::int64_t kMaxTotalElements = std::int64_t{1} << 28;
/// Operators one delegate may hold.
inline constexpr std::uint32_t kMaxOps = 1u << 16;
/// Constants one delegate may hold (format 1.2).
inline constexpr std::uint32_t kMaxConstants = 1u << 16;
/// Operands one operator (a concatenation) may read.
inline constexpr std::uint32_t kMaxOperands = 64;
/// Largest u32 operator parameter (kernel sizes, strides, channels...).
inline constexpr std::uint32_t kMaxParam = 1u << 24;
/// Most u32 params of any kind (1.8's kConvolution3d's).
inline constexpr std::uint32_t kMaxOpInts = kXnnConv3dInts;

/// A slot's shape: logical dims and byte order.
struct SlotDesc {
  std::uint8_t rank = 0;
  XnnLayout layout = XnnLayout::kLogical;
  std::int64_t dims[kXnnMaxRank] = {};
  std::int64_t numel = 0;
  /// 1.6: the element type; quantized slots hold one int8 per element,
  /// real = (q - zero_point) * scale (kQu8: the graph's uint8 minus 128).
  XnnDType dtype = XnnDType::kF32;
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  /// The dims in byte order (NHWC, or 1.8's NDHWC, for kNhwc).
  std::int64_t physical(std::size_t i) const;
  /// The product of the dims after N and C (H * W, or D * H * W for a
  /// 5-D slot): the pixels of each image in NHWC / NDHWC order.
  std::int64_t pixels() const {
    std::int64_t p = 1;
    for (std::size_t i = 2; i < rank; ++i) p *= dims[i];
    return p;
  }
  bool quantized() const { return dtype != XnnDType::kF32; }
  /// Bytes per element: 4, or 1 when quantized.
  std::size_t element_size() const { return quantized() ? 1 : 4; }
};

/// One operator, validated. Params are copied out of the blob; the kernel
/// and bias stay views into it (unaligned: copy before use).
struct ParsedOp {
  XnnOpKind kind = XnnOpKind::kCopy;
  /// Exactly one is set: a string identifier (NUL-terminated, allocator
  /// memory) or an int one.
  const char* name = nullptr;
  DelegateDebugIntId int_id = kUnsetDelegateDebugIntId;
  std::uint32_t num_operands = 0;
  const std::uint32_t* operands = nullptr;
  std::uint32_t ints[kMaxOpInts] = {};
  std::uint32_t num_ints = 0;
  float output_min = 0;
  float output_max = 0;
  /// The one f32 of kElu (alpha), kLeakyRelu (slope), kConstantPad (value),
  /// kLayerNorm (epsilon), kDequantize (scale).
  float scalar = 0;
  /// f32, weight_count of them: convolution kernels, kPrelu's slopes
  /// (1.6's kQConvolution, kQFullyConnected: i8; kQLookupTable: its 256
  /// bytes).
  const std::uint8_t* kernel = nullptr;
  /// f32, bias_count of them (the quantized kinds': i32).
  const std::uint8_t* bias = nullptr;
  std::size_t weight_count = 0;
  std::size_t bias_count = 0;
  /// 1.6: a quantized kind's fused activation, in its output's int8 domain.
  /// 1.6: kDequantize's zero point (its scale is `scalar`).
  std::int32_t zero_point = 0;
  std::int32_t qmin = -128;
  std::int32_t qmax = 127;
  /// 1.6: kQConvolution's and kQFullyConnected's per-output-channel kernel
  /// scales (f32, bias_count of them).
  const std::uint8_t* kernel_scales = nullptr;
};

/// A validated program. Slot i < num_inputs is input i, the next
/// num_constants slots are the constants, and op i writes slot
/// first_op_slot() + i.
struct ParsedProgram {
  std::uint16_t minor = 0;  ///< The blob's minor format version.
  std::uint32_t num_inputs = 0;
  std::uint32_t num_constants = 0;
  std::uint32_t num_outputs = 0;
  std::uint32_t num_ops = 0;
  SlotDesc* slots = nullptr;
  ParsedOp* ops = nullptr;
  std::uint32_t* outputs = nullptr;
  /// Constant k's f32 data (slots[num_inputs + k].numel of them): views
  /// into the blob, 4-byte aligned from its start (copy before use).
  const std::uint8_t** constant_data = nullptr;
  std::int64_t total_elements = 0;  ///< Sum of every slot's numel.
  std::uint32_t first_op_slot() const { return num_inputs + num_constants; }
  std::uint32_t num_slots() const { return num_inputs + num_constants + num_ops; }
};

/// Parses `blob` (which must outlive the result: kernels and constants are
/// views into it) into memory from `memory`. Errors: kCorruptData (with a static
/// message naming the problem), kVersionMismatch, kMemoryAllocationFailed.
Result<ParsedProgram*> parse_xnn_program(Span<const std::uint8_t> blob,
                                         runtime::MemoryAllocator* memory);

}  // namespace glassbox::backends::xnnpack

#pragma once
/// @file
/// Parses and fully validates the oneDNN backend's processed bytes
/// (backends/onednn/onednn_format.h) before any oneDNN call sees them.
/// Device code: no exceptions, memory from the caller's allocator.
///
/// Validation goes beyond framing: every operator's output dims must equal
/// the shape its kind, ints and operands imply (the load-time proof that
/// buffers sized from the descriptors hold what oneDNN writes), weights and
/// biases must be constant slots of the size the operator reads, and sizes
/// are capped so a corrupt blob cannot make init reserve gigabytes.

#include <cstddef>
#include <cstdint>

#include "backends/onednn/onednn_format.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::onednn {

/// Elements one slot may hold, and all slots together (1 GiB of float).
inline constexpr std::int64_t kDnnMaxSlotElements = std::int64_t{1} << 28;
inline constexpr std::int64_t kDnnMaxTotalElements = std::int64_t{1} << 28;
inline constexpr std::uint32_t kDnnMaxOps = 1u << 16;
inline constexpr std::uint32_t kDnnMaxConstants = 1u << 16;
/// Largest int parameter (kernel sizes, strides, pads, groups).
inline constexpr std::int64_t kDnnMaxParam = std::int64_t{1} << 24;
inline constexpr std::uint32_t kDnnMaxInts = 32;
inline constexpr std::uint32_t kDnnMaxFloats = 2 * kDnnMaxEltwiseSteps;

struct DnnSlot {
  std::uint8_t rank = 0;
  std::int64_t dims[kDnnMaxRank] = {};
  std::int64_t numel = 0;
  /// f32 before format 1.3. For s8 and u8, scale (finite, > 0) and zero
  /// point (in the type's range); 1 and 0 otherwise.
  DnnDataType type = DnnDataType::kF32;
  float scale = 1.f;
  std::int32_t zero_point = 0;
  std::size_t bytes() const { return static_cast<std::size_t>(numel) * dnn_type_size(type); }
};

/// One operator, validated; its ints and floats copied out of the blob.
struct DnnParsedOp {
  DnnOpKind kind = DnnOpKind::kReshape;
  /// Exactly one is set: a string identifier (NUL-terminated, allocator
  /// memory) or an int one.
  const char* name = nullptr;
  DelegateDebugIntId int_id = kUnsetDelegateDebugIntId;
  std::uint32_t num_operands = 0;
  const std::uint32_t* operands = nullptr;
  std::uint32_t num_ints = 0;
  std::int64_t ints[kDnnMaxInts] = {};
  std::uint32_t num_floats = 0;
  float floats[kDnnMaxFloats] = {};
  /// The eltwise steps (post-ops): where their codes start in `ints` and
  /// their alpha, beta pairs in `floats`; 0 steps for kinds without them.
  std::uint32_t num_steps = 0;
  std::uint32_t first_step = 0;
};

/// A validated program. Slot i < num_inputs is input i, the next
/// num_constants slots the constants, and op i writes slot
/// first_op_slot() + i.
struct DnnParsedProgram {
  std::uint32_t num_inputs = 0;
  std::uint32_t num_constants = 0;
  std::uint32_t num_outputs = 0;
  std::uint32_t num_ops = 0;
  DnnSlot* slots = nullptr;
  DnnParsedOp* ops = nullptr;
  std::uint32_t* outputs = nullptr;
  /// Constant k's data (of its slot's type): views into the blob, 4-byte
  /// aligned from its start (copy before use).
  const std::uint8_t** constant_data = nullptr;
  std::uint32_t first_op_slot() const { return num_inputs + num_constants; }
  std::uint32_t num_slots() const { return num_inputs + num_constants + num_ops; }
  bool is_constant(std::uint32_t slot) const {
    return slot >= num_inputs && slot < first_op_slot();
  }
};

/// Parses `blob` (which must outlive the result: constants are views into
/// it) into memory from `memory`. Errors: kCorruptData (a static message
/// starting "onednn program:" naming the problem), kVersionMismatch,
/// kMemoryAllocationFailed.
Result<DnnParsedProgram*> parse_dnn_program(Span<const std::uint8_t> blob,
                                            runtime::MemoryAllocator* memory);

}  // namespace glassbox::backends::onednn

#pragma once
/// @file
/// Strong id types. Each wraps one integer and names its single "unset"
/// value, so a chain index can never be passed where an instruction id is
/// expected, and no code compares against a bare -1 or 0.
///
/// | type               | rep      | unset | what it names                          |
/// |--------------------|----------|-------|----------------------------------------|
/// | DebugHandle        | uint32_t | 0     | one operator of the source graph       |
/// | ChainId            | int32_t  | -1    | a chain of a method's execution plan   |
/// | InstructionId      | int32_t  | -1    | an instruction within a chain          |
/// | DelegateDebugIntId | int32_t  | -1    | an int delegate debug identifier       |
/// | AllocatorId        | uint32_t | 0     | a tracked allocator (1-based per block)|
///
/// InstructionId differs from ExecuTorch on purpose: there "unset" is 0,
/// which is also the first instruction, so framework events inherit the first
/// instruction's operators. Ours is -1, the ETDump schema default.

#include <compare>
#include <cstdint>
#include <functional>

namespace glassbox {

template <typename Tag, typename Rep, Rep kUnsetValue>
struct StrongId {
  using rep_type = Rep;
  static constexpr Rep kUnsetRep = kUnsetValue;

  Rep value = kUnsetValue;

  constexpr StrongId() = default;
  constexpr explicit StrongId(Rep v) : value(v) {}

  /// The one "unset" value of this id type.
  static constexpr StrongId unset() { return StrongId(kUnsetValue); }
  constexpr bool is_set() const { return value != kUnsetValue; }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;
};

struct DebugHandleTag {};
struct ChainIdTag {};
struct InstructionIdTag {};
struct DelegateDebugIntIdTag {};
struct AllocatorIdTag {};

using DebugHandle = StrongId<DebugHandleTag, std::uint32_t, 0>;
using ChainId = StrongId<ChainIdTag, std::int32_t, -1>;
using InstructionId = StrongId<InstructionIdTag, std::int32_t, -1>;
using DelegateDebugIntId = StrongId<DelegateDebugIntIdTag, std::int32_t, -1>;
using AllocatorId = StrongId<AllocatorIdTag, std::uint32_t, 0>;

inline constexpr DebugHandle kUnsetDebugHandle = DebugHandle::unset();
inline constexpr ChainId kUnsetChainId = ChainId::unset();
inline constexpr InstructionId kUnsetInstructionId = InstructionId::unset();
inline constexpr DelegateDebugIntId kUnsetDelegateDebugIntId = DelegateDebugIntId::unset();
inline constexpr AllocatorId kUnsetAllocatorId = AllocatorId::unset();

}  // namespace glassbox

template <typename Tag, typename Rep, Rep kUnset>
struct std::hash<glassbox::StrongId<Tag, Rep, kUnset>> {
  std::size_t operator()(glassbox::StrongId<Tag, Rep, kUnset> id) const {
    return std::hash<Rep>()(id.value);
  }
};

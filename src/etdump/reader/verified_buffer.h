#pragma once
// Step one of reading an ETDump: find the FlatBuffer inside the input
// (size-prefixed or not), check the prefix and the identifier, and run
// FlatBuffers' Verifier. Only a VerifiedBuffer may be handed to the decoder.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"

namespace etdump {
struct ETDump;
}  // namespace etdump

namespace glassbox::etdump {

class VerifiedBuffer {
 public:
  /// Verifies `bytes` (read during the call; copied when misaligned).
  /// Errors carry no source name; the caller adds it.
  static StatusOr<VerifiedBuffer> verify(std::span<const std::uint8_t> bytes);

  /// The root table. Valid while this object and the verified bytes live
  /// (moving this object keeps it valid: a vector's move keeps its storage).
  const ::etdump::ETDump* root() const { return root_; }
  bool size_prefixed() const { return size_prefixed_; }

 private:
  VerifiedBuffer() = default;

  // Owns a copy only when the input was not 8-byte aligned: the Verifier
  // checks alignment against real addresses, and FlatBuffers reads scalars
  // through plain (aligned) loads.
  std::vector<std::uint64_t> aligned_copy_;
  const ::etdump::ETDump* root_ = nullptr;
  bool size_prefixed_ = false;
};

}  // namespace glassbox::etdump

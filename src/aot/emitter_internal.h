#pragma once
// Private pieces of the emitter, split by job: building the FlatBuffer
// (emitter.cc), the debug maps (emitter_maps.cc) and the fingerprint
// (emitter_fingerprint.cc).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "glassbox/aot/emitter.h"

namespace glassbox::aot::internal {

// The maps of one method, filled from the lowered graph's nodes in order.
struct MethodMaps {
  InstructionDebugHandles debug_handles;
  InstructionDelegateMap delegates;
  InstructionNumOuts num_outs;
};

// Builds the three maps of `lowered` (verified); `edge_graph` may be null.
StatusOr<MethodMaps> build_method_maps(const Graph& lowered, const Graph* edge_graph);

// 64-bit FNV-1a of `bytes`, the first `skip_begin` bytes as they are, the
// `skip_length` bytes from `skip_begin` as zeros, the rest as they are.
std::uint64_t fnv1a_with_zeroed_range(std::span<const std::uint8_t> bytes, std::size_t skip_begin,
                                      std::size_t skip_length);

// Lowercase hex, kFingerprintLength digits.
std::string fingerprint_hex(std::uint64_t hash);

}  // namespace glassbox::aot::internal

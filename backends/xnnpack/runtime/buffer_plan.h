#pragma once
/// @file
/// Which of a delegate program's slots share memory. Every slot used to get
/// a buffer of its own, so each operator wrote into memory no earlier
/// operator had touched (cold in every cache level); operator outputs whose
/// lifetimes do not overlap now share buffers, which keeps the working set
/// as small as the widest point of the network.

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/runtime/concat_in_place.h"
#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

struct BufferPlan {
  /// Per slot: the buffer it lives in.
  std::uint32_t* buffer_of = nullptr;
  /// Per buffer: its size in bytes (the largest slot it holds, plus
  /// `slack`).
  std::size_t* bytes = nullptr;
  std::uint32_t num_buffers = 0;
};

/// Plans `program`'s slots into buffers, in memory from `memory`. Inputs,
/// constants and delegate outputs keep buffers of their own for as long as
/// they are needed (inputs until their last reader; constants and outputs
/// for good); an operator's output takes a buffer whose slots are all read
/// for the last time by earlier operators (an operator never writes a
/// buffer it reads). `slack` bytes are added to every buffer (XNNPACK reads
/// past the end of its inputs). With `slices`, an output written in place
/// (concat_in_place.h) lives in its concatenation's buffer, which is taken
/// when the first of them is written and kept until the concatenation's
/// last reader. Errors: kMemoryAllocationFailed.
ErrorInfo plan_buffers(const ParsedProgram& program, std::size_t slack,
                       runtime::MemoryAllocator* memory, BufferPlan* plan,
                       const InPlaceSlices* slices = nullptr);

}  // namespace glassbox::backends::xnnpack

#pragma once
/// @file
/// Concatenations without copies. A convolution whose output feeds only a
/// channel concatenation (squeezenet's fire modules, googlenet's inception
/// blocks) writes straight into its channels of the concatenation's
/// buffer, with XNNPACK's output channel stride, and the concatenation
/// copies only what is not already in place (often nothing: its event
/// then takes no time). On squeezenet1_1 the eight concatenations'
/// copies were 3.4% of the model's time.
///
/// Numeric debugging is unchanged: an operator with a deliberate fault
/// (compile spec "perturb") keeps its own buffer, and an in-place output
/// is gathered from its stride before it is logged.

#include <cstdint>

#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

inline constexpr std::uint32_t kNotInPlace = UINT32_MAX;

struct InPlaceSlices {
  /// Per slot: the concatenation slot whose channels it is written into,
  /// or kNotInPlace.
  std::uint32_t* into = nullptr;
  /// Per slot written in place: its first channel in that concatenation.
  std::uint32_t* first_channel = nullptr;

  bool in_place(std::uint32_t slot) const { return into[slot] != kNotInPlace; }
};

/// Which operator outputs of `program` are written in place: those of a
/// convolution (NHWC) read by nothing but one NHWC concatenation over
/// channels, once, that are not delegate outputs and whose operator is not
/// `perturbed` (per operator). Errors: kMemoryAllocationFailed.
ErrorInfo plan_in_place_slices(const ParsedProgram& program, const bool* perturbed,
                               runtime::MemoryAllocator* memory, InPlaceSlices* slices);

/// The distance in floats between two pixels of `slot`'s output: the
/// concatenation's channels when written in place, else its own.
std::int64_t pixel_stride(const ParsedProgram& program, const InPlaceSlices& slices,
                          std::uint32_t slot);

}  // namespace glassbox::backends::xnnpack

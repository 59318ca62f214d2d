#pragma once
/// @file
/// ONNX Unique: the distinct elements (or, along an axis, the distinct
/// slices) of a row-major tensor, with where each first occurs, which one
/// each element is, and how often each occurs. How many there are depends
/// on the data: the caller's buffers hold the most there can be.

#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/span.h"

namespace glassbox::runtime::kernels {

/// The tensor seen as [outer, length, inner] around the axis (no axis:
/// [1, numel, 1]); slice j is x[o, j, i] for every o, i.
struct UniqueShape {
  std::int64_t outer = 1;
  std::int64_t length = 0;
  std::int64_t inner = 1;
};

/// int64 scratch entries `unique` needs for `length` slices.
inline constexpr std::int64_t unique_scratch_entries(std::int64_t length) { return 5 * length; }

/// Finds the U distinct slices (*count = U) and writes:
/// - y: [outer, U, inner], the distinct slices, in ascending lexicographic
///   order (o then i) when `sorted`, else in order of first occurrence;
/// - indices[k]: the first j whose slice is the k-th of y;
/// - inverse[j]: the k whose slice slice j equals (every j < length);
/// - counts[k]: how many slices equal the k-th.
/// y must hold outer * length * inner elements and indices and counts
/// `length` (the most U can be); only the first U (y: [outer, U, inner])
/// are written. Floats compare by value (-0 equals 0), every NaN equal to
/// every other and above every number. `scratch` holds
/// unique_scratch_entries(length) entries; used during the call only.
/// kInvalidArgument for negative sizes, short scratch or a null pointer
/// while length > 0.
Error unique(const float* x, UniqueShape shape, bool sorted, float* y, std::int64_t* indices,
             std::int64_t* inverse, std::int64_t* counts, Span<std::int64_t> scratch,
             std::int64_t* count);
Error unique(const std::int64_t* x, UniqueShape shape, bool sorted, std::int64_t* y,
             std::int64_t* indices, std::int64_t* inverse, std::int64_t* counts,
             Span<std::int64_t> scratch, std::int64_t* count);

}  // namespace glassbox::runtime::kernels

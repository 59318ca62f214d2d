#include "glassbox/runtime/kernels/unique.h"

#include <algorithm>
#include <cmath>

namespace glassbox::runtime::kernels {
namespace {

// A total order: NaN above every number and equal to every NaN, so that
// sorting is well defined whatever the data.
int compare(float a, float b) {
  if (a < b) return -1;
  if (b < a) return 1;
  const bool nan_a = std::isnan(a), nan_b = std::isnan(b);
  if (nan_a == nan_b) return 0;
  return nan_a ? 1 : -1;
}
int compare(std::int64_t a, std::int64_t b) { return a < b ? -1 : (b < a ? 1 : 0); }

template <typename T>
Error unique_slices(const T* x, UniqueShape s, bool sorted, T* y, std::int64_t* indices,
                    std::int64_t* inverse, std::int64_t* counts, Span<std::int64_t> scratch,
                    std::int64_t* count) {
  if (s.outer < 0 || s.length < 0 || s.inner < 0 || count == nullptr ||
      static_cast<std::int64_t>(scratch.size()) < unique_scratch_entries(s.length)) {
    return Error::kInvalidArgument;
  }
  *count = 0;
  if (s.length == 0) return Error::kOk;
  const bool empty_slices = s.outer * s.inner == 0;
  if ((x == nullptr && !empty_slices) || (y == nullptr && !empty_slices) || indices == nullptr ||
      inverse == nullptr || counts == nullptr) {
    return Error::kInvalidArgument;
  }
  const std::int64_t n = s.length;
  std::int64_t* perm = scratch.data();  // slices in sorted order
  std::int64_t* group_of = perm + n;    // slice -> its group
  std::int64_t* first = group_of + n;   // group -> its first slice
  std::int64_t* size = first + n;       // group -> how many slices
  std::int64_t* order = size + n;       // output position -> group
  auto compare_slices = [&](std::int64_t a, std::int64_t b) {
    for (std::int64_t o = 0; o < s.outer; ++o) {
      const T* row = x + o * n * s.inner;
      for (std::int64_t i = 0; i < s.inner; ++i) {
        const int c = compare(row[a * s.inner + i], row[b * s.inner + i]);
        if (c != 0) return c;
      }
    }
    return 0;
  };
  for (std::int64_t j = 0; j < n; ++j) perm[j] = j;
  // Ties broken by position: the sort is stable without std::stable_sort's
  // allocation, and each group starts with its first occurrence.
  std::sort(perm, perm + n, [&](std::int64_t a, std::int64_t b) {
    const int c = compare_slices(a, b);
    return c != 0 ? c < 0 : a < b;
  });
  std::int64_t groups = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    if (k == 0 || compare_slices(perm[k - 1], perm[k]) != 0) {
      first[groups] = perm[k];
      size[groups] = 0;
      ++groups;
    }
    group_of[perm[k]] = groups - 1;
    ++size[groups - 1];
  }
  for (std::int64_t g = 0; g < groups; ++g) order[g] = g;
  if (!sorted) {
    std::sort(order, order + groups,
              [&](std::int64_t a, std::int64_t b) { return first[a] < first[b]; });
  }
  std::int64_t* position = perm;  // group -> output position; perm is done
  for (std::int64_t k = 0; k < groups; ++k) {
    const std::int64_t g = order[k];
    position[g] = k;
    indices[k] = first[g];
    counts[k] = size[g];
    for (std::int64_t o = 0; o < s.outer; ++o) {
      const T* from = x + (o * n + first[g]) * s.inner;
      std::copy(from, from + s.inner, y + (o * groups + k) * s.inner);
    }
  }
  for (std::int64_t j = 0; j < n; ++j) inverse[j] = position[group_of[j]];
  *count = groups;
  return Error::kOk;
}

}  // namespace

Error unique(const float* x, UniqueShape shape, bool sorted, float* y, std::int64_t* indices,
             std::int64_t* inverse, std::int64_t* counts, Span<std::int64_t> scratch,
             std::int64_t* count) {
  return unique_slices(x, shape, sorted, y, indices, inverse, counts, scratch, count);
}

Error unique(const std::int64_t* x, UniqueShape shape, bool sorted, std::int64_t* y,
             std::int64_t* indices, std::int64_t* inverse, std::int64_t* counts,
             Span<std::int64_t> scratch, std::int64_t* count) {
  return unique_slices(x, shape, sorted, y, indices, inverse, counts, scratch, count);
}

}  // namespace glassbox::runtime::kernels

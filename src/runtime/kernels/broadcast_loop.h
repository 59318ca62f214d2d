#pragma once
// The loop over a BroadcastWalk (shape.h) that the binary kernels share
// (private): out[i] = f(a[...], b[...]) over the walk's dims, the
// innermost run specialised for the three stride patterns that occur (both
// contiguous, one side broadcast) so each is a unit-stride loop.

#include <cstddef>
#include <cstdint>

#include "glassbox/runtime/kernels/shape.h"

namespace glassbox::runtime::kernels::internal {

// Always inlined: the callers' vector clones (vector_clones.h) compile
// only what is inlined into them for AVX2.
template <typename T, typename O, typename F>
[[gnu::always_inline]] inline void broadcast_row(const T* a, std::int64_t as, const T* b,
                                                 std::int64_t bs, O* out, std::int64_t n, F f) {
  if (as == 1 && bs == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (as == 1 && bs == 0) {
    const T bv = b[0];
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
  } else if (as == 0 && bs == 1) {
    const T av = a[0];
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[i * as], b[i * bs]);
  }
}

template <typename T, typename O, typename F>
[[gnu::always_inline]] inline void broadcast_loop(const BroadcastWalk& plan, const T* a, const T* b,
                                                  O* out, F f) {
  const std::size_t inner = plan.rank - 1;
  const std::int64_t n = plan.size[inner];
  std::int64_t rows = 1;
  for (std::size_t i = 0; i < inner; ++i) rows *= plan.size[i];
  std::int64_t index[kMaxDims] = {};
  std::int64_t a_off = 0;
  std::int64_t b_off = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    broadcast_row(a + a_off, plan.a_stride[inner], b + b_off, plan.b_stride[inner], out + r * n, n,
                  f);
    // Odometer over the outer dims, keeping the input offsets incremental.
    for (std::size_t d = inner; d-- > 0;) {
      a_off += plan.a_stride[d];
      b_off += plan.b_stride[d];
      if (++index[d] < plan.size[d]) break;
      a_off -= plan.a_stride[d] * plan.size[d];
      b_off -= plan.b_stride[d] * plan.size[d];
      index[d] = 0;
    }
  }
}

}  // namespace glassbox::runtime::kernels::internal

#include "glassbox/runtime/kernels/shape.h"

#include <limits>

namespace glassbox::runtime::kernels {

Result<Dims> make_dims(Span<const std::int64_t> shape) {
  if (shape.size() > kMaxDims) return make_error(Error::kInvalidArgument, "rank exceeds kMaxDims");
  Dims d;
  d.rank = shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) return make_error(Error::kInvalidArgument, "negative dimension size");
    d.sizes[i] = shape[i];
  }
  return d;
}

Result<std::int64_t> checked_numel(Span<const std::int64_t> shape) {
  if (shape.size() > kMaxDims) return make_error(Error::kInvalidArgument, "rank exceeds kMaxDims");
  // Bounded by the byte count of the largest element (8 bytes), so that
  // `numel * element_size` cannot overflow in any caller.
  constexpr std::int64_t kMaxNumel = std::numeric_limits<std::int64_t>::max() / 8;
  std::int64_t n = 1;
  for (std::int64_t size : shape) {
    if (size < 0) return make_error(Error::kInvalidArgument, "negative dimension size");
    if (__builtin_mul_overflow(n, size, &n) || n > kMaxNumel)
      return make_error(Error::kInvalidArgument, "element count overflows");
  }
  return n;
}

Result<std::int64_t> checked_numel(Shape4 shape) {
  const std::int64_t sizes[] = {shape.n, shape.c, shape.h, shape.w};
  return checked_numel(Span<const std::int64_t>(sizes, 4));
}

Result<Dims> broadcast_shapes(Span<const std::int64_t> a, Span<const std::int64_t> b) {
  Result<Dims> da = make_dims(a);
  if (!da.ok()) return da.error_info();
  Result<Dims> db = make_dims(b);
  if (!db.ok()) return db.error_info();
  Dims out;
  out.rank = a.size() > b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < out.rank; ++i) {
    // Walk from the last dimension; a missing leading dimension acts as 1.
    const std::int64_t sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return make_error(Error::kInvalidArgument, "shapes do not broadcast");
    out.sizes[out.rank - 1 - i] = sa == 1 ? sb : sa;
  }
  return out;
}

BroadcastWalk broadcast_walk(const Dims& out, Span<const std::int64_t> a,
                             Span<const std::int64_t> b) {
  std::int64_t as[kMaxDims] = {};
  std::int64_t bs[kMaxDims] = {};
  std::int64_t sa = 1;
  std::int64_t sb = 1;
  for (std::size_t i = out.rank; i-- > 0;) {
    const std::size_t back = out.rank - 1 - i;
    const std::int64_t da = back < a.size() ? a[a.size() - 1 - back] : 1;
    const std::int64_t db = back < b.size() ? b[b.size() - 1 - back] : 1;
    as[i] = da == 1 ? 0 : sa;
    bs[i] = db == 1 ? 0 : sb;
    sa *= da;
    sb *= db;
  }
  BroadcastWalk plan;
  for (std::size_t i = 0; i < out.rank; ++i) {
    if (out.sizes[i] == 1) continue;  // contributes nothing to the walk
    if (plan.rank > 0) {
      const std::size_t last = plan.rank - 1;
      if (plan.a_stride[last] == as[i] * out.sizes[i] &&
          plan.b_stride[last] == bs[i] * out.sizes[i]) {
        plan.size[last] *= out.sizes[i];
        plan.a_stride[last] = as[i];
        plan.b_stride[last] = bs[i];
        continue;
      }
    }
    plan.size[plan.rank] = out.sizes[i];
    plan.a_stride[plan.rank] = as[i];
    plan.b_stride[plan.rank] = bs[i];
    ++plan.rank;
  }
  if (plan.rank == 0) {  // a scalar result
    plan.size[0] = 1;
    plan.a_stride[0] = 0;
    plan.b_stride[0] = 0;
    plan.rank = 1;
  }
  return plan;
}

}  // namespace glassbox::runtime::kernels

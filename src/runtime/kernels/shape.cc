#include "glassbox/runtime/kernels/shape.h"

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
  Result<Dims> d = make_dims(shape);
  if (!d.ok()) return d.error_info();
  return d->numel();
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

}  // namespace glassbox::runtime::kernels

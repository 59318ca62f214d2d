#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/shape.h"
#include "src/runtime/kernels/vector_clones.h"

namespace glassbox::runtime::kernels {
namespace {

// The innermost run, specialised for the three stride patterns that occur
// (both contiguous, one side broadcast) so each is a unit-stride loop.
template <typename F>
void run_row(const float* a, std::int64_t as, const float* b, std::int64_t bs, float* out,
             std::int64_t n, F f) {
  if (as == 1 && bs == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (as == 1 && bs == 0) {
    const float bv = b[0];
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
  } else if (as == 0 && bs == 1) {
    const float av = a[0];
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) out[i] = f(a[i * as], b[i * bs]);
  }
}

template <typename F>
void run(const BroadcastWalk& plan, const float* a, const float* b, float* out, F f) {
  const std::size_t inner = plan.rank - 1;
  const std::int64_t n = plan.size[inner];
  std::int64_t rows = 1;
  for (std::size_t i = 0; i < inner; ++i) rows *= plan.size[i];
  std::int64_t index[kMaxDims] = {};
  std::int64_t a_off = 0;
  std::int64_t b_off = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    run_row(a + a_off, plan.a_stride[inner], b + b_off, plan.b_stride[inner], out + r * n, n, f);
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

}  // namespace

GLASSBOX_VECTOR_CLONES
Error binary(BinaryOp op, const float* a, Span<const std::int64_t> a_shape, const float* b,
             Span<const std::int64_t> b_shape, float* out) {
  Result<Dims> out_dims = broadcast_shapes(a_shape, b_shape);
  if (!out_dims.ok()) return out_dims.error();
  if (out_dims->numel() == 0) return Error::kOk;
  if (a == nullptr || b == nullptr || out == nullptr) return Error::kInvalidArgument;
  const BroadcastWalk plan = broadcast_walk(*out_dims, a_shape, b_shape);
  switch (op) {
    case BinaryOp::kAdd:
      run(plan, a, b, out, [](float x, float y) { return x + y; });
      return Error::kOk;
    case BinaryOp::kSub:
      run(plan, a, b, out, [](float x, float y) { return x - y; });
      return Error::kOk;
    case BinaryOp::kMul:
      run(plan, a, b, out, [](float x, float y) { return x * y; });
      return Error::kOk;
    case BinaryOp::kDiv:
      run(plan, a, b, out, [](float x, float y) { return x / y; });
      return Error::kOk;
  }
  return Error::kInvalidArgument;
}

Error add(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out) {
  return binary(BinaryOp::kAdd, a, a_shape, b, b_shape, out);
}

Error sub(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out) {
  return binary(BinaryOp::kSub, a, a_shape, b, b_shape, out);
}

Error mul(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out) {
  return binary(BinaryOp::kMul, a, a_shape, b, b_shape, out);
}

Error div(const float* a, Span<const std::int64_t> a_shape, const float* b,
          Span<const std::int64_t> b_shape, float* out) {
  return binary(BinaryOp::kDiv, a, a_shape, b, b_shape, out);
}

}  // namespace glassbox::runtime::kernels

#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/shape.h"
#include "src/runtime/kernels/vector_clones.h"

namespace glassbox::runtime::kernels {
namespace {

// The broadcast iteration space after merging dims: a dim where an operand
// is broadcast gets stride 0 for it. Adjacent dims that are contiguous for
// both operands merge, so e.g. [N,C,H,W] + [1,C,1,1] runs as [N,C,H*W] and
// same-shape operands as one flat loop.
struct Plan {
  std::int64_t size[kMaxDims];
  std::int64_t a_stride[kMaxDims];
  std::int64_t b_stride[kMaxDims];
  std::size_t rank = 0;
};

Plan make_plan(const Dims& out, Span<const std::int64_t> a, Span<const std::int64_t> b) {
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
  Plan plan;
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
void run(const Plan& plan, const float* a, const float* b, float* out, F f) {
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
  const Plan plan = make_plan(*out_dims, a_shape, b_shape);
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

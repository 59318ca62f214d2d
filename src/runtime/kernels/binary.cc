#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/shape.h"
#include "src/runtime/kernels/broadcast_loop.h"
#include "src/runtime/kernels/vector_clones.h"

namespace glassbox::runtime::kernels {

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
      internal::broadcast_loop(plan, a, b, out, [](float x, float y) { return x + y; });
      return Error::kOk;
    case BinaryOp::kSub:
      internal::broadcast_loop(plan, a, b, out, [](float x, float y) { return x - y; });
      return Error::kOk;
    case BinaryOp::kMul:
      internal::broadcast_loop(plan, a, b, out, [](float x, float y) { return x * y; });
      return Error::kOk;
    case BinaryOp::kDiv:
      internal::broadcast_loop(plan, a, b, out, [](float x, float y) { return x / y; });
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

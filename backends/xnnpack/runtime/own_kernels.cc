#include "backends/xnnpack/runtime/own_kernels.h"

#include <cstring>

#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "glassbox/runtime/kernels/gemm.h"
#include "glassbox/runtime/kernels/layer_norm.h"
#include "glassbox/runtime/kernels/shape_ops.h"

namespace glassbox::backends::xnnpack {
namespace {

namespace kernels = runtime::kernels;

ErrorInfo out_of_memory() {
  return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
}

// An aligned copy of `count` floats at the blob's unaligned `bytes`.
const float* copy_floats(const std::uint8_t* bytes, std::size_t count,
                         runtime::MemoryAllocator* memory) {
  float* copy = memory->allocate_array<float>(count == 0 ? 1 : count);
  if (copy != nullptr && count != 0) std::memcpy(copy, bytes, count * sizeof(float));
  return copy;
}

}  // namespace

bool is_own_kernel(XnnOpKind kind) {
  return kind == XnnOpKind::kTranspose || kind == XnnOpKind::kBatchMatMul ||
         kind == XnnOpKind::kLayerNorm || kind == XnnOpKind::kErf;
}

ErrorInfo compile_own_kernel(const ParsedProgram& program, std::uint32_t index,
                             float* const* buffers, runtime::MemoryAllocator* memory,
                             OwnKernel** out) {
  const ParsedOp& op = program.ops[index];
  const SlotDesc& x = program.slots[op.operands[0]];
  auto* k = memory->allocate_array<OwnKernel>(1);
  if (k == nullptr) return out_of_memory();
  *k = OwnKernel{};
  k->kind = op.kind;
  k->a = buffers[op.operands[0]];
  k->out = buffers[program.first_op_slot() + index];
  k->rank = x.rank;
  k->numel = x.numel;
  for (std::size_t i = 0; i < x.rank; ++i) k->a_dims[i] = x.dims[i];
  switch (op.kind) {
    case XnnOpKind::kTranspose:
      for (std::size_t i = 0; i < x.rank; ++i) k->perm[i] = op.ints[i];
      break;
    case XnnOpKind::kBatchMatMul: {
      const SlotDesc& b = program.slots[op.operands[1]];
      k->b = buffers[op.operands[1]];
      for (std::size_t i = 0; i < b.rank; ++i) k->b_dims[i] = b.dims[i];
      const std::size_t bytes =
          kernels::matmul_scratch_bytes(Span<const std::int64_t>(k->a_dims, k->rank),
                                        Span<const std::int64_t>(k->b_dims, k->rank));
      k->scratch_floats = (bytes + sizeof(float) - 1) / sizeof(float);
      if (k->scratch_floats != 0) {
        k->scratch = memory->allocate_array<float>(k->scratch_floats);
        if (k->scratch == nullptr) return out_of_memory();
      }
      break;
    }
    case XnnOpKind::kLayerNorm:
      k->epsilon = op.scalar;
      k->scale = copy_floats(op.kernel, op.weight_count, memory);
      k->bias = copy_floats(op.bias, op.bias_count, memory);
      if (k->scale == nullptr || k->bias == nullptr) return out_of_memory();
      break;
    default: break;
  }
  *out = k;
  return kOk;
}

Error run_own_kernel(const OwnKernel& k) {
  const Span<const std::int64_t> a_shape(k.a_dims, k.rank);
  switch (k.kind) {
    case XnnOpKind::kTranspose:
      return kernels::transpose(k.a, a_shape, Span<const std::int64_t>(k.perm, k.rank), k.out);
    case XnnOpKind::kBatchMatMul:
      return kernels::matmul(k.a, a_shape, k.b, Span<const std::int64_t>(k.b_dims, k.rank), k.out,
                             Span<float>(k.scratch, k.scratch_floats));
    case XnnOpKind::kLayerNorm: {
      const std::int64_t cols = k.a_dims[k.rank - 1];
      return kernels::layer_norm(k.a, k.numel / cols, cols, k.scale, k.bias, k.epsilon, k.out);
    }
    case XnnOpKind::kErf: return kernels::erf(k.a, k.out, k.numel);
    default: return Error::kInternal;
  }
}

}  // namespace glassbox::backends::xnnpack

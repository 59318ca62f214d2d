#include "backends/xnnpack/runtime/own_kernels.h"

#include <cstring>

#include "backends/xnnpack/runtime/layout_transpose.h"
#include "glassbox/runtime/kernels/data_movement.h"
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
  switch (kind) {
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kNhwcToNchw:
    case XnnOpKind::kChannelShuffle:
    case XnnOpKind::kTranspose:
    case XnnOpKind::kBatchMatMul:
    case XnnOpKind::kLayerNorm:
    case XnnOpKind::kErf:
    case XnnOpKind::kStridedSlice: return true;
    default: return false;
  }
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
  k->a_desc = &x;
  k->out_desc = &program.slots[program.first_op_slot() + index];
  k->a = buffers[op.operands[0]];
  k->out = buffers[program.first_op_slot() + index];
  switch (op.kind) {
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kNhwcToNchw:
      k->n = x.dims[0];
      k->c = x.dims[1];
      k->hw = x.dims[2] * x.dims[3];
      k->to_nhwc = op.kind == XnnOpKind::kNchwToNhwc;
      break;
    case XnnOpKind::kChannelShuffle:
      // Each pixel's channels as [groups][C / groups], transposed: the
      // NCHW -> NHWC copy with pixels as the batch.
      k->n = x.dims[0] * x.dims[2] * x.dims[3];
      k->c = op.ints[0];
      k->hw = x.dims[1] / op.ints[0];
      k->to_nhwc = true;
      break;
    case XnnOpKind::kTranspose:
      for (std::size_t i = 0; i < x.rank; ++i) k->perm[i] = op.ints[i];
      break;
    case XnnOpKind::kStridedSlice:
      for (std::size_t i = 0; i < x.rank; ++i) {
        k->start[i] = op.ints[i];
        k->step[i] = op.ints[kXnnMaxRank + i];
      }
      break;
    case XnnOpKind::kBatchMatMul: {
      k->b_desc = &program.slots[op.operands[1]];
      k->b = buffers[op.operands[1]];
      const std::size_t bytes =
          kernels::matmul_scratch_bytes(Span<const std::int64_t>(x.dims, x.rank),
                                        Span<const std::int64_t>(k->b_desc->dims, x.rank));
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
  const SlotDesc& x = *k.a_desc;
  const Span<const std::int64_t> a_shape(x.dims, x.rank);
  switch (k.kind) {
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kChannelShuffle: nchw_to_nhwc(k.a, k.out, k.n, k.c, k.hw); return Error::kOk;
    case XnnOpKind::kNhwcToNchw: nhwc_to_nchw(k.a, k.out, k.n, k.c, k.hw); return Error::kOk;
    case XnnOpKind::kTranspose:
      return kernels::transpose(k.a, a_shape, Span<const std::int64_t>(k.perm, x.rank), k.out);
    case XnnOpKind::kBatchMatMul:
      return kernels::matmul(k.a, a_shape, k.b, Span<const std::int64_t>(k.b_desc->dims, x.rank),
                             k.out, Span<float>(k.scratch, k.scratch_floats));
    case XnnOpKind::kLayerNorm: {
      const std::int64_t cols = x.dims[x.rank - 1];
      return kernels::layer_norm(k.a, x.numel / cols, cols, k.scale, k.bias, k.epsilon, k.out);
    }
    case XnnOpKind::kErf: return kernels::erf(k.a, k.out, x.numel);
    case XnnOpKind::kStridedSlice:
      return kernels::slice(k.a, a_shape, sizeof(float), Span<const std::int64_t>(k.start, x.rank),
                            Span<const std::int64_t>(k.step, x.rank),
                            Span<const std::int64_t>(k.out_desc->dims, x.rank), k.out);
    default: return Error::kInternal;
  }
}

}  // namespace glassbox::backends::xnnpack

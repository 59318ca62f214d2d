#include "backends/xnnpack/runtime/own_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/xnnpack/runtime/layout_transpose.h"
#include "backends/xnnpack/runtime/max_pool_nhwc.h"
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

// Work below this many elements (erf, layer norm) or multiply-adds
// (batch matmul) runs on the calling thread: handing parts to the pool
// costs a few microseconds, about what 64K elements of erf take here.
constexpr std::int64_t kMinParallelWork = 1 << 16;

std::uint32_t parts_for(std::int64_t work, std::int64_t max_parts, std::uint32_t threads) {
  if (threads <= 1 || work < kMinParallelWork) return 1;
  return static_cast<std::uint32_t>(std::min<std::int64_t>(threads, max_parts));
}

// [first, end) of part `p` of `count` items split into `parts`.
void part_range(std::int64_t count, std::uint32_t parts, std::size_t p, std::int64_t* first,
                std::int64_t* end) {
  *first = count * static_cast<std::int64_t>(p) / parts;
  *end = count * static_cast<std::int64_t>(p + 1) / parts;
}

// One part of a run: the kernel's error, if any, is kept (each part
// writes its own slot).
struct PartRun {
  const OwnKernel* kernel;
  Error errors[kMaxOwnKernelParts];
};

void run_erf_part(void* context, std::size_t p) {
  auto* run = static_cast<PartRun*>(context);
  const OwnKernel& k = *run->kernel;
  std::int64_t first = 0, end = 0;
  part_range(k.a_desc->numel, k.parts, p, &first, &end);
  run->errors[p] = kernels::erf(k.a + first, k.out + first, end - first);
}

void run_layer_norm_part(void* context, std::size_t p) {
  auto* run = static_cast<PartRun*>(context);
  const OwnKernel& k = *run->kernel;
  const SlotDesc& x = *k.a_desc;
  const std::int64_t cols = x.dims[x.rank - 1];
  std::int64_t first = 0, end = 0;
  part_range(x.numel / cols, k.parts, p, &first, &end);
  run->errors[p] = kernels::layer_norm(k.a + first * cols, end - first, cols, k.scale, k.bias,
                                       k.epsilon, k.out + first * cols);
}

// The product of a batch matmul operand's dims before its last two (1
// for rank 2); exact when M or K is 0 too.
std::int64_t batch_count(const SlotDesc& a) {
  std::int64_t batches = 1;
  for (std::size_t i = 0; i + 2 < a.rank; ++i) batches *= a.dims[i];
  return batches;
}

// [B, M, K] x [B, K, N] (the batch dims flattened): part p takes a range
// of batches, or of every batch's rows.
void run_batch_matmul_part(void* context, std::size_t p) {
  auto* run = static_cast<PartRun*>(context);
  const OwnKernel& k = *run->kernel;
  const SlotDesc& a = *k.a_desc;
  const std::int64_t m = a.dims[a.rank - 2], kk = a.dims[a.rank - 1];
  const std::int64_t n = k.b_desc->dims[a.rank - 1];
  const std::int64_t batches = batch_count(a);
  const Span<float> scratch(k.scratch + p * k.scratch_floats, k.scratch_floats);
  std::int64_t first = 0, end = 0;
  if (batches >= k.parts) {
    part_range(batches, k.parts, p, &first, &end);
    const std::int64_t a_shape[3] = {end - first, m, kk}, b_shape[3] = {end - first, kk, n};
    run->errors[p] = kernels::matmul(k.a + first * m * kk, a_shape, k.b + first * kk * n, b_shape,
                                     k.out + first * m * n, scratch);
    return;
  }
  part_range(m, k.parts, p, &first, &end);
  const std::int64_t a_shape[2] = {end - first, kk}, b_shape[2] = {kk, n};
  for (std::int64_t b = 0; b < batches && run->errors[p] == Error::kOk; ++b) {
    run->errors[p] = kernels::matmul(k.a + (b * m + first) * kk, a_shape, k.b + b * kk * n, b_shape,
                                     k.out + (b * m + first) * n, scratch);
  }
}

// int8 average pooling over NHWC with qlinear_avg_pool2d's arithmetic:
// the int32 sum of (x - zp) over the window's in-bounds cells, times
// x_scale / (y_scale * divisor) in float, rounded half to even.
void run_q_average_pooling(const OwnKernel& k) {
  const SlotDesc& x = *k.a_desc;
  const SlotDesc& y = *k.out_desc;
  const std::uint32_t* p = k.op->ints;  // pads t r b l, pool h w, stride h w, include pad
  const std::int64_t n = x.dims[0], c = x.dims[1], h = x.dims[2], w = x.dims[3];
  const std::int64_t oh_count = y.dims[2], ow_count = y.dims[3];
  const auto* in = reinterpret_cast<const std::int8_t*>(k.a);
  auto* out = reinterpret_cast<std::int8_t*>(k.out);
  const float ratio = x.scale / y.scale;
  const std::int64_t pad_t = p[0], pad_r = p[1], pad_b = p[2], pad_l = p[3];
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t oh = 0; oh < oh_count; ++oh) {
      const std::int64_t h0 = oh * p[6] - pad_t, h1 = h0 + p[4];
      const std::int64_t ih0 = std::max<std::int64_t>(h0, 0), ih1 = std::min(h1, h);
      const std::int64_t padded_h = std::min(h1, h + pad_b) - std::max(h0, -pad_t);
      for (std::int64_t ow = 0; ow < ow_count; ++ow) {
        const std::int64_t w0 = ow * p[7] - pad_l, w1 = w0 + p[5];
        const std::int64_t iw0 = std::max<std::int64_t>(w0, 0), iw1 = std::min(w1, w);
        const std::int64_t valid =
            std::max<std::int64_t>(0, ih1 - ih0) * std::max<std::int64_t>(0, iw1 - iw0);
        const std::int64_t divisor =
            p[8] != 0 ? padded_h * (std::min(w1, w + pad_r) - std::max(w0, -pad_l)) : valid;
        const float scale = ratio / static_cast<float>(divisor > 0 ? divisor : 1);
        std::int8_t* dst = out + ((b * oh_count + oh) * ow_count + ow) * c;
        for (std::int64_t ch = 0; ch < c; ++ch) {
          std::int32_t sum = 0;
          for (std::int64_t ih = ih0; ih < ih1; ++ih) {
            for (std::int64_t iw = iw0; iw < iw1; ++iw) {
              sum += in[((b * h + ih) * w + iw) * c + ch] - x.zero_point;
            }
          }
          const float q =
              std::nearbyint(static_cast<float>(sum) * scale) + static_cast<float>(y.zero_point);
          dst[ch] = static_cast<std::int8_t>(
              std::clamp(q, static_cast<float>(k.op->qmin), static_cast<float>(k.op->qmax)));
        }
      }
    }
  }
}

Error run_parts(const OwnKernel& k, pthreadpool_t pool, void (*part)(void*, std::size_t)) {
  PartRun run{&k, {}};
  if (k.parts == 1) {
    part(&run, 0);
  } else {
    pthreadpool_parallelize_1d(pool, part, &run, k.parts, 0);
  }
  for (std::uint32_t p = 0; p < k.parts; ++p) {
    if (run.errors[p] != Error::kOk) return run.errors[p];
  }
  return Error::kOk;
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
    case XnnOpKind::kStridedSlice:
    case XnnOpKind::kQuantize:
    case XnnOpKind::kQAveragePooling:
    case XnnOpKind::kQLookupTable:
    case XnnOpKind::kQConcatenate: return true;
    default: return false;
  }
}

ErrorInfo compile_own_kernel(const ParsedProgram& program, std::uint32_t index,
                             float* const* buffers, std::uint32_t threads,
                             runtime::MemoryAllocator* memory, OwnKernel** out) {
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
  k->op = &op;
  k->slots = program.slots;
  k->buffers = buffers;
  switch (op.kind) {
    case XnnOpKind::kQLookupTable: {
      auto* table = memory->allocate_array<std::uint8_t>(256);
      if (table == nullptr) return out_of_memory();
      std::memcpy(table, op.kernel, 256);
      k->table = table;
      break;
    }
    case XnnOpKind::kQConcatenate: {
      const SlotDesc& y = *k->out_desc;
      k->concat = memory->allocate_array<kernels::QuantConcatInput>(op.num_operands);
      k->concat_dims = memory->allocate_array<std::int64_t>(op.num_operands * y.rank);
      if (k->concat == nullptr || k->concat_dims == nullptr) return out_of_memory();
      for (std::uint32_t i = 0; i < op.num_operands; ++i) {
        const SlotDesc& s = program.slots[op.operands[i]];
        std::int64_t* dims = k->concat_dims + i * y.rank;
        SlotDesc sv = s;
        sv.layout = y.layout;  // the parser checked the bytes are in y's order
        for (std::size_t d = 0; d < y.rank; ++d) dims[d] = sv.physical(d);
        k->concat[i] = {{buffers[op.operands[i]], ScalarType::kChar, s.scale, s.zero_point},
                        Span<const std::int64_t>(dims, y.rank)};
      }
      break;
    }
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kNhwcToNchw:
      k->n = x.dims[0];
      k->c = x.dims[1];
      k->hw = x.pixels();  // H * W, or D * H * W (1.8's NDHWC)
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
      const std::int64_t m = x.dims[x.rank - 2], kk = x.dims[x.rank - 1];
      const std::int64_t n = k->b_desc->dims[x.rank - 1];
      const std::int64_t batches = batch_count(x);
      k->parts = parts_for(batches * m * kk * n, std::max(batches, m), threads);
      // Each matmul call of a part is one GEMM of at most this many rows
      // (its batches are separate GEMMs, b having batch dims of its own).
      const std::int64_t part_rows = batches >= k->parts ? m : (m + k->parts - 1) / k->parts;
      const std::size_t bytes = kernels::gemm_scratch_bytes(part_rows, n, kk);
      k->scratch_floats = (bytes + sizeof(float) - 1) / sizeof(float);
      if (k->scratch_floats != 0) {
        k->scratch = memory->allocate_array<float>(k->scratch_floats * k->parts);
        if (k->scratch == nullptr) return out_of_memory();
      }
      break;
    }
    case XnnOpKind::kMaxPooling: {
      const SlotDesc& y = *k->out_desc;
      const std::uint32_t* p = op.ints;  // pads, pool h w, stride h w, dilation
      k->pool =
          MaxPoolShape{x.dims[0], x.dims[2], x.dims[3], x.dims[1], y.dims[2],     y.dims[3],
                       p[4],      p[5],      p[6],      p[7],      op.output_min, op.output_max};
      break;  // one thread only (compile_operator)
    }
    case XnnOpKind::kErf: k->parts = parts_for(x.numel, x.numel, threads); break;
    case XnnOpKind::kLayerNorm:
      k->parts = parts_for(x.numel, x.numel / x.dims[x.rank - 1], threads);
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

Error run_own_kernel(const OwnKernel& k, pthreadpool_t pool) {
  const SlotDesc& x = *k.a_desc;
  const Span<const std::int64_t> a_shape(x.dims, x.rank);
  const auto* a8 = reinterpret_cast<const std::int8_t*>(k.a);
  auto* out8 = reinterpret_cast<std::int8_t*>(k.out);
  switch (k.kind) {
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kChannelShuffle:
      if (x.quantized()) {
        nchw_to_nhwc(a8, out8, k.n, k.c, k.hw);
      } else {
        nchw_to_nhwc(k.a, k.out, k.n, k.c, k.hw);
      }
      return Error::kOk;
    case XnnOpKind::kNhwcToNchw:
      if (x.quantized()) {
        nhwc_to_nchw(a8, out8, k.n, k.c, k.hw);
      } else {
        nhwc_to_nchw(k.a, k.out, k.n, k.c, k.hw);
      }
      return Error::kOk;
    case XnnOpKind::kQuantize: {
      const std::int32_t zero_point = k.out_desc->zero_point;
      const kernels::QuantParams quant{Span<const float>(&k.out_desc->scale, 1),
                                       Span<const std::int32_t>(&zero_point, 1)};
      return kernels::quantize_linear(k.a, a_shape, quant, 0, k.out, ScalarType::kChar).code;
    }
    case XnnOpKind::kQLookupTable:
      return kernels::apply_quant_lut(k.a, x.numel, Span<const std::uint8_t>(k.table, 256), k.out)
          .code;
    case XnnOpKind::kQAveragePooling: run_q_average_pooling(k); return Error::kOk;
    case XnnOpKind::kQConcatenate: {
      const SlotDesc& y = *k.out_desc;
      kernels::QuantOutput out{k.out, ScalarType::kChar, y.scale, y.zero_point, {}};
      return kernels::qlinear_concat(
                 Span<const kernels::QuantConcatInput>(k.concat, k.op->num_operands),
                 static_cast<std::int64_t>(k.op->ints[0]), out)
          .code;
    }
    case XnnOpKind::kTranspose:
      return kernels::transpose(k.a, a_shape, Span<const std::int64_t>(k.perm, x.rank), k.out);
    case XnnOpKind::kBatchMatMul: return run_parts(k, pool, run_batch_matmul_part);
    case XnnOpKind::kLayerNorm: return run_parts(k, pool, run_layer_norm_part);
    case XnnOpKind::kErf: return run_parts(k, pool, run_erf_part);
    case XnnOpKind::kMaxPooling:
      max_pool_nhwc(k.a, k.out, k.pool, 0, k.pool.n * k.pool.out_h);
      return Error::kOk;
    case XnnOpKind::kStridedSlice:
      return kernels::slice(k.a, a_shape, sizeof(float), Span<const std::int64_t>(k.start, x.rank),
                            Span<const std::int64_t>(k.step, x.rank),
                            Span<const std::int64_t>(k.out_desc->dims, x.rank), k.out);
    default: return Error::kInternal;
  }
}

}  // namespace glassbox::backends::xnnpack

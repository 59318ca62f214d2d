#include "backends/onednn/runtime/program_parser.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/onednn/runtime/rnn_layer.h"
#include "glassbox/core/byte_reader.h"

namespace glassbox::backends::onednn {
namespace {

static_assert(std::endian::native == std::endian::little, "the format is little-endian");

ErrorInfo bad(const char* what) { return make_error(Error::kCorruptData, what); }

bool read_dims(ByteReader& in, DnnSlot* s) {
  if (!in.read(&s->rank) || s->rank == 0 || s->rank > kDnnMaxRank) return false;
  s->numel = 1;
  for (std::uint8_t i = 0; i < s->rank; ++i) {
    if (!in.read(&s->dims[i]) || s->dims[i] <= 0 || s->dims[i] > kDnnMaxSlotElements) return false;
    s->numel *= s->dims[i];
    if (s->numel > kDnnMaxSlotElements) return false;
  }
  return true;
}

// The data type and quantization after a descriptor's dims (format 1.3
// on; f32 before).
bool read_quant(ByteReader& in, std::uint16_t minor, DnnSlot* s) {
  if (minor < kDnnFirstInt8Minor) return true;
  std::uint8_t type = 0;
  if (!in.read(&type) || type > kDnnMaxDataType) return false;
  s->type = static_cast<DnnDataType>(type);
  if (!dnn_is_quantized(s->type)) return true;
  if (!in.read(&s->scale) || !in.read(&s->zero_point)) return false;
  if (!std::isfinite(s->scale) || !(s->scale > 0)) return false;
  const std::int32_t lo = s->type == DnnDataType::kS8 ? -128 : 0;
  const std::int32_t hi = s->type == DnnDataType::kS8 ? 127 : 255;
  return s->zero_point >= lo && s->zero_point <= hi;
}

bool is_f32(const DnnSlot& s) { return s.type == DnnDataType::kF32; }
bool is_q(const DnnSlot& s) { return dnn_is_quantized(s.type); }
bool same_quant(const DnnSlot& a, const DnnSlot& b) {
  return a.type == b.type && a.scale == b.scale && a.zero_point == b.zero_point;
}

// Kinds that read and write f32 only.
bool f32_only(DnnOpKind kind) {
  switch (kind) {
    case DnnOpKind::kPooling:
    case DnnOpKind::kReshape:
    case DnnOpKind::kReorder:
    case DnnOpKind::kQuantize:
    case DnnOpKind::kDequantize:
    case DnnOpKind::kQConvolution:
    case DnnOpKind::kQMatmul:
    case DnnOpKind::kQBinary:
    case DnnOpKind::kQClamp:
    case DnnOpKind::kQGlobalAvgPool: return false;
    default: return true;
  }
}

// The weights, bias and output scales of a kQConvolution or kQMatmul:
// constants of types s8, s32 and f32 with `n` biases and scales, the
// scales finite and > 0.
bool quantized_weights_ok(const DnnParsedProgram& program, const DnnParsedOp& op, std::int64_t n) {
  const DnnSlot* slots = program.slots;
  for (std::uint32_t k = 1; k < 4; ++k) {
    if (!program.is_constant(op.operands[k])) return false;
  }
  const DnnSlot& w = slots[op.operands[1]];
  const DnnSlot& b = slots[op.operands[2]];
  const DnnSlot& scales = slots[op.operands[3]];
  if (w.type != DnnDataType::kS8 || w.zero_point != 0 || b.type != DnnDataType::kS32 ||
      scales.type != DnnDataType::kF32 || b.rank != 1 || scales.rank != 1 || b.dims[0] != n ||
      scales.dims[0] != n) {
    return false;
  }
  const std::uint8_t* data = program.constant_data[op.operands[3] - program.num_inputs];
  for (std::int64_t i = 0; i < n; ++i) {
    float v = 0;
    std::memcpy(&v, data + 4 * i, 4);
    if (!std::isfinite(v) || !(v > 0)) return false;
  }
  return true;
}

bool same_dims(const DnnSlot& a, const DnnSlot& b) {
  if (a.rank != b.rank) return false;
  for (std::size_t i = 0; i < a.rank; ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

// Ints before the post-ops, and whether the kind has post-ops.
struct IntShape {
  std::uint32_t fixed;
  bool post_ops;
};

// Spatial dims of a convolution or pooling over a source of `src_rank`:
// 3 for [N,C,D,H,W] (since 1.5), else 2.
std::uint32_t spatial_dims(std::uint32_t src_rank) { return src_rank == 5 ? 3 : 2; }

// `src_rank`: the rank of the operator's first operand (a convolution's
// and a pooling's ints are per spatial dim).
IntShape int_shape(DnnOpKind kind, std::uint32_t src_rank) {
  switch (kind) {
    case DnnOpKind::kConvolution: return {4 * spatial_dims(src_rank) + 2, true};
    case DnnOpKind::kMatmul: return {0, true};
    case DnnOpKind::kPooling: return {1 + 5 * spatial_dims(src_rank), false};
    case DnnOpKind::kEltwise: return {0, true};
    case DnnOpKind::kBinary: return {1, true};
    case DnnOpKind::kSoftmax:
    case DnnOpKind::kConcat:
    case DnnOpKind::kReorder: return {1, false};
    case DnnOpKind::kReshape:
    case DnnOpKind::kLayerNorm: return {0, false};
    case DnnOpKind::kBatchMatmul: return {0, true};
    case DnnOpKind::kTranspose:                 // one int per dim, checked in check_op
    case DnnOpKind::kSlice: return {0, false};  // two per dim, checked in check_op
    case DnnOpKind::kQuantize:
    case DnnOpKind::kDequantize: return {0, false};
    case DnnOpKind::kQConvolution: return {10, true};
    case DnnOpKind::kQMatmul: return {0, true};
    case DnnOpKind::kQBinary: return {3, false};
    case DnnOpKind::kQClamp: return {2, false};
    case DnnOpKind::kQGlobalAvgPool: return {0, false};
    case DnnOpKind::kRnn: return {kDnnRnnInts, false};
    case DnnOpKind::kRnnState: return {1, false};
  }
  return {0, false};
}

ErrorInfo read_post_ops(DnnParsedOp* op, std::uint32_t fixed) {
  if (op->num_ints <= fixed) return bad("onednn program: post-op count missing");
  const std::int64_t k = op->ints[fixed];
  if (k < 0 || k > kDnnMaxEltwiseSteps || op->num_ints != fixed + 1 + k ||
      op->num_floats != 2 * k) {
    return bad("onednn program: post-op counts do not match");
  }
  op->num_steps = static_cast<std::uint32_t>(k);
  op->first_step = fixed + 1;
  for (std::uint32_t i = 0; i < op->num_steps; ++i) {
    const std::int64_t alg = op->ints[op->first_step + i];
    if (alg < 1 || alg > kDnnMaxEltwise) return bad("onednn program: unknown eltwise algorithm");
    if (!std::isfinite(op->floats[2 * i]) || !std::isfinite(op->floats[2 * i + 1])) {
      return bad("onednn program: eltwise alpha or beta not finite");
    }
  }
  if (op->kind == DnnOpKind::kEltwise && k == 0)
    return bad("onednn program: eltwise without a step");
  return kOk;
}

// Output extent of a sliding window; 0 when the window does not fit.
std::int64_t window_out(std::int64_t in, std::int64_t pad_a, std::int64_t pad_b,
                        std::int64_t kernel, std::int64_t stride, std::int64_t dilation) {
  const std::int64_t span = dilation * (kernel - 1) + 1;
  const std::int64_t padded = in + pad_a + pad_b;
  if (padded < span) return 0;
  return (padded - span) / stride + 1;
}

// Checks `op` against its operand slots; `out` must be the output its kind
// implies.
ErrorInfo check_op(const DnnParsedProgram& program, const DnnParsedOp& op, const DnnSlot& out) {
  const DnnSlot* slots = program.slots;
  const DnnSlot& x = slots[op.operands[0]];
  const std::int64_t* p = op.ints;
  const IntShape shape = int_shape(op.kind, x.rank);
  // kQBinary's and kQClamp's ints are clamp bounds, checked below.
  if (op.kind != DnnOpKind::kQBinary && op.kind != DnnOpKind::kQClamp) {
    for (std::uint32_t i = 0; i < shape.fixed; ++i) {
      if (p[i] < 0 || p[i] > kDnnMaxParam) return bad("onednn program: parameter out of range");
    }
  }
  if (f32_only(op.kind)) {
    bool ok = is_f32(out);
    for (std::uint32_t k = 0; ok && k < op.num_operands; ++k) ok = is_f32(slots[op.operands[k]]);
    if (!ok) return bad("onednn program: a float operator with an int8 operand or output");
  }
  switch (op.kind) {
    case DnnOpKind::kPooling:
    case DnnOpKind::kReshape:
    case DnnOpKind::kReorder:
      // f32 in and out, or an int8 source whose type and quantization the
      // output keeps.
      if (op.num_operands < 1 || (is_q(x) ? !same_quant(x, out) : !(is_f32(x) && is_f32(out)))) {
        return bad("onednn program: pooling, reshape or reorder changes the data type");
      }
      break;
    default: break;
  }
  switch (op.kind) {
    case DnnOpKind::kRnn: return check_rnn_op(program, op, out);
    case DnnOpKind::kRnnState: return check_rnn_state_op(program, op, out);
    case DnnOpKind::kQuantize:
    case DnnOpKind::kDequantize: {
      const bool quantize = op.kind == DnnOpKind::kQuantize;
      if (op.num_operands != 1 || !same_dims(x, out) ||
          (quantize ? !(is_f32(x) && is_q(out)) : !(is_q(x) && is_f32(out)))) {
        return bad("onednn program: quantize or dequantize types or shape");
      }
      return kOk;
    }
    case DnnOpKind::kQConvolution: {
      if (op.num_operands != 4 || p[9] != 0) {
        return bad("onednn program: int8 convolution operand count");
      }
      const DnnSlot& wt = slots[op.operands[1]];
      const std::int64_t groups = p[8];
      if (!is_q(x) || !is_q(out) || x.rank != 4 || wt.rank != 4 || groups < 1 || p[0] < 1 ||
          p[1] < 1 || p[2] < 1 || p[3] < 1 || x.dims[1] % groups != 0 || wt.dims[0] % groups != 0 ||
          wt.dims[1] * groups != x.dims[1] || !quantized_weights_ok(program, op, wt.dims[0])) {
        return bad("onednn program: int8 convolution weights, bias or scales do not match");
      }
      const std::int64_t oh = window_out(x.dims[2], p[4], p[6], wt.dims[2], p[0], p[2]);
      const std::int64_t ow = window_out(x.dims[3], p[5], p[7], wt.dims[3], p[1], p[3]);
      if (out.rank != 4 || out.dims[0] != x.dims[0] || out.dims[1] != wt.dims[0] ||
          out.dims[2] != oh || out.dims[3] != ow) {
        return bad("onednn program: convolution output shape does not match");
      }
      return kOk;
    }
    case DnnOpKind::kQMatmul: {
      if (op.num_operands != 4) return bad("onednn program: int8 matmul operand count");
      const DnnSlot& w = slots[op.operands[1]];
      bool ok = is_q(x) && is_q(out) && x.rank >= 2 && w.rank == 2 &&
                x.dims[x.rank - 1] == w.dims[0] && out.rank == x.rank &&
                out.dims[out.rank - 1] == w.dims[1] && quantized_weights_ok(program, op, w.dims[1]);
      for (std::size_t i = 0; ok && i + 1 < x.rank; ++i) ok = out.dims[i] == x.dims[i];
      return ok ? kOk : bad("onednn program: int8 matmul shapes, types or scales do not match");
    }
    case DnnOpKind::kQBinary: {
      const DnnSlot& y = slots[op.operands[op.num_operands > 1 ? 1 : 0]];
      const std::int64_t lo = out.type == DnnDataType::kS8 ? -128 : 0;
      const std::int64_t hi = out.type == DnnDataType::kS8 ? 127 : 255;
      if (op.num_operands != 2 || !is_q(x) || !is_q(y) || !is_q(out) || !same_dims(x, out) ||
          !same_dims(y, out) ||
          (p[0] != static_cast<std::int64_t>(DnnBinary::kAdd) &&
           p[0] != static_cast<std::int64_t>(DnnBinary::kMul)) ||
          p[1] < lo || p[2] > hi || p[1] > p[2]) {
        return bad("onednn program: int8 binary operands, algorithm or clamp");
      }
      return kOk;
    }
    case DnnOpKind::kQClamp: {
      const std::int64_t lo = out.type == DnnDataType::kS8 ? -128 : 0;
      const std::int64_t hi = out.type == DnnDataType::kS8 ? 127 : 255;
      bool ok = (op.num_operands == 1 || op.num_operands == 2) && is_q(x) && is_q(out) &&
                same_dims(x, out) && p[0] >= lo && p[1] <= hi && p[0] <= p[1];
      if (ok && op.num_operands == 1) ok = same_quant(x, out);
      if (ok && op.num_operands == 2) {
        // A u8 table of 256 entries, each inside [min, max] read as the
        // output's type.
        const DnnSlot& t = slots[op.operands[1]];
        ok = program.is_constant(op.operands[1]) && t.type == DnnDataType::kU8 && t.rank == 1 &&
             t.dims[0] == 256;
        const std::uint8_t* table =
            ok ? program.constant_data[op.operands[1] - program.num_inputs] : nullptr;
        for (int i = 0; ok && i < 256; ++i) {
          const std::int64_t v = out.type == DnnDataType::kS8
                                     ? static_cast<std::int64_t>(static_cast<std::int8_t>(table[i]))
                                     : static_cast<std::int64_t>(table[i]);
          ok = v >= p[0] && v <= p[1];
        }
      }
      return ok ? kOk : bad("onednn program: int8 clamp operands, types, table or bounds");
    }
    case DnnOpKind::kQGlobalAvgPool:
      if (op.num_operands != 1 || !is_q(x) || x.rank != 4 || out.type != x.type || out.rank != 4 ||
          out.dims[0] != x.dims[0] || out.dims[1] != x.dims[1] || out.dims[2] != 1 ||
          out.dims[3] != 1 || x.dims[2] * x.dims[3] > (1 << 24)) {
        return bad("onednn program: int8 global average pool types or shape");
      }
      return kOk;
    case DnnOpKind::kConvolution: {
      // per spatial dim (n: 2, or 3 over [N,C,D,H,W]): strides, dilations,
      // pads begin, pads end; then groups, has_sum
      const std::uint32_t n = spatial_dims(x.rank);
      const std::int64_t groups = p[4 * n], has_sum = p[4 * n + 1];
      if (op.num_operands != 3 + static_cast<std::uint32_t>(has_sum != 0) || has_sum > 1) {
        return bad("onednn program: convolution operand count");
      }
      const DnnSlot& w = slots[op.operands[1]];
      const DnnSlot& b = slots[op.operands[2]];
      bool ok = (x.rank == 4 || x.rank == 5) && w.rank == x.rank && b.rank == 1 && groups >= 1 &&
                program.is_constant(op.operands[1]) && program.is_constant(op.operands[2]) &&
                x.dims[1] % groups == 0 && w.dims[0] % groups == 0 &&
                w.dims[1] * groups == x.dims[1] && b.dims[0] == w.dims[0];
      for (std::uint32_t k = 0; ok && k < 2 * n; ++k) ok = p[k] >= 1;  // strides, dilations
      if (!ok) return bad("onednn program: convolution weights do not match its input");
      ok = out.rank == x.rank && out.dims[0] == x.dims[0] && out.dims[1] == w.dims[0];
      for (std::uint32_t k = 0; ok && k < n; ++k) {
        ok = out.dims[2 + k] ==
             window_out(x.dims[2 + k], p[2 * n + k], p[3 * n + k], w.dims[2 + k], p[k], p[n + k]);
      }
      if (!ok) return bad("onednn program: convolution output shape does not match");
      if (has_sum != 0 && !same_dims(slots[op.operands[3]], out)) {
        return bad("onednn program: convolution sum operand shape does not match");
      }
      return kOk;
    }
    case DnnOpKind::kMatmul: {
      // A fourth operand is the sum (the residual the result is added to).
      if (op.num_operands != 3 && op.num_operands != 4) {
        return bad("onednn program: matmul operand count");
      }
      if (op.num_operands == 4 && !same_dims(slots[op.operands[3]], out)) {
        return bad("onednn program: matmul sum operand shape does not match");
      }
      const DnnSlot& w = slots[op.operands[1]];
      const DnnSlot& b = slots[op.operands[2]];
      bool ok = x.rank >= 2 && w.rank == 2 && b.rank == 1 && program.is_constant(op.operands[1]) &&
                program.is_constant(op.operands[2]) && x.dims[x.rank - 1] == w.dims[0] &&
                b.dims[0] == w.dims[1] && out.rank == x.rank && out.dims[out.rank - 1] == w.dims[1];
      for (std::size_t i = 0; ok && i + 1 < x.rank; ++i) ok = out.dims[i] == x.dims[i];
      return ok ? kOk : bad("onednn program: matmul shapes do not match");
    }
    case DnnOpKind::kPooling: {
      // algorithm, then per spatial dim (n: 2, or 3 over [N,C,D,H,W]):
      // kernels, strides, dilations, pads begin, pads end
      const std::uint32_t n = spatial_dims(x.rank);
      bool ok = op.num_operands == 1 && (x.rank == 4 || x.rank == 5) && p[0] <= 2;
      for (std::uint32_t k = 1; ok && k <= 3 * n; ++k) ok = p[k] >= 1;
      if (!ok) return bad("onednn program: pooling parameters");
      ok = out.rank == x.rank && out.dims[0] == x.dims[0] && out.dims[1] == x.dims[1];
      for (std::uint32_t k = 0; ok && k < n; ++k) {
        ok = out.dims[2 + k] == window_out(x.dims[2 + k], p[1 + 3 * n + k], p[1 + 4 * n + k],
                                           p[1 + k], p[1 + n + k], p[1 + 2 * n + k]);
      }
      if (!ok) return bad("onednn program: pooling output shape does not match");
      return kOk;
    }
    case DnnOpKind::kEltwise:
    case DnnOpKind::kReorder:
      if (op.num_operands != 1 || !same_dims(x, out) ||
          (op.kind == DnnOpKind::kReorder && p[0] > 1)) {
        return bad("onednn program: eltwise or reorder shape does not match");
      }
      return kOk;
    case DnnOpKind::kSoftmax:
      if (op.num_operands != 1 || !same_dims(x, out) || p[0] >= x.rank) {
        return bad("onednn program: softmax shape or axis");
      }
      return kOk;
    case DnnOpKind::kReshape:
      if (op.num_operands != 1 || x.numel != out.numel) {
        return bad("onednn program: reshape changes the element count");
      }
      return kOk;
    case DnnOpKind::kLayerNorm: {
      if (op.num_operands != 3 || !same_dims(x, out) || !(op.floats[0] > 0) ||
          !std::isfinite(op.floats[0])) {
        return bad("onednn program: layer norm shape or eps");
      }
      for (std::uint32_t k = 1; k < 3; ++k) {
        const DnnSlot& s = slots[op.operands[k]];
        if (!program.is_constant(op.operands[k]) || s.rank != 1 ||
            s.dims[0] != x.dims[x.rank - 1]) {
          return bad("onednn program: layer norm scale or shift does not match");
        }
      }
      return kOk;
    }
    case DnnOpKind::kBatchMatmul: {
      if (op.num_operands != 2) return bad("onednn program: batch matmul operand count");
      const DnnSlot& y = slots[op.operands[1]];
      if (x.rank < 2 || y.rank < 2 || out.rank != std::max(x.rank, y.rank) ||
          x.dims[x.rank - 1] != y.dims[y.rank - 2] ||
          out.dims[out.rank - 2] != x.dims[x.rank - 2] ||
          out.dims[out.rank - 1] != y.dims[y.rank - 1]) {
        return bad("onednn program: batch matmul shapes do not match");
      }
      for (std::size_t i = 2; i < out.rank; ++i) {  // batch dims, from the right
        const std::int64_t a = i < x.rank ? x.dims[x.rank - 1 - i] : 1;
        const std::int64_t b = i < y.rank ? y.dims[y.rank - 1 - i] : 1;
        if ((a != b && a != 1 && b != 1) || out.dims[out.rank - 1 - i] != std::max(a, b)) {
          return bad("onednn program: batch matmul batch dims do not broadcast");
        }
      }
      return kOk;
    }
    case DnnOpKind::kTranspose: {
      if (op.num_operands != 1 || op.num_ints != x.rank || out.rank != x.rank) {
        return bad("onednn program: transpose permutation does not match its input");
      }
      std::uint32_t seen = 0;
      for (std::uint32_t i = 0; i < x.rank; ++i) {
        if (p[i] < 0 || p[i] >= static_cast<std::int64_t>(x.rank) || (seen >> p[i] & 1u) != 0 ||
            out.dims[i] != x.dims[p[i]]) {
          return bad("onednn program: transpose permutation does not match its input");
        }
        seen |= 1u << p[i];
      }
      return kOk;
    }
    case DnnOpKind::kSlice: {
      if (op.num_operands != 1 || op.num_ints != 2 * x.rank || out.rank != x.rank) {
        return bad("onednn program: slice parameters do not match its input");
      }
      for (std::uint32_t i = 0; i < x.rank; ++i) {
        const std::int64_t start = p[i], step = p[x.rank + i];
        // The last index read, start + (size - 1) * step, inside the dim
        // (every operand is bounded by kDnnMaxParam: no overflow).
        if (start < 0 || step < 1 || start > kDnnMaxParam || step > kDnnMaxParam ||
            start + (out.dims[i] - 1) * step >= x.dims[i]) {
          return bad("onednn program: slice reads outside its input");
        }
      }
      return kOk;
    }
    case DnnOpKind::kBinary: {
      if (op.num_operands != 2 || p[0] > 5 || !same_dims(x, out)) {
        return bad("onednn program: binary shapes do not match");
      }
      const DnnSlot& y = slots[op.operands[1]];
      if (y.rank > x.rank) return bad("onednn program: binary operand of higher rank");
      for (std::size_t i = 0; i < y.rank; ++i) {
        const std::int64_t d = y.dims[y.rank - 1 - i];
        if (d != 1 && d != x.dims[x.rank - 1 - i]) {
          return bad("onednn program: binary operand does not broadcast");
        }
      }
      return kOk;
    }
    case DnnOpKind::kConcat: {
      const std::int64_t axis = p[0];
      if (op.num_operands == 0 || axis >= out.rank) return bad("onednn program: concat axis");
      std::int64_t total = 0;
      for (std::uint32_t i = 0; i < op.num_operands; ++i) {
        const DnnSlot& s = slots[op.operands[i]];
        if (s.rank != out.rank) return bad("onednn program: concat operand rank");
        for (std::int64_t d = 0; d < out.rank; ++d) {
          if (d != axis && s.dims[d] != out.dims[d]) {
            return bad("onednn program: concat operands differ off the axis");
          }
        }
        total += s.dims[axis];
      }
      return total == out.dims[axis] ? kOk : bad("onednn program: concat size does not match");
    }
  }
  return bad("onednn program: unknown operator kind");
}

ErrorInfo read_identifier(ByteReader& in, runtime::MemoryAllocator* memory, DnnParsedOp* op) {
  std::uint8_t tag = 0;
  if (!in.read(&tag)) return bad("onednn program: truncated operator identifier");
  if (tag == static_cast<std::uint8_t>(DnnIdentifierTag::kInt)) {
    std::int64_t id = 0;
    if (!in.read(&id) || id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
      return bad("onednn program: int identifier missing or out of range");
    }
    op->int_id = DelegateDebugIntId(static_cast<std::int32_t>(id));
    return kOk;
  }
  if (tag != static_cast<std::uint8_t>(DnnIdentifierTag::kString)) {
    return bad("onednn program: unknown identifier tag");
  }
  std::uint32_t length = 0;
  const std::uint8_t* text = nullptr;
  if (!in.read(&length) || length == 0 || length > kDnnMaxIdentifierBytes ||
      (text = in.take(length)) == nullptr) {
    return bad("onednn program: string identifier missing, too long or truncated");
  }
  if (std::memchr(text, 0, length) != nullptr) return bad("onednn program: NUL in identifier");
  auto* name = static_cast<char*>(memory->allocate(length + 1, 1));
  if (name == nullptr) return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  std::memcpy(name, text, length);
  name[length] = '\0';
  op->name = name;
  return kOk;
}

ErrorInfo read_op(ByteReader& in, runtime::MemoryAllocator* memory, DnnParsedProgram* program,
                  std::uint32_t index, std::uint16_t minor, std::int64_t* total) {
  DnnParsedOp* op = &program->ops[index];
  const std::uint32_t defined = program->first_op_slot() + index;
  std::uint8_t kind = 0;
  if (!in.read(&kind) || kind == 0 || kind > kDnnMaxOpKind) {
    return bad("onednn program: unknown operator kind");
  }
  op->kind = static_cast<DnnOpKind>(kind);
  if ((op->kind == DnnOpKind::kQClamp || op->kind == DnnOpKind::kQGlobalAvgPool) &&
      minor < kDnnFirstQClampMinor) {
    return bad("onednn program: operator kind newer than the format version");
  }
  if ((op->kind == DnnOpKind::kRnn || op->kind == DnnOpKind::kRnnState) &&
      minor < kDnnFirstRnnMinor) {
    return bad("onednn program: operator kind newer than the format version");
  }
  if (ErrorInfo e = read_identifier(in, memory, op); e.code != Error::kOk) return e;
  std::uint8_t count = 0;
  if (!in.read(&count) || count == 0 || count > kDnnMaxOperands) {
    return bad("onednn program: operand count out of range");
  }
  auto* operands = memory->allocate_array<std::uint32_t>(count);
  if (operands == nullptr)
    return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  for (std::uint8_t i = 0; i < count; ++i) {
    // SSA: only slots defined before this operator.
    if (!in.read(&operands[i]) || operands[i] >= defined) {
      return bad("onednn program: operand slot not defined before its operator");
    }
  }
  op->num_operands = count;
  op->operands = operands;
  DnnSlot& out = program->slots[defined];
  if (!read_dims(in, &out) || !read_quant(in, minor, &out)) {
    return bad("onednn program: bad output descriptor");
  }
  *total += out.numel;
  if (*total > kDnnMaxTotalElements) return bad("onednn program: tensors too large in total");
  std::uint8_t num_ints = 0, num_floats = 0;
  if (!in.read(&num_ints) || num_ints > kDnnMaxInts) return bad("onednn program: too many ints");
  op->num_ints = num_ints;
  for (std::uint32_t i = 0; i < num_ints; ++i) {
    if (!in.read(&op->ints[i])) return bad("onednn program: truncated ints");
  }
  if (!in.read(&num_floats) || num_floats > kDnnMaxFloats) {
    return bad("onednn program: too many floats");
  }
  op->num_floats = num_floats;
  for (std::uint32_t i = 0; i < num_floats; ++i) {
    if (!in.read(&op->floats[i])) return bad("onednn program: truncated floats");
  }
  const std::uint32_t src_rank = program->slots[op->operands[0]].rank;
  if ((op->kind == DnnOpKind::kConvolution || op->kind == DnnOpKind::kPooling) && src_rank == 5 &&
      minor < kDnnFirstVolumeMinor) {
    return bad("onednn program: 3-D convolution or pooling newer than the format version");
  }
  const IntShape shape = int_shape(op->kind, src_rank);
  if (shape.post_ops) {
    if (ErrorInfo e = read_post_ops(op, shape.fixed); e.code != Error::kOk) return e;
  } else if ((op->kind != DnnOpKind::kTranspose && op->kind != DnnOpKind::kSlice &&
              op->num_ints != shape.fixed) ||
             op->num_floats != (op->kind == DnnOpKind::kLayerNorm ? 1u : 0u)) {
    return bad("onednn program: parameter count does not match the operator");
  }
  return check_op(*program, *op, out);
}

}  // namespace

Result<DnnParsedProgram*> parse_dnn_program(Span<const std::uint8_t> blob,
                                            runtime::MemoryAllocator* memory) {
  ByteReader in(blob);
  char magic[4] = {};
  std::uint16_t major = 0, minor = 0;
  auto* program = memory->allocate_array<DnnParsedProgram>(1);
  if (program == nullptr)
    return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  if (!in.read(magic, 4) || std::memcmp(magic, kDnnMagic, 4) != 0) {
    return bad("onednn program: bad magic (not a oneDNN delegate blob)");
  }
  if (!in.read(&major) || !in.read(&minor)) return bad("onednn program: truncated header");
  if (major != kDnnFormatMajor || minor > kDnnFormatMinor) {
    return make_error(Error::kVersionMismatch, "onednn program: unsupported format version");
  }
  if (!in.read(&program->num_inputs) || !in.read(&program->num_outputs) ||
      !in.read(&program->num_constants) || !in.read(&program->num_ops)) {
    return bad("onednn program: truncated header");
  }
  if (program->num_inputs == 0 || program->num_inputs > kDnnMaxDelegateIo ||
      program->num_outputs == 0 || program->num_outputs > kDnnMaxDelegateIo ||
      program->num_ops == 0 || program->num_ops > kDnnMaxOps ||
      program->num_constants > kDnnMaxConstants) {
    return bad("onednn program: input, output, constant or operator count out of range");
  }
  program->slots = memory->allocate_array<DnnSlot>(program->num_slots());
  program->ops = memory->allocate_array<DnnParsedOp>(program->num_ops);
  program->outputs = memory->allocate_array<std::uint32_t>(program->num_outputs);
  program->constant_data = memory->allocate_array<const std::uint8_t*>(
      program->num_constants == 0 ? 1 : program->num_constants);
  if (program->slots == nullptr || program->ops == nullptr || program->outputs == nullptr ||
      program->constant_data == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "onednn: out of memory");
  }
  std::int64_t total = 0;
  for (std::uint32_t i = 0; i < program->num_inputs; ++i) {
    if (!read_dims(in, &program->slots[i]) || !read_quant(in, minor, &program->slots[i])) {
      return bad("onednn program: bad input descriptor");
    }
    total += program->slots[i].numel;
  }
  for (std::uint32_t k = 0; k < program->num_constants; ++k) {
    DnnSlot& s = program->slots[program->num_inputs + k];
    if (!read_dims(in, &s) || !read_quant(in, minor, &s)) {
      return bad("onednn program: bad constant descriptor");
    }
    total += s.numel;
    if (total > kDnnMaxTotalElements) return bad("onednn program: tensors too large in total");
    const std::size_t pad = (4 - (blob.size() - in.remaining()) % 4) % 4;
    const std::uint8_t* zeros = in.take(pad);
    const std::uint8_t* data = zeros == nullptr ? nullptr : in.take(s.bytes());
    if (data == nullptr) return bad("onednn program: truncated constant data");
    program->constant_data[k] = data;
  }
  for (std::uint32_t i = 0; i < program->num_ops; ++i) {
    if (ErrorInfo e = read_op(in, memory, program, i, minor, &total); e.code != Error::kOk)
      return e;
  }
  for (std::uint32_t i = 0; i < program->num_outputs; ++i) {
    if (!in.read(&program->outputs[i]) || program->outputs[i] < program->first_op_slot() ||
        program->outputs[i] >= program->num_slots()) {
      return bad("onednn program: output slot is not an operator's");
    }
  }
  if (!in.at_end()) return bad("onednn program: trailing bytes");
  return program;
}

}  // namespace glassbox::backends::onednn

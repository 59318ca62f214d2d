#include "backends/xnnpack/runtime/program_parser.h"

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "backends/xnnpack/runtime/recurrent_layer.h"
#include "glassbox/core/byte_reader.h"

namespace glassbox::backends::xnnpack {
namespace {

ErrorInfo bad(const char* what) { return make_error(Error::kCorruptData, what); }

bool read_desc(ByteReader& in, std::uint16_t minor, SlotDesc* d) {
  std::uint8_t layout = 0;
  if (!in.read(&d->rank) || !in.read(&layout) || d->rank == 0 || d->rank > kXnnMaxRank ||
      layout > static_cast<std::uint8_t>(XnnLayout::kNhwc)) {
    return false;
  }
  d->layout = static_cast<XnnLayout>(layout);
  // kNhwc: 4-D, or 1.8's 5-D NDHWC.
  if (d->layout == XnnLayout::kNhwc && d->rank != 4 && !(d->rank == 5 && minor >= kXnnVideoMinor)) {
    return false;
  }
  d->numel = 1;
  for (std::uint8_t i = 0; i < d->rank; ++i) {
    if (!in.read(&d->dims[i]) || d->dims[i] <= 0 || d->dims[i] > kMaxSlotElements) return false;
    d->numel *= d->dims[i];
    if (d->numel > kMaxSlotElements) return false;
  }
  if (minor < kXnnQuantMinor) return true;
  std::uint8_t dtype = 0;
  if (!in.read(&dtype) || dtype > static_cast<std::uint8_t>(XnnDType::kQu8)) return false;
  d->dtype = static_cast<XnnDType>(dtype);
  if (!d->quantized()) return true;
  // NaN fails the comparison too.
  return in.read(&d->scale) && in.read(&d->zero_point) && d->scale > 0 && std::isfinite(d->scale) &&
         d->zero_point >= -128 && d->zero_point <= 127;
}

bool same_quantization(const SlotDesc& a, const SlotDesc& b) {
  return a.dtype == b.dtype && a.scale == b.scale && a.zero_point == b.zero_point;
}

bool is_quantized_kind(XnnOpKind kind) {
  return static_cast<std::uint8_t>(kind) >= static_cast<std::uint8_t>(XnnOpKind::kQuantize) &&
         kind <= XnnOpKind::kQCopy;
}

// Element types: float kinds read and write f32; quantized kinds
// quantized slots (kQuantize and kDequantize convert); layout conversions
// keep their input's type and quantization, as do kQMaxPooling and kQCopy.
ErrorInfo check_dtypes(const ParsedOp& op, const SlotDesc* slots, const SlotDesc& out) {
  const SlotDesc& x = slots[op.operands[0]];
  switch (op.kind) {
    case XnnOpKind::kQuantize:
      if (x.quantized() || !out.quantized()) break;
      return kOk;
    case XnnOpKind::kDequantize:
      if (!x.quantized() || out.quantized()) break;
      return kOk;
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kNhwcToNchw:
    case XnnOpKind::kQMaxPooling:
    case XnnOpKind::kQCopy:
      if (!same_quantization(x, out) || (op.kind != XnnOpKind::kNchwToNhwc &&
                                         op.kind != XnnOpKind::kNhwcToNchw && !x.quantized())) {
        break;
      }
      return kOk;
    default: {
      const bool quantized = is_quantized_kind(op.kind);
      if (out.quantized() != quantized) break;
      for (std::uint32_t i = 0; i < op.num_operands; ++i) {
        if (slots[op.operands[i]].quantized() != quantized) {
          return bad("xnnpack program: operand element type wrong for the operator");
        }
      }
      return kOk;
    }
  }
  return bad("xnnpack program: operand element type wrong for the operator");
}

// The float kind whose shape rule a quantized kind follows.
XnnOpKind shape_kind(XnnOpKind kind) {
  switch (kind) {
    case XnnOpKind::kQConvolution: return XnnOpKind::kConvolution;
    case XnnOpKind::kQFullyConnected: return XnnOpKind::kFullyConnected;
    case XnnOpKind::kQAdd: return XnnOpKind::kAdd;
    case XnnOpKind::kQMultiply: return XnnOpKind::kMultiply;
    case XnnOpKind::kQMaxPooling: return XnnOpKind::kMaxPooling;
    case XnnOpKind::kQAveragePooling: return XnnOpKind::kAveragePooling;
    case XnnOpKind::kQGlobalAveragePooling: return XnnOpKind::kGlobalAveragePooling;
    case XnnOpKind::kQuantize:
    case XnnOpKind::kDequantize:
    case XnnOpKind::kQLookupTable: return XnnOpKind::kClamp;
    case XnnOpKind::kQConcatenate: return XnnOpKind::kConcatenate;
    case XnnOpKind::kQCopy: return XnnOpKind::kCopy;
    default: return kind;
  }
}

// Whether `d`'s bytes are in `layout` order: the same layout, or a 4-D
// or 5-D tensor whose permutation only moves size-1 dimensions (C == 1,
// or one pixel).
bool readable_as(const SlotDesc& d, XnnLayout layout) {
  if (d.layout == layout) return true;
  if (d.rank != 4 && d.rank != 5) return false;
  std::int64_t pixels = 1;
  for (std::size_t i = 2; i < d.rank; ++i) pixels *= d.dims[i];
  return d.dims[1] == 1 || pixels == 1;
}

// A slot kNhwc may order: 4-D (NHWC) or 5-D (NDHWC).
bool spatial_rank(const SlotDesc& d) { return d.rank == 4 || d.rank == 5; }

bool same_dims(const SlotDesc& a, const std::int64_t* dims, std::size_t rank) {
  if (a.rank != rank) return false;
  for (std::size_t i = 0; i < rank; ++i) {
    if (a.dims[i] != dims[i]) return false;
  }
  return true;
}

// How many u32 params and f32 values (besides weights) each kind has.
struct ParamShape {
  std::uint32_t ints;
  bool has_range;               // f32 output_min, output_max
  bool has_scalar;              // one f32 (alpha, slope, pad value)
  bool has_qrange = false;      // i32 qmin, qmax (1.6)
  bool has_zero_point = false;  // i32 after the scalar (1.6's kDequantize)
};

ParamShape param_shape(XnnOpKind kind) {
  switch (kind) {
    case XnnOpKind::kConvolution: return {13, true, false};
    case XnnOpKind::kDeconvolution: return {15, true, false};
    case XnnOpKind::kConvolution3d: return {kXnnConv3dInts, true, false};
    case XnnOpKind::kFullyConnected: return {2, true, false};
    case XnnOpKind::kMaxPooling: return {10, true, false};
    case XnnOpKind::kAveragePooling: return {8, true, false};
    case XnnOpKind::kGlobalAveragePooling:
    case XnnOpKind::kMeanLastAxis:
    case XnnOpKind::kAdd:
    case XnnOpKind::kSubtract:
    case XnnOpKind::kMultiply:
    case XnnOpKind::kDivide:
    case XnnOpKind::kClamp: return {0, true, false};
    case XnnOpKind::kConcatenate:
    case XnnOpKind::kPrelu:
    case XnnOpKind::kDepthToSpace:
    case XnnOpKind::kResizeBilinear: return {1, false, false};
    case XnnOpKind::kConstantPad: return {2 * kXnnPadRank, false, true};
    case XnnOpKind::kSlice: return {2, false, false};
    case XnnOpKind::kChannelShuffle: return {1, false, false};
    case XnnOpKind::kTranspose: return {kXnnMaxRank, false, false};
    case XnnOpKind::kStridedSlice: return {2 * kXnnMaxRank, false, false};
    case XnnOpKind::kLayerNorm: return {1, false, true};
    case XnnOpKind::kElu:
    case XnnOpKind::kLeakyRelu: return {0, false, true};
    case XnnOpKind::kHardswish:
    case XnnOpKind::kSigmoid:
    case XnnOpKind::kSoftmax:
    case XnnOpKind::kCopy:
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kNhwcToNchw:
    case XnnOpKind::kAbs:
    case XnnOpKind::kBankersRounding:
    case XnnOpKind::kCeiling:
    case XnnOpKind::kFloor:
    case XnnOpKind::kNegate:
    case XnnOpKind::kSquare:
    case XnnOpKind::kSquareRoot:
    case XnnOpKind::kMaximum:
    case XnnOpKind::kMinimum:
    case XnnOpKind::kBatchMatMul:
    case XnnOpKind::kErf:
    case XnnOpKind::kQuantize:
    case XnnOpKind::kQLookupTable:
    case XnnOpKind::kQCopy: return {0, false, false};
    case XnnOpKind::kDequantize: return {0, false, true, false, true};
    case XnnOpKind::kQConvolution: return {13, false, false, true};
    case XnnOpKind::kQFullyConnected: return {2, false, false, true};
    case XnnOpKind::kQAdd:
    case XnnOpKind::kQMultiply:
    case XnnOpKind::kQGlobalAveragePooling: return {0, false, false, true};
    case XnnOpKind::kQMaxPooling: return {10, false, false, true};
    case XnnOpKind::kQAveragePooling: return {9, false, false, true};
    case XnnOpKind::kQConcatenate: return {1, false, false};
    case XnnOpKind::kRecurrent: return {kXnnRecurrentInts, false, true};
    case XnnOpKind::kRecurrentState: return {1, false, false};
  }
  return {0, false, false};
}

std::uint32_t operand_count(XnnOpKind kind) {
  switch (kind) {
    case XnnOpKind::kAdd:
    case XnnOpKind::kSubtract:
    case XnnOpKind::kMultiply:
    case XnnOpKind::kDivide:
    case XnnOpKind::kMaximum:
    case XnnOpKind::kMinimum:
    case XnnOpKind::kBatchMatMul:
    case XnnOpKind::kQAdd:
    case XnnOpKind::kQMultiply: return 2;
    case XnnOpKind::kConcatenate:
    case XnnOpKind::kQConcatenate:
    case XnnOpKind::kRecurrent: return 0;  // one or more (recurrent: by its cell)
    default: return 1;
  }
}

// Output extent of a sliding window; 0 when the window does not fit.
std::int64_t window_out(std::int64_t in, std::uint32_t pad_a, std::uint32_t pad_b,
                        std::uint32_t kernel, std::uint32_t stride, std::uint32_t dilation) {
  const std::int64_t span = std::int64_t{dilation} * (kernel - 1) + 1;
  const std::int64_t padded = in + pad_a + pad_b;
  if (padded < span) return 0;
  return (padded - span) / stride + 1;
}

// Checks `op`'s params against its input slots and computes the output
// dims it implies into `dims`.
ErrorInfo expected_output(const ParsedOp& op, const SlotDesc* slots, const SlotDesc& out,
                          std::int64_t* dims, std::size_t* rank) {
  const SlotDesc& x = slots[op.operands[0]];
  const std::uint32_t* p = op.ints;
  for (std::uint32_t i = 0; i < op.num_ints; ++i) {
    if (p[i] > kMaxParam) return bad("xnnpack program: operator parameter out of range");
  }
  *rank = x.rank;
  for (std::size_t i = 0; i < x.rank; ++i) dims[i] = x.dims[i];
  if (op.kind == XnnOpKind::kQAveragePooling && p[8] > 1) {
    return bad("xnnpack program: count_include_pad not 0 or 1");
  }
  switch (shape_kind(op.kind)) {
    case XnnOpKind::kConvolution: {
      // pads t r b l, kernel h w, stride h w, dilation h w, groups, gic, goc
      for (int i = 4; i < 13; ++i) {
        if (p[i] == 0) return bad("xnnpack program: zero convolution parameter");
      }
      if (x.rank != 4 || !readable_as(x, XnnLayout::kNhwc) ||
          x.dims[1] != std::int64_t{p[10]} * p[11]) {
        return bad("xnnpack program: convolution input does not match its parameters");
      }
      dims[1] = std::int64_t{p[10]} * p[12];
      dims[2] = window_out(x.dims[2], p[0], p[2], p[4], p[6], p[8]);
      dims[3] = window_out(x.dims[3], p[3], p[1], p[5], p[7], p[9]);
      if (!readable_as(out, XnnLayout::kNhwc))
        return bad("xnnpack program: convolution output not NHWC");
      return kOk;
    }
    case XnnOpKind::kConvolution3d: {
      // pads front back t r b l, kernel d h w, stride d h w, dilation d h
      // w, groups, gic, goc
      for (int i = 6; i < 18; ++i) {
        if (p[i] == 0) return bad("xnnpack program: zero convolution parameter");
      }
      if (x.rank != 5 || !readable_as(x, XnnLayout::kNhwc) ||
          x.dims[1] != std::int64_t{p[15]} * p[16] || out.rank != 5 ||
          !readable_as(out, XnnLayout::kNhwc)) {
        return bad(
            "xnnpack program: 3-D convolution input or output does not match its parameters");
      }
      dims[1] = std::int64_t{p[15]} * p[17];
      dims[2] = window_out(x.dims[2], p[0], p[1], p[6], p[9], p[12]);
      dims[3] = window_out(x.dims[3], p[2], p[4], p[7], p[10], p[13]);
      dims[4] = window_out(x.dims[4], p[5], p[3], p[8], p[11], p[14]);
      return kOk;
    }
    case XnnOpKind::kFullyConnected:
      if (p[0] == 0 || p[1] == 0 || !readable_as(x, XnnLayout::kLogical) ||
          x.dims[x.rank - 1] != p[0] || !readable_as(out, XnnLayout::kLogical)) {
        return bad("xnnpack program: fully connected input does not match its parameters");
      }
      dims[x.rank - 1] = p[1];
      return kOk;
    case XnnOpKind::kMaxPooling:
    case XnnOpKind::kAveragePooling: {
      const bool max_pool = shape_kind(op.kind) == XnnOpKind::kMaxPooling;
      for (std::uint32_t i = 4; i < (max_pool ? 10u : 8u); ++i) {
        if (p[i] == 0) return bad("xnnpack program: zero pooling parameter");
      }
      if (x.rank != 4 || !readable_as(x, XnnLayout::kNhwc) || !readable_as(out, XnnLayout::kNhwc)) {
        return bad("xnnpack program: pooling input or output not 4-D NHWC");
      }
      dims[2] = window_out(x.dims[2], p[0], p[2], p[4], p[6], max_pool ? p[8] : 1);
      dims[3] = window_out(x.dims[3], p[3], p[1], p[5], p[7], max_pool ? p[9] : 1);
      return kOk;
    }
    case XnnOpKind::kGlobalAveragePooling:
      // 1.8: a 5-D NDHWC input too (read_desc refused those before).
      if (!(x.rank == 4 || (x.rank == 5 && op.kind == XnnOpKind::kGlobalAveragePooling)) ||
          !readable_as(x, XnnLayout::kNhwc)) {
        return bad("xnnpack program: global average pooling input not 4-D NHWC or 5-D NDHWC");
      }
      for (std::size_t i = 2; i < x.rank; ++i) dims[i] = 1;
      if (out.rank == 2) *rank = 2;  // 1.1: [N, C], H and W dropped
      return kOk;
    case XnnOpKind::kAdd:
    case XnnOpKind::kSubtract:
    case XnnOpKind::kMultiply:
    case XnnOpKind::kDivide:
    case XnnOpKind::kMaximum:
    case XnnOpKind::kMinimum: {
      const SlotDesc& y = slots[op.operands[1]];
      if (!readable_as(x, out.layout) || !readable_as(y, out.layout) ||
          (out.layout == XnnLayout::kNhwc && (x.rank != y.rank || !spatial_rank(x)))) {
        return bad("xnnpack program: binary operands not in the output's layout");
      }
      *rank = x.rank > y.rank ? x.rank : y.rank;
      for (std::size_t i = 0; i < *rank; ++i) {
        // numpy broadcasting, aligned from the right
        const std::int64_t a = i < x.rank ? x.dims[x.rank - 1 - i] : 1;
        const std::int64_t b = i < y.rank ? y.dims[y.rank - 1 - i] : 1;
        if (a != b && a != 1 && b != 1)
          return bad("xnnpack program: binary shapes do not broadcast");
        dims[*rank - 1 - i] = a == 1 ? b : a;
      }
      return kOk;
    }
    case XnnOpKind::kClamp:
    case XnnOpKind::kHardswish:
    case XnnOpKind::kSigmoid:
    case XnnOpKind::kSoftmax:
    case XnnOpKind::kAbs:
    case XnnOpKind::kBankersRounding:
    case XnnOpKind::kCeiling:
    case XnnOpKind::kFloor:
    case XnnOpKind::kNegate:
    case XnnOpKind::kSquare:
    case XnnOpKind::kSquareRoot:
    case XnnOpKind::kElu:
    case XnnOpKind::kLeakyRelu:
    case XnnOpKind::kErf:
      if (!readable_as(x, out.layout))
        return bad("xnnpack program: unary operand in another layout");
      return kOk;
    case XnnOpKind::kPrelu: {
      SlotDesc xv = x;  // x's dims in the output's byte order
      xv.layout = out.layout;
      if (!readable_as(x, out.layout) || p[0] == 0 || xv.physical(x.rank - 1) != p[0]) {
        return bad("xnnpack program: prelu channels do not match its input");
      }
      return kOk;
    }
    case XnnOpKind::kConstantPad: {
      if (!readable_as(x, out.layout) || out.rank != x.rank) {
        return bad("xnnpack program: pad input not in the output's layout and rank");
      }
      SlotDesc xv = x;
      xv.layout = out.layout;
      for (std::uint32_t i = 0; i < kXnnPadRank; ++i) {
        const std::int64_t pre = p[i], post = p[kXnnPadRank + i];
        if (i >= x.rank ? pre != 0 || post != 0 : xv.physical(i) + pre + post != out.physical(i)) {
          return bad("xnnpack program: pad amounts do not give the output shape");
        }
      }
      for (std::size_t i = 0; i < out.rank; ++i) dims[i] = out.dims[i];
      return kOk;
    }
    case XnnOpKind::kDepthToSpace: {
      const std::int64_t b = p[0];
      if (b < 2 || x.rank != 4 || !readable_as(x, XnnLayout::kNhwc) ||
          !readable_as(out, XnnLayout::kNhwc) || x.dims[1] % (b * b) != 0) {
        return bad("xnnpack program: depth_to_space input or block size wrong");
      }
      dims[1] = x.dims[1] / (b * b);
      dims[2] = x.dims[2] * b;
      dims[3] = x.dims[3] * b;
      return kOk;
    }
    case XnnOpKind::kResizeBilinear:
      if (p[0] > 1 || x.rank != 4 || out.rank != 4 || !readable_as(x, XnnLayout::kNhwc) ||
          !readable_as(out, XnnLayout::kNhwc)) {
        return bad("xnnpack program: resize input, output or flag wrong");
      }
      dims[2] = out.dims[2];
      dims[3] = out.dims[3];
      return kOk;
    case XnnOpKind::kDeconvolution: {
      // as kConvolution, then adjustment h, w
      for (int i = 4; i < 13; ++i) {
        if (p[i] == 0) return bad("xnnpack program: zero deconvolution parameter");
      }
      if (x.rank != 4 || !readable_as(x, XnnLayout::kNhwc) || !readable_as(out, XnnLayout::kNhwc) ||
          x.dims[1] != std::int64_t{p[10]} * p[11] || p[13] >= p[6] || p[14] >= p[7]) {
        return bad("xnnpack program: deconvolution input does not match its parameters");
      }
      dims[1] = std::int64_t{p[10]} * p[12];
      for (int i = 0; i < 2; ++i) {
        const std::int64_t full = std::int64_t{p[6 + i]} * (x.dims[2 + i] - 1) + p[13 + i] +
                                  std::int64_t{p[8 + i]} * (p[4 + i] - 1) + 1;
        // pads: top + bottom for H, right + left for W
        const std::int64_t pads = i == 0 ? std::int64_t{p[0]} + p[2] : std::int64_t{p[1]} + p[3];
        if (full <= pads) return bad("xnnpack program: deconvolution output would be empty");
        dims[2 + i] = full - pads;
      }
      return kOk;
    }
    case XnnOpKind::kMeanLastAxis:
      if (!readable_as(x, XnnLayout::kLogical) || !readable_as(out, XnnLayout::kLogical)) {
        return bad("xnnpack program: mean operand not in logical order");
      }
      if (out.rank == x.rank) {
        dims[x.rank - 1] = 1;
      } else if (out.rank + 1 == x.rank) {
        *rank = out.rank;
      } else {
        return bad("xnnpack program: mean output rank wrong");
      }
      return kOk;
    case XnnOpKind::kCopy:
      // 1.3: an identity (same dims, same layout) may be NHWC.
      if (same_dims(x, out.dims, out.rank) && x.layout == out.layout) return kOk;
      if (!readable_as(x, XnnLayout::kLogical) || !readable_as(out, XnnLayout::kLogical) ||
          out.numel != x.numel) {
        return bad("xnnpack program: copy (reshape) changes the element count or layout");
      }
      *rank = out.rank;
      for (std::size_t i = 0; i < out.rank; ++i) dims[i] = out.dims[i];
      return kOk;
    case XnnOpKind::kNchwToNhwc:
    case XnnOpKind::kNhwcToNchw: {
      const bool to_nhwc = op.kind == XnnOpKind::kNchwToNhwc;
      if (!spatial_rank(x) || x.layout != (to_nhwc ? XnnLayout::kLogical : XnnLayout::kNhwc) ||
          out.layout != (to_nhwc ? XnnLayout::kNhwc : XnnLayout::kLogical)) {
        return bad("xnnpack program: layout conversion between wrong layouts");
      }
      return kOk;
    }
    case XnnOpKind::kSlice: {
      // Same rank and layout; along the axis [start, start + out) of the input.
      const std::uint32_t axis = p[0];
      if (out.rank != x.rank || !readable_as(x, out.layout) || axis >= x.rank) {
        return bad("xnnpack program: slice input rank, layout or axis wrong");
      }
      SlotDesc xv = x;
      xv.layout = out.layout;
      for (std::size_t d = 0; d < x.rank; ++d) {
        if (d == axis ? std::int64_t{p[1]} + out.physical(d) > xv.physical(d)
                      : out.physical(d) != xv.physical(d)) {
          return bad("xnnpack program: slice reads outside its input");
        }
      }
      for (std::size_t i = 0; i < out.rank; ++i) dims[i] = out.dims[i];
      return kOk;
    }
    case XnnOpKind::kStridedSlice: {
      // Same rank, logical; every index the output reaches lies in x.
      if (out.rank != x.rank || !readable_as(x, XnnLayout::kLogical) ||
          !readable_as(out, XnnLayout::kLogical)) {
        return bad("xnnpack program: strided slice rank or layout wrong");
      }
      const std::uint32_t* start = p;
      const std::uint32_t* step = p + kXnnMaxRank;
      for (std::size_t d = 0; d < kXnnMaxRank; ++d) {
        if (d >= x.rank ? start[d] != 0 || step[d] != 0
                        : step[d] == 0 ||
                              (out.dims[d] > 0 &&
                               std::int64_t{start[d]} + (out.dims[d] - 1) * std::int64_t{step[d]} >=
                                   x.dims[d])) {
          return bad("xnnpack program: strided slice reads outside its input");
        }
      }
      for (std::size_t i = 0; i < out.rank; ++i) dims[i] = out.dims[i];
      return kOk;
    }
    case XnnOpKind::kTranspose: {
      if (!readable_as(x, XnnLayout::kLogical) || !readable_as(out, XnnLayout::kLogical)) {
        return bad("xnnpack program: transpose operand not in logical order");
      }
      bool seen[kXnnMaxRank] = {};
      for (std::size_t i = 0; i < kXnnMaxRank; ++i) {
        if (i >= x.rank ? p[i] != 0 : p[i] >= x.rank || seen[p[i]]) {
          return bad("xnnpack program: transpose perm is not a permutation of the input's dims");
        }
        if (i < x.rank) {
          seen[p[i]] = true;
          dims[i] = x.dims[p[i]];
        }
      }
      return kOk;
    }
    case XnnOpKind::kBatchMatMul: {
      const SlotDesc& b = slots[op.operands[1]];
      const std::size_t r = x.rank;
      if (r < 2 || b.rank != r || !readable_as(x, XnnLayout::kLogical) ||
          !readable_as(b, XnnLayout::kLogical) || !readable_as(out, XnnLayout::kLogical) ||
          x.dims[r - 1] != b.dims[r - 2]) {
        return bad("xnnpack program: batch matmul operands do not multiply");
      }
      for (std::size_t i = 0; i + 2 < r; ++i) {
        if (x.dims[i] != b.dims[i]) return bad("xnnpack program: batch matmul batch dims differ");
      }
      dims[r - 1] = b.dims[r - 1];
      return kOk;
    }
    case XnnOpKind::kLayerNorm:
      if (!readable_as(x, XnnLayout::kLogical) || !readable_as(out, XnnLayout::kLogical) ||
          p[0] == 0 || x.dims[x.rank - 1] != p[0] || !(op.scalar >= 0)) {
        return bad("xnnpack program: layer norm channels or epsilon do not match its input");
      }
      return kOk;
    case XnnOpKind::kChannelShuffle:
      if (x.rank != 4 || x.layout != XnnLayout::kNhwc || out.layout != XnnLayout::kNhwc ||
          p[0] == 0 || x.dims[1] % p[0] != 0) {
        return bad("xnnpack program: channel shuffle input or groups wrong");
      }
      return kOk;
    case XnnOpKind::kConcatenate: {
      const std::uint32_t axis = p[0];
      if (axis >= out.rank) return bad("xnnpack program: concatenation axis out of range");
      std::int64_t total = 0;
      for (std::uint32_t i = 0; i < op.num_operands; ++i) {
        const SlotDesc& s = slots[op.operands[i]];
        if (s.rank != out.rank || !readable_as(s, out.layout)) {
          return bad("xnnpack program: concatenation operand rank or layout mismatch");
        }
        for (std::size_t d = 0; d < out.rank; ++d) {
          if (d != axis && s.physical(d) != out.physical(d)) {
            return bad("xnnpack program: concatenation operands differ off the axis");
          }
        }
        total += s.physical(axis);
      }
      if (total != out.physical(axis)) return bad("xnnpack program: concatenation size mismatch");
      *rank = out.rank;
      for (std::size_t i = 0; i < out.rank; ++i) dims[i] = out.dims[i];
      return kOk;
    }
    case XnnOpKind::kQuantize:
    case XnnOpKind::kDequantize:
    case XnnOpKind::kQConvolution:
    case XnnOpKind::kQFullyConnected:
    case XnnOpKind::kQAdd:
    case XnnOpKind::kQMultiply:
    case XnnOpKind::kQMaxPooling:
    case XnnOpKind::kQAveragePooling:
    case XnnOpKind::kQGlobalAveragePooling:
    case XnnOpKind::kQLookupTable:
    case XnnOpKind::kQConcatenate:
    case XnnOpKind::kQCopy: break;  // shape_kind() gave their float twin
    case XnnOpKind::kRecurrent: return recurrent_output_shape(op, slots, dims, rank);
    case XnnOpKind::kRecurrentState: break;  // read_op: it needs the program's ops
  }
  return bad("xnnpack program: unknown operator kind");
}

ErrorInfo read_identifier(ByteReader& in, runtime::MemoryAllocator* memory, ParsedOp* op) {
  std::uint8_t tag = 0;
  if (!in.read(&tag)) return bad("xnnpack program: truncated operator identifier");
  if (tag == static_cast<std::uint8_t>(XnnIdentifierTag::kInt)) {
    std::int64_t id = 0;
    if (!in.read(&id) || id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
      return bad("xnnpack program: int identifier missing or out of range");
    }
    op->int_id = DelegateDebugIntId(static_cast<std::int32_t>(id));
    return kOk;
  }
  if (tag != static_cast<std::uint8_t>(XnnIdentifierTag::kString)) {
    return bad("xnnpack program: unknown identifier tag");
  }
  std::uint32_t length = 0;
  const std::uint8_t* text = nullptr;
  if (!in.read(&length) || length == 0 || length > kXnnMaxIdentifierBytes ||
      (text = in.take(length)) == nullptr) {
    return bad("xnnpack program: string identifier missing, too long or truncated");
  }
  if (std::memchr(text, 0, length) != nullptr) return bad("xnnpack program: NUL in identifier");
  auto* name = static_cast<char*>(memory->allocate(length + 1, 1));
  if (name == nullptr) return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  std::memcpy(name, text, length);
  name[length] = '\0';
  op->name = name;
  return kOk;
}

// a * b * ..., false on u64 overflow.
bool checked_product(std::initializer_list<std::uint64_t> factors, std::uint64_t* out) {
  std::uint64_t n = 1;
  for (std::uint64_t f : factors) {
    if (__builtin_mul_overflow(n, f, &n)) return false;
  }
  *out = n;
  return true;
}

ErrorInfo read_params(ByteReader& in, ParsedOp* op) {
  std::uint32_t size = 0;
  if (!in.read(&size) || size > in.remaining()) return bad("xnnpack program: truncated params");
  const ParamShape shape = param_shape(op->kind);
  const std::uint64_t fixed = 4ull * shape.ints + (shape.has_range ? 8u : 0u) +
                              (shape.has_scalar ? 4u : 0u) + (shape.has_qrange ? 8u : 0u) +
                              (shape.has_zero_point ? 4u : 0u);
  if (size < fixed) return bad("xnnpack program: params too short for the operator");
  op->num_ints = shape.ints;
  for (std::uint32_t i = 0; i < shape.ints; ++i) (void)in.read(&op->ints[i]);
  if (shape.has_range) {
    (void)in.read(&op->output_min);
    (void)in.read(&op->output_max);
    // NaN fails the comparison too.
    if (!(op->output_min <= op->output_max)) return bad("xnnpack program: bad output range");
  }
  if (shape.has_qrange) {
    (void)in.read(&op->qmin);
    (void)in.read(&op->qmax);
    if (op->qmin < -128 || op->qmax > 127 || op->qmin > op->qmax) {
      return bad("xnnpack program: bad quantized output range");
    }
  }
  if (shape.has_scalar) {
    (void)in.read(&op->scalar);
    if (!std::isfinite(op->scalar) || (op->kind == XnnOpKind::kElu && !(op->scalar > 0)) ||
        (op->kind == XnnOpKind::kLayerNorm && !(op->scalar >= 0)) ||
        (op->kind == XnnOpKind::kDequantize && !(op->scalar > 0))) {
      return bad("xnnpack program: bad alpha, slope, pad value, epsilon or scale");
    }
  }
  if (shape.has_zero_point) {
    (void)in.read(&op->zero_point);
    if (op->zero_point < -128 || op->zero_point > 127) {
      return bad("xnnpack program: dequantize zero point out of int8 range");
    }
  }
  for (std::uint32_t i = 0; i < shape.ints; ++i) {
    if (op->ints[i] > kMaxParam) return bad("xnnpack program: operator parameter out of range");
  }
  std::uint64_t weights = 0, bias = 0;
  const std::uint32_t* p = op->ints;
  bool fits = true;
  if (op->kind == XnnOpKind::kConvolution || op->kind == XnnOpKind::kDeconvolution) {
    bias = std::uint64_t{p[10]} * p[12];
    fits = checked_product({bias, p[4], p[5], p[11]}, &weights);
  } else if (op->kind == XnnOpKind::kConvolution3d) {
    bias = std::uint64_t{p[15]} * p[17];
    fits = checked_product({bias, p[6], p[7], p[8], p[16]}, &weights);
  } else if (op->kind == XnnOpKind::kFullyConnected) {
    bias = p[1];
    weights = std::uint64_t{p[0]} * p[1];
  } else if (op->kind == XnnOpKind::kPrelu) {
    weights = p[0];
  } else if (op->kind == XnnOpKind::kLayerNorm) {
    weights = p[0];  // scale
    bias = p[0];
  } else if (op->kind == XnnOpKind::kRecurrent) {
    fits = recurrent_weight_counts(p, &weights, &bias);  // w and r, b
  }
  if (op->kind == XnnOpKind::kQConvolution || op->kind == XnnOpKind::kQFullyConnected ||
      op->kind == XnnOpKind::kQLookupTable) {
    // f32 scales and i32 bias (bias of each), then one byte per weight.
    std::uint64_t channels = 0;
    if (op->kind == XnnOpKind::kQConvolution) {
      channels = std::uint64_t{p[10]} * p[12];
      fits = checked_product({channels, p[4], p[5], p[11]}, &weights);
    } else if (op->kind == XnnOpKind::kQFullyConnected) {
      channels = p[1];
      weights = std::uint64_t{p[0]} * p[1];
    } else {
      weights = 256;
    }
    if (!fits || channels > (size - fixed) / 8 || weights > size - fixed ||
        fixed + 8 * channels + weights != size) {
      return bad("xnnpack program: params size does not match the operator's weights");
    }
    op->bias_count = static_cast<std::size_t>(channels);
    op->weight_count = static_cast<std::size_t>(weights);
    op->kernel_scales = in.take(static_cast<std::size_t>(4 * channels));
    op->bias = in.take(static_cast<std::size_t>(4 * channels));
    op->kernel = in.take(static_cast<std::size_t>(weights));
    for (std::size_t c = 0; c < op->bias_count; ++c) {
      float scale = 0;
      std::memcpy(&scale, op->kernel_scales + 4 * c, sizeof(scale));
      if (!(scale > 0) || !std::isfinite(scale)) {
        return bad("xnnpack program: kernel scale not positive and finite");
      }
    }
    return kOk;
  }
  // The division keeps the check itself from overflowing.
  if (!fits || weights > (size - fixed) / 4 || bias > (size - fixed) / 4 ||
      fixed + 4 * (weights + bias) != size) {
    return bad("xnnpack program: params size does not match the operator's weights");
  }
  op->weight_count = static_cast<std::size_t>(weights);
  op->bias_count = static_cast<std::size_t>(bias);
  op->kernel = in.take(static_cast<std::size_t>(4 * weights));
  op->bias = in.take(static_cast<std::size_t>(4 * bias));
  return kOk;
}

ErrorInfo read_op(ByteReader& in, runtime::MemoryAllocator* memory, ParsedProgram* program,
                  std::uint32_t index) {
  ParsedOp* op = &program->ops[index];
  const std::uint32_t defined = program->first_op_slot() + index;
  std::uint8_t kind = 0;
  if (!in.read(&kind) || kind == 0 || kind > kXnnMaxOpKind) {
    return bad("xnnpack program: unknown operator kind");
  }
  op->kind = static_cast<XnnOpKind>(kind);
  if (op->kind == XnnOpKind::kConvolution3d && program->minor < kXnnVideoMinor) {
    return bad("xnnpack program: operator kind newer than the blob's version");
  }
  const ErrorInfo id = read_identifier(in, memory, op);
  if (id.code != Error::kOk) return id;
  std::uint8_t count = 0;
  const std::uint32_t expected = operand_count(op->kind);
  if (!in.read(&count) || count == 0 || count > kMaxOperands ||
      (expected != 0 && count != expected)) {
    return bad("xnnpack program: wrong operand count for the operator");
  }
  auto* operands = memory->allocate_array<std::uint32_t>(count);
  if (operands == nullptr)
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  for (std::uint8_t i = 0; i < count; ++i) {
    if (!in.read(&operands[i]) || operands[i] >= defined) {
      return bad("xnnpack program: operand slot not yet defined");
    }
  }
  op->num_operands = count;
  op->operands = operands;
  SlotDesc& out = program->slots[defined];
  if (!read_desc(in, program->minor, &out)) {
    return bad("xnnpack program: bad output tensor descriptor");
  }
  const ErrorInfo params = read_params(in, op);
  if (params.code != Error::kOk) return params;
  std::int64_t dims[kXnnMaxRank] = {};
  std::size_t rank = 0;
  const ErrorInfo shape = op->kind == XnnOpKind::kRecurrentState
                              ? recurrent_state_shape(*program, index, dims, &rank)
                              : expected_output(*op, program->slots, out, dims, &rank);
  if (shape.code != Error::kOk) return shape;
  if (!same_dims(out, dims, rank)) {
    return bad("xnnpack program: output descriptor differs from the operator's output shape");
  }
  const ErrorInfo dtypes = check_dtypes(*op, program->slots, out);
  if (dtypes.code != Error::kOk) return dtypes;
  program->total_elements += out.numel;
  if (program->total_elements > kMaxTotalElements) {
    return bad("xnnpack program: tensors exceed the size limit");
  }
  return kOk;
}

}  // namespace

std::int64_t SlotDesc::physical(std::size_t i) const {
  if (layout != XnnLayout::kNhwc) return dims[i];
  // N (D) H W C: the channels move last.
  if (i == 0) return dims[0];
  return i + 1 == rank ? dims[1] : dims[i + 1];
}

Result<ParsedProgram*> parse_xnn_program(Span<const std::uint8_t> blob,
                                         runtime::MemoryAllocator* memory) {
  ByteReader in(blob);
  char magic[4];
  std::uint16_t major = 0, minor = 0;
  const std::size_t blob_size = blob.size();
  std::uint32_t flags = 0;
  if (!in.read(magic, 4) || std::memcmp(magic, kXnnMagic, 4) != 0) {
    return bad("xnnpack program: bad magic (not an XnnpackBackend blob)");
  }
  if (!in.read(&major) || !in.read(&minor) || major != kXnnFormatMajor || minor > kXnnFormatMinor) {
    return make_error(Error::kVersionMismatch, "xnnpack program: unsupported format version");
  }
  auto* program = memory->allocate_array<ParsedProgram>(1);
  if (program == nullptr)
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  program->minor = minor;
  // Each op takes at least kind + tag + i64 id + count + slot + 1-D desc
  // + params size: a bound that keeps a corrupt count from allocating.
  constexpr std::size_t kMinOpBytes = 1 + 1 + 8 + 1 + 4 + 2 + 8 + 4;
  constexpr std::size_t kMinDescBytes = 2 + 8;
  if (!in.read(&program->num_inputs) || !in.read(&program->num_outputs) ||
      !in.read(&program->num_ops) || !in.read(&flags) || flags != 0 || program->num_inputs == 0 ||
      program->num_outputs == 0 || program->num_ops == 0 || program->num_ops > kMaxOps ||
      program->num_ops > in.remaining() / kMinOpBytes ||
      program->num_inputs > in.remaining() / kMinDescBytes ||
      program->num_outputs > in.remaining() / 4) {
    return bad("xnnpack program: bad header counts or flags");
  }
  // The constant count follows the input descriptors, and sizes the slot
  // array those are read into: look ahead for it.
  if (minor >= kXnnConstantsMinor) {
    ByteReader ahead = in;
    SlotDesc skipped;
    for (std::uint32_t i = 0; i < program->num_inputs; ++i) {
      if (!read_desc(ahead, minor, &skipped))
        return bad("xnnpack program: bad input tensor descriptor");
    }
    // Each constant takes at least a 1-D descriptor and one f32.
    constexpr std::size_t kMinConstantBytes = kMinDescBytes + 4;
    if (!ahead.read(&program->num_constants) || program->num_constants > kMaxConstants ||
        program->num_constants > ahead.remaining() / kMinConstantBytes) {
      return bad("xnnpack program: bad constant count");
    }
  }
  program->slots = memory->allocate_array<SlotDesc>(program->num_slots());
  program->ops = memory->allocate_array<ParsedOp>(program->num_ops);
  program->outputs = memory->allocate_array<std::uint32_t>(program->num_outputs);
  program->constant_data = memory->allocate_array<const std::uint8_t*>(
      program->num_constants > 0 ? program->num_constants : 1);
  if (program->slots == nullptr || program->ops == nullptr || program->outputs == nullptr ||
      program->constant_data == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  }
  for (std::uint32_t i = 0; i < program->num_inputs; ++i) {
    SlotDesc& d = program->slots[i];
    if (!read_desc(in, minor, &d) || d.layout != XnnLayout::kLogical) {
      return bad("xnnpack program: bad input tensor descriptor");
    }
    program->total_elements += d.numel;
  }
  if (minor >= kXnnConstantsMinor) {
    std::uint32_t count = 0;
    (void)in.read(&count);  // read ahead above
    for (std::uint32_t k = 0; k < program->num_constants; ++k) {
      SlotDesc& d = program->slots[program->num_inputs + k];
      if (!read_desc(in, minor, &d) || d.quantized()) {
        return bad("xnnpack program: bad constant tensor descriptor");
      }
      const std::size_t padding = (4 - (blob_size - in.remaining()) % 4) % 4;
      const std::uint8_t* pad = in.take(padding);
      if (pad == nullptr || (padding > 0 && std::memcmp(pad, "\0\0\0", padding) != 0)) {
        return bad("xnnpack program: constant padding truncated or not zero");
      }
      // numel <= kMaxSlotElements, so the byte count cannot overflow.
      program->constant_data[k] = in.take(static_cast<std::size_t>(d.numel) * sizeof(float));
      if (program->constant_data[k] == nullptr) return bad("xnnpack program: truncated constant");
      program->total_elements += d.numel;
      if (program->total_elements > kMaxTotalElements) {
        return bad("xnnpack program: tensors exceed the size limit");
      }
    }
  }
  for (std::uint32_t i = 0; i < program->num_ops; ++i) {
    const ErrorInfo e = read_op(in, memory, program, i);
    if (e.code != Error::kOk) return e;
  }
  for (std::uint32_t i = 0; i < program->num_outputs; ++i) {
    std::uint32_t& slot = program->outputs[i];
    // A constant is no delegate output (the AOT half never makes one).
    if (!in.read(&slot) || slot >= program->num_slots() ||
        (slot >= program->num_inputs && slot < program->first_op_slot()) ||
        !readable_as(program->slots[slot], XnnLayout::kLogical)) {
      return bad("xnnpack program: bad output slot");
    }
  }
  if (in.remaining() != 0) return bad("xnnpack program: trailing bytes");
  return program;
}

}  // namespace glassbox::backends::xnnpack

#include "backends/xnnpack/runtime/xnn_operators.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "backends/xnnpack/runtime/aligned_copy.h"
#include "backends/xnnpack/runtime/channel_blocks.h"
#include "backends/xnnpack/runtime/max_pool_nhwc.h"

namespace glassbox::backends::xnnpack {
namespace {

ErrorInfo from_status(xnn_status status, const char* what_failed) {
  switch (status) {
    case xnn_status_success: return kOk;
    case xnn_status_out_of_memory:
      return make_error(Error::kMemoryAllocationFailed,
                        "xnnpack: out of memory creating an operator");
    case xnn_status_unsupported_parameter:
    case xnn_status_unsupported_hardware: return make_error(Error::kNotSupported, what_failed);
    case xnn_status_uninitialized:
    case xnn_status_invalid_parameter:
    case xnn_status_invalid_state: break;
  }
  return make_error(Error::kInvalidArgument, what_failed);
}

void as_nc(const SlotDesc& d, std::size_t* batch, std::size_t* channels);

// A float convolution's output channels per XNNPACK operator: all of them
// unless it runs on one thread (measured there only; with a pool XNNPACK
// splits the channels between threads itself) and has one group and
// weights beyond L2 (channel_blocks.h).
std::size_t conv_block(const ParsedOp& op, const SlotDesc& out_desc, pthreadpool_t pool) {
  const std::uint32_t* p = op.ints;
  const std::size_t channels = std::size_t{p[10]} * p[12];
  if (p[10] != 1 || pool != nullptr) return channels;
  const auto pixels = static_cast<std::size_t>(out_desc.numel) / channels;
  return channels_per_block(channels, std::size_t{p[4]} * p[5] * p[11] + 1, pixels);
}

// `d`'s dims in the byte order of `layout` (a binary operand is in its
// output's layout).
void byte_order_dims(const SlotDesc& d, XnnLayout layout, std::size_t* dims) {
  SlotDesc view = d;
  view.layout = layout;
  for (std::size_t i = 0; i < d.rank; ++i) dims[i] = static_cast<std::size_t>(view.physical(i));
}

// What the two own convolution kernels' geometries share, from a
// kConvolution's parameters (p[0] pad top, p[3] pad left, p[4..9] kernel,
// stride and dilation, each h then w) and its slots.
template <typename Geometry>
void set_window(const ParsedOp& op, const SlotDesc& x, const SlotDesc& out_desc,
                std::size_t output_pixel_stride, std::size_t out_channels, Geometry* g) {
  const std::uint32_t* p = op.ints;
  g->batch = static_cast<std::size_t>(x.dims[0]);
  g->in_h = static_cast<std::size_t>(x.dims[2]);
  g->in_w = static_cast<std::size_t>(x.dims[3]);
  g->out_h = static_cast<std::size_t>(out_desc.dims[2]);
  g->out_w = static_cast<std::size_t>(out_desc.dims[3]);
  g->pad_top = p[0];
  g->pad_left = p[3];
  g->kernel_h = p[4];
  g->kernel_w = p[5];
  g->stride_h = p[6];
  g->stride_w = p[7];
  g->dilation_h = p[8];
  g->dilation_w = p[9];
  g->out_pixel_stride = output_pixel_stride != 0 ? output_pixel_stride : out_channels;
  g->output_min = op.output_min;
  g->output_max = op.output_max;
}

// The convolution `op` (one group) as conv_igemm.h sees it; a fully
// connected operator is a 1x1 convolution over rows of one pixel (its
// weights, [out][in], are already the 1x1 kernel's layout).
ConvGeometry conv_geometry(const ParsedOp& op, const SlotDesc& x, const SlotDesc& out_desc,
                           std::size_t output_pixel_stride) {
  const std::uint32_t* p = op.ints;
  ConvGeometry g;
  if (op.kind == XnnOpKind::kFullyConnected) {
    g.in_c = p[0];
    g.out_c = p[1];
    g.batch = static_cast<std::size_t>(x.numel) / g.in_c;
    g.in_h = g.in_w = g.out_h = g.out_w = 1;
    g.out_pixel_stride = output_pixel_stride != 0 ? output_pixel_stride : g.out_c;
    g.output_min = op.output_min;
    g.output_max = op.output_max;
    return g;
  }
  g.in_c = p[11];
  g.out_c = p[12];
  set_window(op, x, out_desc, output_pixel_stride, g.out_c, &g);
  return g;
}

// A convolution of one group, or a fully connected operator: the kinds
// conv_igemm.h's kernel may take (conv_igemm_takes decides on the
// geometry).
bool conv_igemm_kind(const ParsedOp& op) {
  return (op.kind == XnnOpKind::kConvolution && op.ints[10] == 1) ||
         op.kind == XnnOpKind::kFullyConnected;
}

// A depthwise convolution (a group per channel, one input and one output
// channel each) runs on dwconv_nhwc.h's kernel on CPUs with AVX-512F.
bool runs_on_dwconv(const ParsedOp& op) {
  return op.kind == XnnOpKind::kConvolution && op.ints[10] > 1 && op.ints[11] == 1 &&
         op.ints[12] == 1 && dwconv_nhwc_available();
}

ErrorInfo compile_dwconv(const ParsedProgram& program, const ParsedOp& op,
                         const float* const* buffers, float* out, const SlotDesc& out_desc,
                         std::size_t output_pixel_stride, runtime::MemoryAllocator* memory,
                         const DwConv** compiled) {
  DwConvGeometry g;
  g.channels = op.ints[10];
  set_window(op, program.slots[op.operands[0]], out_desc, output_pixel_stride, g.channels, &g);
  auto* conv = memory->allocate_array<DwConv>(1);
  auto* packed =
      static_cast<float*>(memory->allocate(dwconv_nhwc_packed_floats(g) * sizeof(float), 64));
  const AlignedCopy kernel(op.kernel, op.weight_count), bias(op.bias, op.bias_count);
  if (conv == nullptr || packed == nullptr || kernel.get() == nullptr || bias.get() == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  }
  dwconv_nhwc_pack(g, kernel.get(), bias.get(), packed);
  *conv = DwConv{g, packed, buffers[op.operands[0]], out};
  *compiled = conv;
  return kOk;
}

// Packs the weights and fills the indirection buffer once, from `memory`.
ErrorInfo compile_conv_igemm(const ConvGeometry& g, const ParsedOp& op, const float* input,
                             float* out, runtime::MemoryAllocator* memory,
                             const ConvIgemm** compiled) {
  auto* conv = memory->allocate_array<ConvIgemm>(1);
  const std::size_t packed_floats = conv_igemm_packed_floats(g);
  auto* packed = static_cast<float*>(memory->allocate(packed_floats * sizeof(float), 64));
  const std::size_t pointers = conv_igemm_indirection_size(g);
  const float** indirection =
      pointers == 0 ? nullptr : memory->allocate_array<const float*>(pointers);
  float* zeros = pointers == 0 ? nullptr : memory->allocate_array<float>(g.in_c);
  const AlignedCopy kernel(op.kernel, op.weight_count), bias(op.bias, op.bias_count);
  if (conv == nullptr || packed == nullptr || kernel.get() == nullptr || bias.get() == nullptr ||
      (pointers != 0 && (indirection == nullptr || zeros == nullptr))) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  }
  conv_igemm_pack(g, kernel.get(), bias.get(), packed);
  if (indirection != nullptr) {
    std::fill_n(zeros, g.in_c, 0.0f);
    conv_igemm_indirect(g, input, zeros, indirection);
  }
  *conv = ConvIgemm{g, packed, indirection, input, out};
  *compiled = conv;
  return kOk;
}

std::int8_t i8(std::int32_t v) { return static_cast<std::int8_t>(v); }

// 1.6's quantized kinds XNNPACK has an operator for: every slot is int8
// (kQu8 ones shifted by 128, see xnnpack_format.h), so the qs8 / qc8
// variants serve uint8 models too.
xnn_status create_and_setup_quantized(const ParsedProgram& program, const ParsedOp& op,
                                      const void* const* in, void* out, const SlotDesc& out_desc,
                                      pthreadpool_t pool, xnn_operator_t* o, const char** what) {
  const SlotDesc& x = program.slots[op.operands[0]];
  const std::uint32_t* p = op.ints;
  const auto* xi = static_cast<const std::int8_t*>(in[0]);
  auto* yi = static_cast<std::int8_t*>(out);
  const std::int8_t lo = i8(op.qmin), hi = i8(op.qmax);
  xnn_status s = xnn_status_success;
  std::size_t batch = 0, channels = 0;
  switch (op.kind) {
    case XnnOpKind::kDequantize:
      *what = "xnnpack: convert qs8 -> f32 rejected by XNNPACK";
      as_nc(x, &batch, &channels);
      s = xnn_create_convert_nc_qs8_f32(channels, channels, channels, op.scalar, i8(op.zero_point),
                                        0, o);
      if (s != xnn_status_success) return s;
      return xnn_setup_convert_nc_qs8_f32(*o, batch, xi, static_cast<float*>(out), pool);
    case XnnOpKind::kQConvolution:
    case XnnOpKind::kQFullyConnected: {
      *what = "xnnpack: int8 convolution parameters rejected by XNNPACK";
      const AlignedCopyOf<float> scales(op.kernel_scales, op.bias_count);
      const AlignedCopyOf<std::int32_t> bias(op.bias, op.bias_count);
      const AlignedCopyOf<std::int8_t> kernel(op.kernel, op.weight_count);
      if (scales.get() == nullptr || bias.get() == nullptr || kernel.get() == nullptr) {
        return xnn_status_out_of_memory;
      }
      if (op.kind == XnnOpKind::kQConvolution) {
        const std::size_t in_channels = std::size_t{p[10]} * p[11];
        const std::size_t out_channels = std::size_t{p[10]} * p[12];
        s = xnn_create_convolution2d_nhwc_qc8(
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12],
            in_channels, out_channels, i8(x.zero_point), x.scale, scales.get(), kernel.get(),
            bias.get(), i8(out_desc.zero_point), out_desc.scale, lo, hi, 0, o);
        if (s != xnn_status_success) return s;
        return xnn_setup_convolution2d_nhwc_qc8(*o, static_cast<std::size_t>(x.dims[0]),
                                                static_cast<std::size_t>(x.dims[2]),
                                                static_cast<std::size_t>(x.dims[3]), xi, yi, pool);
      }
      // XNNPACK 2022's fully connected has no per-channel int8 variant: a
      // 1x1 convolution over [batch, 1, 1, IC] pixels is the same GEMM.
      s = xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, p[0], p[1], p[0], p[1],
                                            i8(x.zero_point), x.scale, scales.get(), kernel.get(),
                                            bias.get(), i8(out_desc.zero_point), out_desc.scale, lo,
                                            hi, 0, o);
      if (s != xnn_status_success) return s;
      return xnn_setup_convolution2d_nhwc_qc8(*o, static_cast<std::size_t>(x.numel) / p[0], 1, 1,
                                              xi, yi, pool);
    }
    case XnnOpKind::kQAdd:
    case XnnOpKind::kQMultiply: {
      *what = "xnnpack: int8 binary operator rejected by XNNPACK";
      const SlotDesc& y = program.slots[op.operands[1]];
      std::size_t xs[kXnnMaxRank], ys[kXnnMaxRank];
      byte_order_dims(x, out_desc.layout, xs);
      byte_order_dims(y, out_desc.layout, ys);
      const auto* b = static_cast<const std::int8_t*>(in[1]);
      if (op.kind == XnnOpKind::kQAdd) {
        s = xnn_create_add_nd_qs8(i8(x.zero_point), x.scale, i8(y.zero_point), y.scale,
                                  i8(out_desc.zero_point), out_desc.scale, lo, hi, 0, o);
        if (s != xnn_status_success) return s;
        return xnn_setup_add_nd_qs8(*o, x.rank, xs, y.rank, ys, xi, b, yi, pool);
      }
      s = xnn_create_multiply_nd_qs8(i8(x.zero_point), x.scale, i8(y.zero_point), y.scale,
                                     i8(out_desc.zero_point), out_desc.scale, lo, hi, 0, o);
      if (s != xnn_status_success) return s;
      return xnn_setup_multiply_nd_qs8(*o, x.rank, xs, y.rank, ys, xi, b, yi, pool);
    }
    case XnnOpKind::kQMaxPooling: {
      *what = "xnnpack: int8 max pooling rejected by XNNPACK";
      const auto c = static_cast<std::size_t>(x.dims[1]);
      s = xnn_create_max_pooling2d_nhwc_s8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                           p[9], c, c, c, lo, hi, 0, o);
      if (s != xnn_status_success) return s;
      return xnn_setup_max_pooling2d_nhwc_s8(*o, static_cast<std::size_t>(x.dims[0]),
                                             static_cast<std::size_t>(x.dims[2]),
                                             static_cast<std::size_t>(x.dims[3]), xi, yi, pool);
    }
    case XnnOpKind::kQGlobalAveragePooling: {
      *what = "xnnpack: int8 global average pooling rejected by XNNPACK";
      const auto c = static_cast<std::size_t>(x.dims[1]);
      s = xnn_create_global_average_pooling_nwc_qs8(c, c, c, i8(x.zero_point), x.scale,
                                                    i8(out_desc.zero_point), out_desc.scale, lo, hi,
                                                    0, o);
      if (s != xnn_status_success) return s;
      return xnn_setup_global_average_pooling_nwc_qs8(
          *o, static_cast<std::size_t>(x.dims[0]), static_cast<std::size_t>(x.dims[2] * x.dims[3]),
          xi, yi, pool);
    }
    case XnnOpKind::kQCopy:
      *what = "xnnpack: int8 copy rejected by XNNPACK";
      as_nc(x, &batch, &channels);
      s = xnn_create_copy_nc_x8(channels, channels, channels, 0, o);
      if (s != xnn_status_success) return s;
      return xnn_setup_copy_nc_x8(*o, batch, xi, yi, pool);
    default: break;
  }
  return xnn_status_invalid_parameter;
}

std::size_t product(const SlotDesc& d, std::size_t from, std::size_t to) {
  std::size_t n = 1;
  for (std::size_t i = from; i < to; ++i) n *= static_cast<std::size_t>(d.physical(i));
  return n;
}

// NC operators see [batch, channels] with the last byte-order dim as
// channels, so threads split the batch.
void as_nc(const SlotDesc& d, std::size_t* batch, std::size_t* channels) {
  *channels = static_cast<std::size_t>(d.physical(d.rank - 1));
  *batch = static_cast<std::size_t>(d.numel) / *channels;
}

// The [batch, channels] elementwise operators added in format 1.1.
xnn_status create_and_setup_nc(const ParsedOp& op, std::size_t channels, std::size_t batch,
                               const float* in, float* out, pthreadpool_t pool, xnn_operator_t* o) {
  const std::size_t c = channels;
  xnn_status s = xnn_status_invalid_parameter;
  switch (op.kind) {
    case XnnOpKind::kAbs:
      s = xnn_create_abs_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s : xnn_setup_abs_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kBankersRounding:
      s = xnn_create_bankers_rounding_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s
                                     : xnn_setup_bankers_rounding_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kCeiling:
      s = xnn_create_ceiling_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s : xnn_setup_ceiling_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kFloor:
      s = xnn_create_floor_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s : xnn_setup_floor_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kNegate:
      s = xnn_create_negate_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s : xnn_setup_negate_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kSquare:
      s = xnn_create_square_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s : xnn_setup_square_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kSquareRoot:
      s = xnn_create_square_root_nc_f32(c, c, c, 0, o);
      return s != xnn_status_success ? s : xnn_setup_square_root_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kElu:
      s = xnn_create_elu_nc_f32(c, c, c, op.scalar, 0, o);
      return s != xnn_status_success ? s : xnn_setup_elu_nc_f32(*o, batch, in, out, pool);
    case XnnOpKind::kLeakyRelu:
      s = xnn_create_leaky_relu_nc_f32(c, c, c, op.scalar, 0, o);
      return s != xnn_status_success ? s : xnn_setup_leaky_relu_nc_f32(*o, batch, in, out, pool);
    default: return s;
  }
}

xnn_status create_and_setup(const ParsedProgram& program, const ParsedOp& op,
                            const float* const* in, float* out, const SlotDesc& out_desc,
                            std::size_t output_pixel_stride, pthreadpool_t pool,
                            xnn_operator_t* ops, std::uint32_t* num_ops, const char** what) {
  *num_ops = 1;
  const SlotDesc& x = program.slots[op.operands[0]];
  const std::uint32_t* p = op.ints;
  const float lo = op.output_min, hi = op.output_max;
  xnn_status s = xnn_status_success;
  std::size_t batch = 0, channels = 0;
  switch (op.kind) {
    case XnnOpKind::kConvolution: {
      *what = "xnnpack: convolution parameters rejected by XNNPACK";
      const AlignedCopy kernel(op.kernel, op.weight_count), bias(op.bias, op.bias_count);
      if (kernel.get() == nullptr || bias.get() == nullptr) return xnn_status_out_of_memory;
      const std::size_t in_channels = std::size_t{p[10]} * p[11];
      const std::size_t out_channels = std::size_t{p[10]} * p[12];
      const std::size_t out_stride = output_pixel_stride != 0 ? output_pixel_stride : out_channels;
      // One operator per block of output channels (channel_blocks.h); with
      // one group a block's kernel rows and biases are contiguous.
      const std::size_t block = conv_block(op, out_desc, pool);
      const std::size_t per_channel = std::size_t{p[4]} * p[5] * p[11];
      *num_ops = 0;
      for (std::size_t first = 0; first < out_channels; first += block) {
        const std::size_t n = std::min(block, out_channels - first);
        const std::size_t group_out = block == out_channels ? p[12] : n;
        s = xnn_create_convolution2d_nhwc_f32(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                              p[9], p[10], p[11], group_out, in_channels,
                                              out_stride, kernel.get() + first * per_channel,
                                              bias.get() + first, lo, hi, 0, &ops[*num_ops]);
        if (s != xnn_status_success) return s;
        ++*num_ops;
        s = xnn_setup_convolution2d_nhwc_f32(ops[*num_ops - 1], static_cast<std::size_t>(x.dims[0]),
                                             static_cast<std::size_t>(x.dims[2]),
                                             static_cast<std::size_t>(x.dims[3]), in[0],
                                             out + first, pool);
        if (s != xnn_status_success) return s;
      }
      return s;
    }
    case XnnOpKind::kFullyConnected: {
      *what = "xnnpack: fully connected parameters rejected by XNNPACK";
      const AlignedCopy kernel(op.kernel, op.weight_count), bias(op.bias, op.bias_count);
      if (kernel.get() == nullptr || bias.get() == nullptr) return xnn_status_out_of_memory;
      s = xnn_create_fully_connected_nc_f32(p[0], p[1], p[0], p[1], kernel.get(), bias.get(), lo,
                                            hi, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_fully_connected_nc_f32(ops[0], static_cast<std::size_t>(x.numel) / p[0],
                                              in[0], out, pool);
    }
    case XnnOpKind::kMaxPooling:
    case XnnOpKind::kAveragePooling: {
      *what = "xnnpack: pooling parameters rejected by XNNPACK";
      const auto c = static_cast<std::size_t>(x.dims[1]);
      if (op.kind == XnnOpKind::kMaxPooling) {
        s = xnn_create_max_pooling2d_nhwc_f32(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                              p[9], c, c, c, lo, hi, 0, &ops[0]);
        if (s != xnn_status_success) return s;
        return xnn_setup_max_pooling2d_nhwc_f32(
            ops[0], static_cast<std::size_t>(x.dims[0]), static_cast<std::size_t>(x.dims[2]),
            static_cast<std::size_t>(x.dims[3]), in[0], out, pool);
      }
      s = xnn_create_average_pooling2d_nhwc_f32(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], c,
                                                c, c, lo, hi, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_average_pooling2d_nhwc_f32(
          ops[0], static_cast<std::size_t>(x.dims[0]), static_cast<std::size_t>(x.dims[2]),
          static_cast<std::size_t>(x.dims[3]), in[0], out, pool);
    }
    case XnnOpKind::kGlobalAveragePooling: {
      *what = "xnnpack: global average pooling rejected by XNNPACK";
      const auto c = static_cast<std::size_t>(x.dims[1]);
      s = xnn_create_global_average_pooling_nwc_f32(c, c, c, lo, hi, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      // H * W pixels, or 1.8's D * H * W.
      return xnn_setup_global_average_pooling_nwc_f32(ops[0], static_cast<std::size_t>(x.dims[0]),
                                                      static_cast<std::size_t>(x.pixels()), in[0],
                                                      out, pool);
    }
    case XnnOpKind::kAdd:
    case XnnOpKind::kSubtract:
    case XnnOpKind::kMultiply:
    case XnnOpKind::kDivide:
    case XnnOpKind::kMaximum:
    case XnnOpKind::kMinimum: {
      *what = "xnnpack: binary operator rejected by XNNPACK";
      const SlotDesc& y = program.slots[op.operands[1]];
      // Shapes in byte order: both operands are in the output's layout.
      std::size_t xs[kXnnMaxRank], ys[kXnnMaxRank];
      byte_order_dims(x, out_desc.layout, xs);
      byte_order_dims(y, out_desc.layout, ys);
      switch (op.kind) {
        case XnnOpKind::kAdd: s = xnn_create_add_nd_f32(lo, hi, 0, &ops[0]); break;
        case XnnOpKind::kSubtract: s = xnn_create_subtract_nd_f32(lo, hi, 0, &ops[0]); break;
        case XnnOpKind::kMultiply: s = xnn_create_multiply_nd_f32(lo, hi, 0, &ops[0]); break;
        case XnnOpKind::kMaximum: s = xnn_create_maximum_nd_f32(0, &ops[0]); break;
        case XnnOpKind::kMinimum: s = xnn_create_minimum_nd_f32(0, &ops[0]); break;
        default: s = xnn_create_divide_nd_f32(lo, hi, 0, &ops[0]); break;
      }
      if (s != xnn_status_success) return s;
      switch (op.kind) {
        case XnnOpKind::kAdd:
          return xnn_setup_add_nd_f32(ops[0], x.rank, xs, y.rank, ys, in[0], in[1], out, pool);
        case XnnOpKind::kSubtract:
          return xnn_setup_subtract_nd_f32(ops[0], x.rank, xs, y.rank, ys, in[0], in[1], out, pool);
        case XnnOpKind::kMultiply:
          return xnn_setup_multiply_nd_f32(ops[0], x.rank, xs, y.rank, ys, in[0], in[1], out, pool);
        case XnnOpKind::kMaximum:
          return xnn_setup_maximum_nd_f32(ops[0], x.rank, xs, y.rank, ys, in[0], in[1], out, pool);
        case XnnOpKind::kMinimum:
          return xnn_setup_minimum_nd_f32(ops[0], x.rank, xs, y.rank, ys, in[0], in[1], out, pool);
        default:
          return xnn_setup_divide_nd_f32(ops[0], x.rank, xs, y.rank, ys, in[0], in[1], out, pool);
      }
    }
    case XnnOpKind::kClamp:
    case XnnOpKind::kHardswish:
    case XnnOpKind::kSigmoid:
    case XnnOpKind::kSoftmax:
      *what = "xnnpack: elementwise operator rejected by XNNPACK";
      as_nc(x, &batch, &channels);
      if (op.kind == XnnOpKind::kClamp) {
        s = xnn_create_clamp_nc_f32(channels, channels, channels, lo, hi, 0, &ops[0]);
        if (s != xnn_status_success) return s;
        return xnn_setup_clamp_nc_f32(ops[0], batch, in[0], out, pool);
      }
      if (op.kind == XnnOpKind::kHardswish) {
        s = xnn_create_hardswish_nc_f32(channels, channels, channels, 0, &ops[0]);
        if (s != xnn_status_success) return s;
        return xnn_setup_hardswish_nc_f32(ops[0], batch, in[0], out, pool);
      }
      if (op.kind == XnnOpKind::kSigmoid) {
        s = xnn_create_sigmoid_nc_f32(channels, channels, channels, 0, &ops[0]);
        if (s != xnn_status_success) return s;
        return xnn_setup_sigmoid_nc_f32(ops[0], batch, in[0], out, pool);
      }
      s = xnn_create_softmax_nc_f32(channels, channels, channels, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_softmax_nc_f32(ops[0], batch, in[0], out, pool);
    case XnnOpKind::kCopy:
      *what = "xnnpack: copy rejected by XNNPACK";
      as_nc(x, &batch, &channels);
      s = xnn_create_copy_nc_x32(channels, channels, channels, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_copy_nc_x32(ops[0], batch, in[0], out, pool);
    case XnnOpKind::kConcatenate: {
      // One strided copy per input, into its column block of the output.
      *what = "xnnpack: concatenation rejected by XNNPACK";
      const std::size_t axis = p[0];
      const std::size_t outer = product(out_desc, 0, axis);
      const std::size_t out_inner = product(out_desc, axis, out_desc.rank);
      std::size_t offset = 0;
      *num_ops = 0;
      for (std::uint32_t i = 0; i < op.num_operands; ++i) {
        SlotDesc s_desc = program.slots[op.operands[i]];
        s_desc.layout = out_desc.layout;
        const std::size_t inner = product(s_desc, axis, s_desc.rank);
        if (in[i] != out + offset) {  // else its producer wrote it in place
          xnn_operator_t& copy = ops[(*num_ops)++];
          s = xnn_create_copy_nc_x32(inner, inner, out_inner, 0, &copy);
          if (s != xnn_status_success) return s;
          s = xnn_setup_copy_nc_x32(copy, outer, in[i], out + offset, pool);
          if (s != xnn_status_success) return s;
        }
        offset += inner;
      }
      return xnn_status_success;
    }
    case XnnOpKind::kAbs:
    case XnnOpKind::kBankersRounding:
    case XnnOpKind::kCeiling:
    case XnnOpKind::kFloor:
    case XnnOpKind::kNegate:
    case XnnOpKind::kSquare:
    case XnnOpKind::kSquareRoot:
    case XnnOpKind::kElu:
    case XnnOpKind::kLeakyRelu:
      *what = "xnnpack: elementwise operator rejected by XNNPACK";
      as_nc(x, &batch, &channels);
      return create_and_setup_nc(op, channels, batch, in[0], out, pool, &ops[0]);
    case XnnOpKind::kPrelu: {
      *what = "xnnpack: prelu rejected by XNNPACK";
      const AlignedCopy slope(op.kernel, op.weight_count);
      if (slope.get() == nullptr) return xnn_status_out_of_memory;
      channels = p[0];
      s = xnn_create_prelu_nc_f32(channels, channels, channels, slope.get(), 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_prelu_nc_f32(ops[0], static_cast<std::size_t>(x.numel) / channels, in[0],
                                    out, pool);
    }
    case XnnOpKind::kConstantPad: {
      *what = "xnnpack: pad rejected by XNNPACK";
      std::size_t shape[kXnnPadRank], pre[kXnnPadRank], post[kXnnPadRank];
      SlotDesc xv = x;
      xv.layout = out_desc.layout;
      for (std::size_t i = 0; i < x.rank; ++i) {
        shape[i] = static_cast<std::size_t>(xv.physical(i));
        pre[i] = p[i];
        post[i] = p[kXnnPadRank + i];
      }
      // XNNPACK copies the 32-bit pattern at create.
      s = xnn_create_constant_pad_nd_x32(&op.scalar, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_constant_pad_nd_x32(ops[0], x.rank, shape, pre, post, in[0], out, pool);
    }
    case XnnOpKind::kDepthToSpace: {
      *what = "xnnpack: depth_to_space rejected by XNNPACK";
      const auto c_in = static_cast<std::size_t>(x.dims[1]);
      const auto c_out = static_cast<std::size_t>(out_desc.dims[1]);
      s = xnn_create_depth_to_space_nhwc_x32(c_out, c_in, c_out, p[0], 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_depth_to_space_nhwc_x32(
          ops[0], static_cast<std::size_t>(x.dims[0]), static_cast<std::size_t>(x.dims[2]),
          static_cast<std::size_t>(x.dims[3]), in[0], out, pool);
    }
    case XnnOpKind::kResizeBilinear: {
      *what = "xnnpack: resize rejected by XNNPACK";
      const auto c = static_cast<std::size_t>(x.dims[1]);
      s = xnn_create_resize_bilinear2d_nhwc_f32(c, c, c, p[0] != 0 ? XNN_FLAG_ALIGN_CORNERS : 0,
                                                &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_resize_bilinear2d_nhwc_f32(
          ops[0], static_cast<std::size_t>(x.dims[0]), static_cast<std::size_t>(x.dims[2]),
          static_cast<std::size_t>(x.dims[3]), static_cast<std::size_t>(out_desc.dims[2]),
          static_cast<std::size_t>(out_desc.dims[3]), in[0], out, pool);
    }
    case XnnOpKind::kDeconvolution: {
      *what = "xnnpack: deconvolution parameters rejected by XNNPACK";
      const AlignedCopy kernel(op.kernel, op.weight_count), bias(op.bias, op.bias_count);
      if (kernel.get() == nullptr || bias.get() == nullptr) return xnn_status_out_of_memory;
      const std::size_t in_channels = std::size_t{p[10]} * p[11];
      const std::size_t out_channels = std::size_t{p[10]} * p[12];
      s = xnn_create_deconvolution2d_nhwc_f32(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                              p[9], p[10], p[11], p[12], in_channels, out_channels,
                                              kernel.get(), bias.get(), lo, hi, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_deconvolution2d_nhwc_f32(
          ops[0], static_cast<std::size_t>(x.dims[0]), static_cast<std::size_t>(x.dims[2]),
          static_cast<std::size_t>(x.dims[3]), p[13], p[14], in[0], out, pool);
    }
    case XnnOpKind::kMeanLastAxis: {
      // One channel, the axis as the pooled width: [batch][width][1].
      *what = "xnnpack: mean rejected by XNNPACK";
      const auto width = static_cast<std::size_t>(x.dims[x.rank - 1]);
      s = xnn_create_global_average_pooling_nwc_f32(1, 1, 1, lo, hi, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_global_average_pooling_nwc_f32(
          ops[0], static_cast<std::size_t>(x.numel) / width, width, in[0], out, pool);
    }
    case XnnOpKind::kSlice: {
      // Rows of the dims before the axis; each copies a contiguous run.
      *what = "xnnpack: slice rejected by XNNPACK";
      SlotDesc xv = x;
      xv.layout = out_desc.layout;
      const std::size_t axis = p[0];
      const std::size_t inner = product(xv, axis + 1, xv.rank);
      const std::size_t run = static_cast<std::size_t>(out_desc.physical(axis)) * inner;
      s = xnn_create_copy_nc_x32(run, product(xv, axis, xv.rank), run, 0, &ops[0]);
      if (s != xnn_status_success) return s;
      return xnn_setup_copy_nc_x32(ops[0], product(xv, 0, axis), in[0] + p[1] * inner, out, pool);
    }
    default: break;  // our own (own_kernels.h): compile_operator does not send them here
  }
  return xnn_status_invalid_parameter;
}

}  // namespace

// Output rows split evenly between the pool's threads.
void run_dwconv(const DwConv& conv, pthreadpool_t pool) {
  const DwConvGeometry& g = conv.geometry;
  const std::size_t rows = g.batch * g.out_h;
  const std::size_t threads = pool == nullptr ? 1 : pthreadpool_get_threads_count(pool);
  if (threads <= 1 || rows < 2) {
    dwconv_nhwc_run(g, conv.packed, conv.input, conv.output, 0, rows);
    return;
  }
  struct Shares {
    const DwConv* conv;
    std::size_t rows, parts;
  } shares{&conv, rows, threads};
  pthreadpool_parallelize_1d(
      pool,
      [](void* context, std::size_t part) {
        const auto* s = static_cast<const Shares*>(context);
        const DwConv& c = *s->conv;
        dwconv_nhwc_run(c.geometry, c.packed, c.input, c.output, s->rows * part / s->parts,
                        s->rows * (part + 1) / s->parts);
      },
      &shares, threads, 0);
}

// One share of a convolution per thread of the pool.
void run_conv_igemm(const ConvIgemm& conv, pthreadpool_t pool) {
  const std::size_t threads = pool == nullptr ? 1 : pthreadpool_get_threads_count(pool);
  if (threads <= 1) {
    conv_igemm_run(conv);
    return;
  }
  struct Shares {
    const ConvIgemm* conv;
    std::size_t parts;
  } shares{&conv, threads};
  pthreadpool_parallelize_1d(
      pool,
      [](void* context, std::size_t part) {
        const auto* s = static_cast<const Shares*>(context);
        conv_igemm_run(*s->conv, conv_igemm_part(s->conv->geometry, part, s->parts));
      },
      &shares, threads, 0);
}

ErrorInfo compile_operator(const ParsedProgram& program, std::uint32_t index, float* const* buffers,
                           pthreadpool* pool, runtime::MemoryAllocator* memory, CompiledOp* out,
                           std::size_t output_pixel_stride) {
  const ParsedOp& op = program.ops[index];
  const std::uint32_t out_slot = program.first_op_slot() + index;
  const SlotDesc& out_desc = program.slots[out_slot];
  *out = CompiledOp{};
  if (op.kind == XnnOpKind::kRecurrent) {
    return compile_recurrent_layer(program, index, buffers, pool, memory, &out->recurrent);
  }
  if (op.kind == XnnOpKind::kRecurrentState) return kOk;  // its layer writes it
  if (op.kind == XnnOpKind::kConvolution3d) {
    return compile_conv3d_layer(program, index, buffers, pool, memory, &out->conv3d);
  }
  if (!is_own_kernel(op.kind) && op.kind >= XnnOpKind::kQuantize) {
    auto** ops = memory->allocate_array<xnn_operator_t>(1);
    auto** inputs = memory->allocate_array<const void*>(op.num_operands);
    if (ops == nullptr || inputs == nullptr) {
      return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
    }
    ops[0] = nullptr;
    for (std::uint32_t i = 0; i < op.num_operands; ++i) inputs[i] = buffers[op.operands[i]];
    const char* what = "xnnpack: operator rejected by XNNPACK";
    const xnn_status s = create_and_setup_quantized(program, op, inputs, buffers[out_slot],
                                                    out_desc, pool, ops, &what);
    out->operators = ops;
    out->num_operators = 1;
    if (s != xnn_status_success) {
      delete_compiled(out);
      return from_status(s, what);
    }
    return kOk;
  }
  // Max pools our own kernel runs faster on one thread (max_pool_nhwc.h)
  // join the kinds XNNPACK 2022 has no operator for.
  if (is_own_kernel(op.kind) ||
      (op.kind == XnnOpKind::kMaxPooling && pool == nullptr && max_pool_nhwc_takes(op.ints))) {
    OwnKernel* own = nullptr;
    const std::uint32_t threads =
        pool == nullptr ? 1 : static_cast<std::uint32_t>(pthreadpool_get_threads_count(pool));
    const ErrorInfo e = compile_own_kernel(program, index, buffers,
                                           std::min(threads, kMaxOwnKernelParts), memory, &own);
    out->own = own;
    return e;
  }
  if (runs_on_dwconv(op)) {
    return compile_dwconv(program, op, buffers, buffers[out_slot], out_desc, output_pixel_stride,
                          memory, &out->dwconv);
  }
  if (conv_igemm_kind(op)) {
    const ConvGeometry g =
        conv_geometry(op, program.slots[op.operands[0]], out_desc, output_pixel_stride);
    if (conv_igemm_takes(g)) {
      return compile_conv_igemm(g, op, buffers[op.operands[0]], buffers[out_slot], memory,
                                &out->conv);
    }
  }
  std::uint32_t count = 1;
  if (op.kind == XnnOpKind::kConcatenate) count = op.num_operands;
  if (op.kind == XnnOpKind::kConvolution) {
    const std::size_t channels = std::size_t{op.ints[10]} * op.ints[12];
    const std::size_t block = conv_block(op, out_desc, pool);
    count = static_cast<std::uint32_t>((channels + block - 1) / block);
  }
  auto** ops = memory->allocate_array<xnn_operator_t>(count);
  auto** inputs = memory->allocate_array<const float*>(op.num_operands);
  if (ops == nullptr || inputs == nullptr) {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  }
  for (std::uint32_t i = 0; i < op.num_operands; ++i) inputs[i] = buffers[op.operands[i]];
  const char* what = "xnnpack: operator rejected by XNNPACK";
  std::uint32_t created = 0;
  const xnn_status s = create_and_setup(program, op, inputs, buffers[out_slot], out_desc,
                                        output_pixel_stride, pool, ops, &created, &what);
  out->operators = ops;
  out->num_operators = created;
  if (s != xnn_status_success) {
    delete_compiled(out);
    return from_status(s, what);
  }
  return kOk;
}

Error run_compiled(const CompiledOp& op, pthreadpool* pool) {
  if (op.own != nullptr) return run_own_kernel(*op.own, pool);
  if (op.conv != nullptr) {
    run_conv_igemm(*op.conv, pool);
    return Error::kOk;
  }
  if (op.dwconv != nullptr) {
    run_dwconv(*op.dwconv, pool);
    return Error::kOk;
  }
  if (op.recurrent != nullptr) return run_recurrent_layer(*op.recurrent, pool);
  if (op.conv3d != nullptr) return run_conv3d_layer(*op.conv3d, pool);
  for (std::uint32_t i = 0; i < op.num_operators; ++i) {
    if (xnn_run_operator(op.operators[i], pool) != xnn_status_success) return Error::kInternal;
  }
  return Error::kOk;
}

void delete_compiled(CompiledOp* op) {
  if (op->recurrent != nullptr) delete_recurrent_layer(op->recurrent);
  if (op->conv3d != nullptr) delete_conv3d_layer(op->conv3d);
  for (std::uint32_t i = 0; i < op->num_operators; ++i) {
    if (op->operators[i] != nullptr) {
      (void)xnn_delete_operator(op->operators[i]);
      op->operators[i] = nullptr;
    }
  }
  op->num_operators = 0;
}

}  // namespace glassbox::backends::xnnpack

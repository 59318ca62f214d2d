#include "backends/xnnpack/runtime/conv3d_layer.h"

#include <xnnpack.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/xnnpack/runtime/aligned_copy.h"
#include "backends/xnnpack/runtime/conv_igemm.h"
#include "backends/xnnpack/runtime/xnn_operators.h"

namespace glassbox::backends::xnnpack {
namespace {

// XNNPACK's micro-kernels read up to XNN_EXTRA_BYTES past an input.
constexpr std::size_t kSlackBytes = 64;

// kConvolution3d's params (xnnpack_format.h).
enum Param : std::size_t {
  kPadFront,
  kPadBack,
  kPadTop,
  kPadRight,
  kPadBottom,
  kPadLeft,
  kKernelD,
  kKernelH,
  kKernelW,
  kStrideD,
  kStrideH,
  kStrideW,
  kDilationD,
  kDilationH,
  kDilationW,
  kGroups,
  kGroupInput,
  kGroupOutput,
};

// One 2-D convolution of one tap over one batch element's frames, and the
// add that sums its result into the output (null when it wrote the output
// itself).
struct Conv3dStep {
  xnn_operator_t conv = nullptr;
  /// Instead of `conv`: the delegate's own kernel (conv_igemm.h).
  const ConvIgemm* igemm = nullptr;
  xnn_operator_t add = nullptr;
};

// The output frames [first, end) a tap reads input frames for: frame t
// reads t * stride + offset, which must lie in [0, in_frames).
struct TapRange {
  std::int64_t offset = 0, first = 0, end = 0;
  bool empty() const { return end <= first; }
};

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

TapRange tap_range(const std::uint32_t* p, std::int64_t dt, std::int64_t in_frames,
                   std::int64_t out_frames) {
  TapRange r;
  const std::int64_t s = p[kStrideD];
  r.offset = dt * p[kDilationD] - std::int64_t{p[kPadFront]};
  r.first = std::max<std::int64_t>(0, -floor_div(r.offset, s));  // ceil(-offset / s)
  r.end = std::min(out_frames, floor_div(in_frames - 1 - r.offset, s) + 1);
  return r;
}

float* scratch(runtime::MemoryAllocator* memory, std::int64_t floats) {
  return static_cast<float*>(
      memory->allocate(static_cast<std::size_t>(floats) * sizeof(float) + kSlackBytes, 64));
}

}  // namespace

struct Conv3dLayer {
  const float* input = nullptr;
  float* output = nullptr;
  /// Temporal stride > 1: the input's frames regrouped by phase (frame i at
  /// phase i % stride, position i / stride), per batch element.
  float* phases = nullptr;
  std::int64_t batch = 0, in_frames = 0, frame_floats = 0, stride = 1;
  Conv3dStep* steps = nullptr;
  std::uint32_t num_steps = 0, max_steps = 0;
  /// When no tap covers every output frame: the bias, written into every
  /// output pixel first.
  const float* bias = nullptr;
  std::int64_t out_pixels = 0, out_channels = 0;  // per batch element
  /// The fused activation, when no full-range step could carry it.
  xnn_operator_t clamp = nullptr;
};

namespace {

// Where phase `r`'s frames start in a batch element's phase buffer.
std::int64_t phase_start(std::int64_t r, std::int64_t frames, std::int64_t s) {
  std::int64_t start = 0;
  for (std::int64_t q = 0; q < r && q < frames; ++q) start += (frames - q + s - 1) / s;
  return start;
}

void gather_phases(const Conv3dLayer& l) {
  const auto frame_bytes = static_cast<std::size_t>(l.frame_floats) * sizeof(float);
  for (std::int64_t n = 0; n < l.batch; ++n) {
    const float* in = l.input + n * l.in_frames * l.frame_floats;
    float* out = l.phases + n * l.in_frames * l.frame_floats;
    for (std::int64_t r = 0; r < l.stride; ++r) {
      for (std::int64_t i = r; i < l.in_frames; i += l.stride) {
        std::memcpy(out, in + i * l.frame_floats, frame_bytes);
        out += l.frame_floats;
      }
    }
  }
}

// One tap's 2-D convolution over `frames` frames, as conv_igemm.h sees it.
ConvGeometry tap_geometry(const std::uint32_t* p, const SlotDesc& x, const SlotDesc& y,
                          std::int64_t frames, float lo, float hi) {
  ConvGeometry g;
  g.batch = static_cast<std::size_t>(frames);
  g.in_h = static_cast<std::size_t>(x.dims[3]);
  g.in_w = static_cast<std::size_t>(x.dims[4]);
  g.in_c = static_cast<std::size_t>(x.dims[1]);
  g.out_h = static_cast<std::size_t>(y.dims[3]);
  g.out_w = static_cast<std::size_t>(y.dims[4]);
  g.out_c = static_cast<std::size_t>(y.dims[1]);
  g.kernel_h = p[kKernelH];
  g.kernel_w = p[kKernelW];
  g.stride_h = p[kStrideH];
  g.stride_w = p[kStrideW];
  g.dilation_h = p[kDilationH];
  g.dilation_w = p[kDilationW];
  g.pad_top = p[kPadTop];
  g.pad_left = p[kPadLeft];
  g.out_pixel_stride = g.out_c;
  g.output_min = lo;
  g.output_max = hi;
  return g;
}

// The tap on conv_igemm.h's kernel: weights packed and pixel pointers
// computed once, from `memory`.
xnn_status create_igemm(const ConvGeometry& g, const float* kernel, const float* bias,
                        const float* in, float* out, runtime::MemoryAllocator* memory,
                        const ConvIgemm** compiled) {
  auto* conv = memory->allocate_array<ConvIgemm>(1);
  auto* packed =
      static_cast<float*>(memory->allocate(conv_igemm_packed_floats(g) * sizeof(float), 64));
  const std::size_t pointers = conv_igemm_indirection_size(g);
  const float** indirection =
      pointers == 0 ? nullptr : memory->allocate_array<const float*>(pointers);
  float* zeros = pointers == 0 ? nullptr : memory->allocate_array<float>(g.in_c);
  if (conv == nullptr || packed == nullptr ||
      (pointers != 0 && (indirection == nullptr || zeros == nullptr))) {
    return xnn_status_out_of_memory;
  }
  conv_igemm_pack(g, kernel, bias, packed);
  if (indirection != nullptr) conv_igemm_indirect(g, in, zeros, indirection);
  *conv = ConvIgemm{g, packed, indirection, in, out};
  *compiled = conv;
  return xnn_status_success;
}

// Creates the steps of every batch element. `kernel` is the aligned
// [KD][G][GOC][KH][KW][GIC] weights, `bias` and `zeros` G*GOC floats,
// `order` room for KD taps.
xnn_status create_steps(const ParsedProgram& program, const ParsedOp& op, const SlotDesc& y,
                        Conv3dLayer* l, const float* kernel, const float* bias, const float* zeros,
                        float* partial, std::int64_t* order, pthreadpool_t pool,
                        runtime::MemoryAllocator* memory) {
  const std::uint32_t* p = op.ints;
  const SlotDesc& x = program.slots[op.operands[0]];
  const std::int64_t out_frames = y.dims[2];
  const std::int64_t out_frame = y.dims[3] * y.dims[4] * y.dims[1];
  const std::size_t in_channels = std::size_t{p[kGroups]} * p[kGroupInput];
  const std::size_t out_channels = std::size_t{p[kGroups]} * p[kGroupOutput];
  const std::size_t tap_weights = out_channels * p[kKernelH] * p[kKernelW] * p[kGroupInput];
  const float inf = std::numeric_limits<float>::infinity();
  // The taps in run order: a full-range one writes (with the bias), then
  // the partial ones, then the other full-range ones, the last of which can
  // carry the activation.
  std::uint32_t count = 0;
  std::int64_t writer = -1;
  const auto full = [&](const TapRange& r) { return r.first == 0 && r.end == out_frames; };
  for (std::int64_t dt = 0; dt < p[kKernelD]; ++dt) {
    if (full(tap_range(p, dt, l->in_frames, out_frames))) {
      writer = dt;
      break;
    }
  }
  if (writer >= 0) order[count++] = writer;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::int64_t dt = 0; dt < p[kKernelD]; ++dt) {
      const TapRange r = tap_range(p, dt, l->in_frames, out_frames);
      if (r.empty() || dt == writer || full(r) != (pass == 1)) continue;
      order[count++] = dt;
    }
  }
  const bool last_full =
      count > 0 && full(tap_range(p, order[count - 1], l->in_frames, out_frames));
  const bool fused = last_full && (count > 1 || writer >= 0);
  l->bias = writer >= 0 ? nullptr : bias;
  for (std::int64_t n = 0; n < l->batch; ++n) {
    for (std::uint32_t k = 0; k < count; ++k) {
      const std::int64_t dt = order[k];
      const TapRange r = tap_range(p, dt, l->in_frames, out_frames);
      const bool writes = dt == writer;
      const bool last = k + 1 == count;
      const float lo = fused && last && writes ? op.output_min : -inf;
      const float hi = fused && last && writes ? op.output_max : inf;
      Conv3dStep& step = l->steps[l->num_steps++];
      const std::int64_t first_in = r.first * l->stride + r.offset;
      const float* in =
          l->phases == nullptr
              ? l->input + (n * l->in_frames + first_in) * l->frame_floats
              : l->phases +
                    (n * l->in_frames + phase_start(first_in % l->stride, l->in_frames, l->stride) +
                     first_in / l->stride) *
                        l->frame_floats;
      float* out = l->output + (n * out_frames + r.first) * out_frame;
      const ConvGeometry g = tap_geometry(p, x, y, r.end - r.first, lo, hi);
      xnn_status s = xnn_status_success;
      if (p[kGroups] == 1 && conv_igemm_takes(g)) {
        s = create_igemm(g, kernel + dt * tap_weights, writes ? bias : zeros, in,
                         writes ? out : partial, memory, &step.igemm);
      } else {
        s = xnn_create_convolution2d_nhwc_f32(
            p[kPadTop], p[kPadRight], p[kPadBottom], p[kPadLeft], p[kKernelH], p[kKernelW],
            p[kStrideH], p[kStrideW], p[kDilationH], p[kDilationW], p[kGroups], p[kGroupInput],
            p[kGroupOutput], in_channels, out_channels, kernel + dt * tap_weights,
            writes ? bias : zeros, lo, hi, 0, &step.conv);
        if (s != xnn_status_success) return s;
        s = xnn_setup_convolution2d_nhwc_f32(step.conv, static_cast<std::size_t>(r.end - r.first),
                                             static_cast<std::size_t>(x.dims[3]),
                                             static_cast<std::size_t>(x.dims[4]), in,
                                             writes ? out : partial, pool);
      }
      if (s != xnn_status_success) return s;
      if (writes) continue;
      s = xnn_create_add_nd_f32(fused && last ? op.output_min : -inf,
                                fused && last ? op.output_max : inf, 0, &step.add);
      if (s != xnn_status_success) return s;
      const std::size_t shape[1] = {static_cast<std::size_t>((r.end - r.first) * out_frame)};
      s = xnn_setup_add_nd_f32(step.add, 1, shape, 1, shape, out, partial, out, pool);
      if (s != xnn_status_success) return s;
    }
  }
  if (fused || (op.output_min == -inf && op.output_max == inf)) return xnn_status_success;
  xnn_status s = xnn_create_clamp_nc_f32(out_channels, out_channels, out_channels, op.output_min,
                                         op.output_max, 0, &l->clamp);
  if (s != xnn_status_success) return s;
  return xnn_setup_clamp_nc_f32(
      l->clamp, static_cast<std::size_t>(l->batch * out_frames * out_frame) / out_channels,
      l->output, l->output, pool);
}

}  // namespace

ErrorInfo compile_conv3d_layer(const ParsedProgram& program, std::uint32_t index,
                               float* const* buffers, pthreadpool_t pool,
                               runtime::MemoryAllocator* memory, Conv3dLayer** out) {
  *out = nullptr;
  const ParsedOp& op = program.ops[index];
  const std::uint32_t* p = op.ints;
  const SlotDesc& x = program.slots[op.operands[0]];
  const SlotDesc& y = program.slots[program.first_op_slot() + index];
  const auto fail = [] {
    return make_error(Error::kMemoryAllocationFailed, "xnnpack: out of memory");
  };
  auto* l = memory->allocate_array<Conv3dLayer>(1);
  if (l == nullptr) return fail();
  l->input = buffers[op.operands[0]];
  l->output = buffers[program.first_op_slot() + index];
  l->batch = x.dims[0];
  l->in_frames = x.dims[2];
  l->frame_floats = x.dims[3] * x.dims[4] * x.dims[1];
  l->stride = p[kStrideD];
  l->out_channels = y.dims[1];
  l->out_pixels = y.dims[2] * y.dims[3] * y.dims[4];
  l->max_steps = static_cast<std::uint32_t>(x.dims[0]) * p[kKernelD];
  l->steps = memory->allocate_array<Conv3dStep>(l->max_steps);
  if (l->steps == nullptr) return fail();
  if (l->stride > 1) {
    l->phases = scratch(memory, x.numel);
    if (l->phases == nullptr) return fail();
  }
  // The largest range a tap sums through the scratch: at most every output
  // frame of one batch element.
  float* partial = scratch(memory, y.numel / y.dims[0]);
  // Aligned copies of the blob's unaligned weights for XNNPACK's packing
  // at create; the bias stays (in the allocator) for a layer whose every
  // tap is partial.
  const std::size_t channels = op.bias_count;
  auto* bias = memory->allocate_array<float>(channels);
  auto* zeros = memory->allocate_array<float>(channels);
  auto* order = memory->allocate_array<std::int64_t>(p[kKernelD]);
  if (partial == nullptr || bias == nullptr || zeros == nullptr || order == nullptr) {
    return fail();
  }
  std::memcpy(bias, op.bias, channels * sizeof(float));
  const AlignedCopy kernel(op.kernel, op.weight_count);
  if (kernel.get() == nullptr) return fail();
  const xnn_status s =
      create_steps(program, op, y, l, kernel.get(), bias, zeros, partial, order, pool, memory);
  if (s != xnn_status_success) {
    delete_conv3d_layer(l);
    return make_error(
        s == xnn_status_out_of_memory ? Error::kMemoryAllocationFailed : Error::kInvalidArgument,
        "xnnpack: 3-D convolution's 2-D convolutions rejected by XNNPACK");
  }
  *out = l;
  return kOk;
}

Error run_conv3d_layer(const Conv3dLayer& l, pthreadpool_t pool) {
  if (l.phases != nullptr) gather_phases(l);
  if (l.bias != nullptr) {
    const auto bytes = static_cast<std::size_t>(l.out_channels) * sizeof(float);
    float* pixel = l.output;
    for (std::int64_t i = 0; i < l.batch * l.out_pixels; ++i, pixel += l.out_channels) {
      std::memcpy(pixel, l.bias, bytes);
    }
  }
  for (std::uint32_t i = 0; i < l.num_steps; ++i) {
    if (l.steps[i].igemm != nullptr) {
      run_conv_igemm(*l.steps[i].igemm, pool);
    } else if (xnn_run_operator(l.steps[i].conv, pool) != xnn_status_success) {
      return Error::kInternal;
    }
    if (l.steps[i].add != nullptr && xnn_run_operator(l.steps[i].add, pool) != xnn_status_success) {
      return Error::kInternal;
    }
  }
  if (l.clamp != nullptr && xnn_run_operator(l.clamp, pool) != xnn_status_success) {
    return Error::kInternal;
  }
  return Error::kOk;
}

void delete_conv3d_layer(Conv3dLayer* layer) {
  for (std::uint32_t i = 0; i < layer->num_steps; ++i) {
    for (xnn_operator_t* op : {&layer->steps[i].conv, &layer->steps[i].add}) {
      if (*op != nullptr) (void)xnn_delete_operator(*op);
      *op = nullptr;
    }
  }
  layer->num_steps = 0;
  if (layer->clamp != nullptr) (void)xnn_delete_operator(layer->clamp);
  layer->clamp = nullptr;
}

}  // namespace glassbox::backends::xnnpack

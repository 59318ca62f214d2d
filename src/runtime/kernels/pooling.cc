#include "glassbox/runtime/kernels/pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/runtime/kernels/vector_clones.h"

namespace glassbox::runtime::kernels {
namespace {

// 0 when the window does not fit or a step overflows.
std::int64_t pooled_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                         std::int64_t pad_begin, std::int64_t pad_end, std::int64_t dilation,
                         bool ceil_mode) {
  std::int64_t span = 0, padded = 0, room = 0;
  if (__builtin_mul_overflow(dilation, kernel - 1, &span) ||
      __builtin_add_overflow(in, pad_begin, &padded) ||
      __builtin_add_overflow(padded, pad_end, &padded) ||
      __builtin_sub_overflow(padded, span, &room) || --room < 0)
    return 0;
  // room / stride + 1 rounded up without forming room + stride.
  std::int64_t out = room / stride + 1 + (ceil_mode && room % stride != 0 ? 1 : 0);
  // PyTorch: the last window must start inside the input or begin padding.
  std::int64_t last_start = 0;
  if (ceil_mode &&
      (__builtin_mul_overflow(out - 1, stride, &last_start) || last_start >= in + pad_begin))
    --out;
  return out;
}

bool valid_io(const float* in, const float* out, Shape4 s) {
  return s.numel() == 0 || (in != nullptr && out != nullptr);
}

// Pooling is separable: a window's max (or sum) is the max (sum) over its
// columns of each column's max (sum) over the window's rows. So each output
// row first folds its input rows into one row on the stack (unit stride,
// vectorised), then folds that row across each window's columns. Outputs
// are produced in chunks of columns so the folded row fits kRowChunk floats.
constexpr std::int64_t kRowChunk = 1024;

// One spatial dim of a pooling window: output o covers input positions
// o*stride - pad + k*dilation for k in [0, kernel). What does not depend
// on o is computed once per call, so a row costs no division.
struct Axis {
  std::int64_t in;
  std::int64_t out;
  std::int64_t kernel;
  std::int64_t stride;
  std::int64_t pad_begin;
  std::int64_t pad_end;
  std::int64_t dilation;
  std::int64_t span;         // (kernel - 1) * dilation
  std::int64_t interior_lo;  // outputs [lo, hi) have their whole window inside
  std::int64_t interior_hi;
  std::int64_t chunk;  // outputs whose windows fit kRowChunk inputs (>= 1 if fits_row)

  std::int64_t start(std::int64_t o) const { return o * stride - pad_begin; }
  // The taps [*k0, *k1) of output o that land inside the input (may be empty).
  void taps(std::int64_t o, std::int64_t* k0, std::int64_t* k1) const {
    const std::int64_t s = start(o);
    if (dilation == 1) {
      *k0 = std::max<std::int64_t>(0, -s);
      *k1 = std::clamp<std::int64_t>(in - s, 0, kernel);
      return;
    }
    *k0 = s >= 0 ? 0 : (-s + dilation - 1) / dilation;
    *k1 = s >= in ? 0 : std::min(kernel, (in - 1 - s) / dilation + 1);
  }
};

Axis make_axis(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride,
               std::int64_t pad_begin, std::int64_t pad_end, std::int64_t dilation) {
  Axis a{in, out, kernel, stride, pad_begin, pad_end, dilation, (kernel - 1) * dilation, 0, 0, 1};
  a.interior_lo = std::min(out, (pad_begin + stride - 1) / stride);
  const std::int64_t room = in - 1 + pad_begin - a.span;
  a.interior_hi = room < 0 ? a.interior_lo : std::clamp(room / stride + 1, a.interior_lo, out);
  if (a.span < kRowChunk) a.chunk = (kRowChunk - 1 - a.span) / stride + 1;
  return a;
}

Axis axis_h(Shape4 in, Shape4 out, const Pool2dParams& p) {
  return make_axis(in.h, out.h, p.kernel_h, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h);
}
Axis axis_w(Shape4 in, Shape4 out, const Pool2dParams& p) {
  return make_axis(in.w, out.w, p.kernel_w, p.stride_w, p.pad_left, p.pad_right, p.dilation_w);
}

// Max that keeps the earlier value on ties and lets a NaN on either side
// win (PyTorch's rule), written as a select so the loops vectorise.
inline float max_nan(float best, float v) { return (v > best || v != v) ? v : best; }

// Folds every tap of m interior windows into out[0, m), one tap per pass
// over the row; kStride (0: w.stride at run time) makes the common strides'
// loads a fixed pattern the vectoriser handles.
template <std::int64_t kStride, typename Fold>
[[gnu::always_inline]] inline void fold_across(const float* base, const Axis& w, float* out,
                                               std::int64_t m, Fold fold) {
  const std::int64_t s = kStride > 0 ? kStride : w.stride;
  for (std::int64_t j = 0; j < m; ++j) out[j] = base[j * s];
  for (std::int64_t kw = 1; kw < w.kernel; ++kw) {
    const float* tap = base + kw * w.dilation;
    for (std::int64_t j = 0; j < m; ++j) out[j] = fold(out[j], tap[j * s]);
  }
}

// One output row of pooling: folds the in-bounds input rows of output row
// `oh` of `plane`, then windows across. `finish(value, ow)` turns the fold
// of output ow's in-bounds taps into the output value, `finish_interior`
// does so for a window wholly inside the input; `empty` is the value of an
// output with no in-bounds tap.
template <typename Fold, typename Finish, typename FinishInterior>
[[gnu::always_inline]] inline void pool_row(const float* plane, const Axis& h, const Axis& w,
                                            std::int64_t oh, float* dst, float empty, Fold fold,
                                            Finish finish, FinishInterior finish_interior) {
  std::int64_t kh0 = 0, kh1 = 0;
  h.taps(oh, &kh0, &kh1);
  if (kh0 >= kh1) {
    std::fill(dst, dst + w.out, empty);
    return;
  }
  const std::int64_t span = w.span;
  const std::int64_t chunk = w.chunk;
  const std::int64_t lo = w.interior_lo;
  const std::int64_t hi = w.interior_hi;
  float row[kRowChunk];
  for (std::int64_t c0 = 0; c0 < w.out; c0 += chunk) {
    const std::int64_t c1 = std::min(w.out, c0 + chunk);
    const std::int64_t first = std::max<std::int64_t>(0, w.start(c0));
    const std::int64_t last = std::min(w.in, w.start(c1 - 1) + span + 1);
    const std::int64_t n = last - first;
    if (n > 0) {
      const float* src = plane + (h.start(oh) + kh0 * h.dilation) * w.in + first;
      std::copy(src, src + n, row);
      for (std::int64_t kh = kh0 + 1; kh < kh1; ++kh) {
        const float* r = src + (kh - kh0) * h.dilation * w.in;
        for (std::int64_t j = 0; j < n; ++j) row[j] = fold(row[j], r[j]);
      }
    }
    // Interior outputs: every tap is in bounds, one tap per pass.
    const std::int64_t i0 = std::clamp(lo, c0, c1);
    const std::int64_t i1 = std::clamp(hi, i0, c1);
    if (i0 < i1) {
      const float* base = row + (w.start(i0) - first);
      float* out = dst + i0;
      const std::int64_t m = i1 - i0;
      if (w.stride == 1) {
        fold_across<1>(base, w, out, m, fold);
      } else if (w.stride == 2) {
        fold_across<2>(base, w, out, m, fold);
      } else {
        fold_across<0>(base, w, out, m, fold);
      }
      for (std::int64_t j = 0; j < m; ++j) out[j] = finish_interior(out[j]);
    }
    // Border outputs: clip the taps to the input.
    for (std::int64_t ow = c0; ow < c1; ++ow) {
      if (ow == i0 && i0 < i1) ow = i1;
      if (ow >= c1) break;
      std::int64_t kw0 = 0, kw1 = 0;
      w.taps(ow, &kw0, &kw1);
      if (kw0 >= kw1) {
        dst[ow] = empty;
        continue;
      }
      // An index, not a pointer: a window starting in the padding would
      // put a pointer to its first tap before the row.
      const std::int64_t base = w.start(ow) - first;
      float v = row[base + kw0 * w.dilation];
      for (std::int64_t kw = kw0 + 1; kw < kw1; ++kw) v = fold(v, row[base + kw * w.dilation]);
      dst[ow] = finish(v, ow);
    }
  }
}

// The window span must fit the stack row; wider windows (a huge kernel or
// dilation) go through the per-tap loops below.
bool fits_row(const Axis& w) { return w.span < kRowChunk; }

void max_pool_plane_by_taps(const float* src, const Axis& h, const Axis& w, float* dst) {
  for (std::int64_t oh = 0; oh < h.out; ++oh) {
    std::int64_t kh0 = 0, kh1 = 0;
    h.taps(oh, &kh0, &kh1);
    for (std::int64_t ow = 0; ow < w.out; ++ow) {
      std::int64_t kw0 = 0, kw1 = 0;
      w.taps(ow, &kw0, &kw1);
      float best = -std::numeric_limits<float>::infinity();
      for (std::int64_t kw = kw0; kw < kw1; ++kw)
        for (std::int64_t kh = kh0; kh < kh1; ++kh)
          best = max_nan(
              best, src[(h.start(oh) + kh * h.dilation) * w.in + w.start(ow) + kw * w.dilation]);
      dst[oh * w.out + ow] = best;
    }
  }
}

GLASSBOX_VECTOR_CLONES
void max_pool_planes(const float* input, Shape4 in, Shape4 out, const Pool2dParams& p,
                     float* output) {
  const Axis h = axis_h(in, out, p);
  const Axis w = axis_w(in, out, p);
  const float lowest = -std::numeric_limits<float>::infinity();
  const auto same = [](float v, std::int64_t = 0) { return v; };
  for (std::int64_t pl = 0; pl < in.n * in.c; ++pl) {
    const float* src = input + pl * in.h * in.w;
    float* dst = output + pl * out.h * out.w;
    if (!fits_row(w)) {
      max_pool_plane_by_taps(src, h, w, dst);
      continue;
    }
    for (std::int64_t oh = 0; oh < out.h; ++oh)
      pool_row(
          src, h, w, oh, dst + oh * out.w, lowest, [](float a, float b) { return max_nan(a, b); },
          same, same);
  }
}

GLASSBOX_VECTOR_CLONES
void avg_pool_planes(const float* input, Shape4 in, Shape4 out, const Pool2dParams& p,
                     float* output) {
  const Axis h = axis_h(in, out, p);
  const Axis w = axis_w(in, out, p);
  // The divisor's factor along one axis for output o whose in-bounds taps
  // are [k0, k1): the window clipped to the padded input, or the taps.
  const auto count = [&p](const Axis& a, std::int64_t o, std::int64_t k0, std::int64_t k1) {
    if (!p.count_include_pad) return std::max<std::int64_t>(k1 - k0, 0);
    const std::int64_t s = a.start(o);
    return std::min(s + a.kernel, a.in + a.pad_end) - s;
  };
  for (std::int64_t pl = 0; pl < in.n * in.c; ++pl) {
    const float* src = input + pl * in.h * in.w;
    float* dst = output + pl * out.h * out.w;
    for (std::int64_t oh = 0; oh < out.h; ++oh) {
      std::int64_t kh0 = 0, kh1 = 0;
      h.taps(oh, &kh0, &kh1);
      const std::int64_t rows = count(h, oh, kh0, kh1);
      const auto finish = [&](float sum, std::int64_t ow) {
        std::int64_t kw0 = 0, kw1 = 0;
        w.taps(ow, &kw0, &kw1);
        const std::int64_t n = rows * count(w, ow, kw0, kw1);
        return n > 0 ? sum / static_cast<float>(n) : 0.0f;
      };
      const float interior = static_cast<float>(rows * w.kernel);
      const auto finish_interior = [interior](float sum) { return sum / interior; };
      pool_row(
          src, h, w, oh, dst + oh * out.w, 0.0f, [](float a, float b) { return a + b; }, finish,
          finish_interior);
    }
  }
}

}  // namespace

Result<Shape4> pool2d_output_shape(Shape4 in, const Pool2dParams& p) {
  if (in.n < 0 || in.c < 0 || in.h < 1 || in.w < 1)
    return make_error(Error::kInvalidArgument, "pool2d: bad input shape");
  if (p.kernel_h < 1 || p.kernel_w < 1 || p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 ||
      p.dilation_w < 1 || p.pad_top < 0 || p.pad_left < 0 || p.pad_bottom < 0 || p.pad_right < 0)
    return make_error(Error::kInvalidArgument, "pool2d: bad parameters");
  const std::int64_t oh =
      pooled_size(in.h, p.kernel_h, p.stride_h, p.pad_top, p.pad_bottom, p.dilation_h, p.ceil_mode);
  const std::int64_t ow =
      pooled_size(in.w, p.kernel_w, p.stride_w, p.pad_left, p.pad_right, p.dilation_w, p.ceil_mode);
  if (oh < 1 || ow < 1) return make_error(Error::kInvalidArgument, "pool2d: window exceeds input");
  const Shape4 out{in.n, in.c, oh, ow};
  if (!checked_numel(in).ok() || !checked_numel(out).ok())
    return make_error(Error::kInvalidArgument, "pool2d: output size out of range");
  return out;
}

Error max_pool2d(const float* input, Shape4 in, const Pool2dParams& p, float* output) {
  Result<Shape4> out = pool2d_output_shape(in, p);
  if (!out.ok()) return out.error();
  if (!valid_io(input, output, in)) return Error::kInvalidArgument;
  max_pool_planes(input, in, *out, p, output);
  return Error::kOk;
}

Error avg_pool2d(const float* input, Shape4 in, const Pool2dParams& p, float* output) {
  if (p.dilation_h != 1 || p.dilation_w != 1) return Error::kInvalidArgument;
  Result<Shape4> out = pool2d_output_shape(in, p);
  if (!out.ok()) return out.error();
  if (!valid_io(input, output, in)) return Error::kInvalidArgument;
  avg_pool_planes(input, in, *out, p, output);
  return Error::kOk;
}

Error global_avg_pool2d(const float* input, Shape4 in, float* output) {
  if (in.n < 0 || in.c < 0 || in.h < 1 || in.w < 1) return Error::kInvalidArgument;
  if (!valid_io(input, output, in)) return Error::kInvalidArgument;
  const std::int64_t plane = in.h * in.w;
  for (std::int64_t pl = 0; pl < in.n * in.c; ++pl) {
    const float* src = input + pl * plane;
    float sum = 0.0f;
    for (std::int64_t i = 0; i < plane; ++i) sum += src[i];
    output[pl] = sum / static_cast<float>(plane);
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

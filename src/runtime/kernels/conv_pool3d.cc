#include "glassbox/runtime/kernels/conv_pool3d.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "glassbox/runtime/kernels/conv_transpose.h"
#include "glassbox/runtime/kernels/pooling.h"

namespace glassbox::runtime::kernels {
namespace {

// The output sizes follow the 2-D kernels' rules exactly, so each axis is
// sized by the 2-D shape function on a [1, 1, in, 1] image: one place
// holds each formula and its overflow checks.
std::int64_t window_axis(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                         std::int64_t dilation, std::int64_t pad_begin, std::int64_t pad_end,
                         bool ceil_mode) {
  Pool2dParams p;
  p.kernel_h = kernel;
  p.stride_h = stride;
  p.dilation_h = dilation;
  p.pad_top = pad_begin;
  p.pad_bottom = pad_end;
  p.ceil_mode = ceil_mode;
  Result<Shape4> out = pool2d_output_shape(Shape4{1, 1, in, 1}, p);
  return out.ok() ? out->h : 0;
}

std::int64_t transposed_axis(std::int64_t in, std::int64_t kernel, const Conv3dParams& p,
                             std::size_t axis) {
  ConvTranspose2dParams t;
  t.stride_h = p.stride[axis];
  t.dilation_h = p.dilation[axis];
  t.pad_top = p.pad_begin[axis];
  t.pad_bottom = p.pad_end[axis];
  t.output_padding_h = p.output_padding[axis];
  Result<Shape4> out =
      conv_transpose2d_output_shape(Shape4{1, 1, in, 1}, Shape4{1, 1, kernel, 1}, t);
  return out.ok() ? out->h : 0;
}

Spatial3 spatial(Shape5 s) { return {s.d, s.h, s.w}; }

// Elements of `s` as float32 bytes fit int64 (so indexing cannot overflow).
bool fits(Shape5 s) {
  std::int64_t n = sizeof(float);
  for (std::int64_t v : {s.n, s.c, s.d, s.h, s.w}) {
    if (v < 0 || __builtin_mul_overflow(n, v, &n)) return false;
  }
  return true;
}

bool valid_window(const Conv3dParams& p) {
  for (std::size_t i = 0; i < 3; ++i) {
    if (p.stride[i] < 1 || p.dilation[i] < 1 || p.pad_begin[i] < 0 || p.pad_end[i] < 0 ||
        p.output_padding[i] < 0)
      return false;
  }
  return p.groups >= 1;
}

// floor(a / b) for b > 0 and any sign of a.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// The i in [0, from_len) with i * stride + offset in [0, to_len): [*lo, *hi).
void index_range(std::int64_t from_len, std::int64_t to_len, std::int64_t stride,
                 std::int64_t offset, std::int64_t* lo, std::int64_t* hi) {
  *lo = std::max<std::int64_t>(0, -floor_div(offset, stride));
  *hi = std::min(from_len, floor_div(to_len - 1 - offset, stride) + 1);
}

// y[i * y_step + y_off] += w * x[i * x_step + x_off] for i in [lo, hi): the
// inner loop of both convolutions, a plain AXPY when both steps are 1.
// Pointers start at index lo, so none points outside its array.
inline void axpy_row(float* y, std::int64_t y_step, std::int64_t y_off, const float* x,
                     std::int64_t x_step, std::int64_t x_off, float w, std::int64_t lo,
                     std::int64_t hi) {
  float* yp = y + lo * y_step + y_off;
  const float* xp = x + lo * x_step + x_off;
  const std::int64_t count = hi - lo;
  if (y_step == 1 && x_step == 1) {
    for (std::int64_t i = 0; i < count; ++i) yp[i] += w * xp[i];
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) yp[i * y_step] += w * xp[i * x_step];
}

// Adds one input channel's share into one output volume, taps (weights
// `wk`) in (kd, kh, kw) order. A convolution gathers: output position a
// reads input a * stride - pad + k * dilation. Transposed it scatters:
// input a adds into output a * stride - pad + k * dilation. Either way the
// loops run over the a side and skip partners outside the other volume.
void add_taps(bool transposed, const float* x, Shape5 in, const float* wk, Shape5 ws,
              const Conv3dParams& p, float* y, Shape5 out) {
  const Shape5 a = transposed ? in : out;
  const Shape5 b = transposed ? out : in;
  for (std::int64_t kd = 0; kd < ws.d; ++kd) {
    for (std::int64_t kh = 0; kh < ws.h; ++kh) {
      for (std::int64_t kw = 0; kw < ws.w; ++kw) {
        const float wv = wk[(kd * ws.h + kh) * ws.w + kw];
        const std::int64_t off_w = kw * p.dilation[2] - p.pad_begin[2];
        std::int64_t lo = 0, hi = 0;
        index_range(a.w, b.w, p.stride[2], off_w, &lo, &hi);
        if (lo >= hi) continue;
        for (std::int64_t ad = 0; ad < a.d; ++ad) {
          const std::int64_t bd = ad * p.stride[0] - p.pad_begin[0] + kd * p.dilation[0];
          if (bd < 0 || bd >= b.d) continue;
          for (std::int64_t ah = 0; ah < a.h; ++ah) {
            const std::int64_t bh = ah * p.stride[1] - p.pad_begin[1] + kh * p.dilation[1];
            if (bh < 0 || bh >= b.h) continue;
            const std::int64_t a_row = (ad * a.h + ah) * a.w;
            const std::int64_t b_row = (bd * b.h + bh) * b.w;
            if (transposed) {
              axpy_row(y + b_row, p.stride[2], off_w, x + a_row, 1, 0, wv, lo, hi);
            } else {
              axpy_row(y + a_row, 1, 0, x + b_row, p.stride[2], off_w, wv, lo, hi);
            }
          }
        }
      }
    }
  }
}

}  // namespace

Result<Shape5> conv3d_output_shape(Shape5 in, Shape5 w, const Conv3dParams& p) {
  if (in.n < 0 || in.c < 1 || in.d < 1 || in.h < 1 || in.w < 1 || w.n < 1 || w.c < 1 || w.d < 1 ||
      w.h < 1 || w.w < 1 || !valid_window(p) || in.c % p.groups != 0 || w.n % p.groups != 0 ||
      w.c * p.groups != in.c || !fits(in) || !fits(w))
    return make_error(Error::kInvalidArgument, "conv3d: bad shapes or parameters");
  Shape5 out{in.n, w.n, 0, 0, 0};
  const Spatial3 x = spatial(in), k = spatial(w);
  std::int64_t* sizes[] = {&out.d, &out.h, &out.w};
  for (std::size_t i = 0; i < 3; ++i) {
    *sizes[i] =
        window_axis(x[i], k[i], p.stride[i], p.dilation[i], p.pad_begin[i], p.pad_end[i], false);
    if (*sizes[i] < 1) return make_error(Error::kInvalidArgument, "conv3d: window does not fit");
  }
  if (!fits(out)) return make_error(Error::kInvalidArgument, "conv3d: output too large");
  return out;
}

Error conv3d(const float* input, Shape5 in, const float* weight, Shape5 ws, const float* bias,
             const Conv3dParams& p, float* output) {
  Result<Shape5> shape = conv3d_output_shape(in, ws, p);
  if (!shape.ok()) return shape.error();
  const Shape5 out = *shape;
  if (out.numel() == 0) return Error::kOk;
  if (input == nullptr || weight == nullptr || output == nullptr) return Error::kInvalidArgument;
  const std::int64_t in_per_group = ws.c;
  const std::int64_t out_per_group = out.c / p.groups;
  const std::int64_t in_volume = in.d * in.h * in.w;
  const std::int64_t out_volume = out.d * out.h * out.w;
  const std::int64_t taps = ws.d * ws.h * ws.w;
  for (std::int64_t n = 0; n < out.n; ++n) {
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      // One output volume at a time, so it stays in cache while every input
      // channel and tap of the group adds into it.
      float* y = output + (n * out.c + oc) * out_volume;
      std::fill(y, y + out_volume, bias != nullptr ? bias[oc] : 0.0f);
      const std::int64_t first_ic = oc / out_per_group * in_per_group;
      for (std::int64_t i = 0; i < in_per_group; ++i) {
        const float* x = input + (n * in.c + first_ic + i) * in_volume;
        const float* wk = weight + (oc * in_per_group + i) * taps;
        add_taps(false, x, in, wk, ws, p, y, out);
      }
    }
  }
  return Error::kOk;
}

Result<Shape5> conv_transpose3d_output_shape(Shape5 in, Shape5 w, const Conv3dParams& p) {
  if (in.n < 0 || in.c < 1 || in.d < 1 || in.h < 1 || in.w < 1 || w.n != in.c || w.c < 1 ||
      w.d < 1 || w.h < 1 || w.w < 1 || !valid_window(p) || in.c % p.groups != 0 || !fits(in) ||
      !fits(w))
    return make_error(Error::kInvalidArgument, "conv_transpose3d: bad shapes or parameters");
  Shape5 out{in.n, 0, 0, 0, 0};
  if (__builtin_mul_overflow(w.c, p.groups, &out.c))
    return make_error(Error::kInvalidArgument, "conv_transpose3d: too many output channels");
  const Spatial3 x = spatial(in), k = spatial(w);
  std::int64_t* sizes[] = {&out.d, &out.h, &out.w};
  for (std::size_t i = 0; i < 3; ++i) {
    *sizes[i] = transposed_axis(x[i], k[i], p, i);
    if (*sizes[i] < 1) {
      return make_error(Error::kInvalidArgument, "conv_transpose3d: output size out of range");
    }
  }
  if (!fits(out)) return make_error(Error::kInvalidArgument, "conv_transpose3d: output too large");
  return out;
}

Error conv_transpose3d(const float* input, Shape5 in, const float* weight, Shape5 ws,
                       const float* bias, const Conv3dParams& p, Shape5 output_shape,
                       float* output) {
  Result<Shape5> shape = conv_transpose3d_output_shape(in, ws, p);
  if (!shape.ok()) return shape.error();
  if (!(*shape == output_shape)) return Error::kInvalidArgument;
  const Shape5 out = output_shape;
  if (out.numel() == 0) return Error::kOk;
  if (input == nullptr || weight == nullptr || output == nullptr) return Error::kInvalidArgument;
  const std::int64_t in_per_group = in.c / p.groups;
  const std::int64_t out_per_group = ws.c;
  const std::int64_t in_volume = in.d * in.h * in.w;
  const std::int64_t out_volume = out.d * out.h * out.w;
  const std::int64_t taps = ws.d * ws.h * ws.w;
  for (std::int64_t n = 0; n < out.n; ++n) {
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      float* y = output + (n * out.c + oc) * out_volume;
      std::fill(y, y + out_volume, bias != nullptr ? bias[oc] : 0.0f);
      const std::int64_t group = oc / out_per_group;
      for (std::int64_t i = 0; i < in_per_group; ++i) {
        const std::int64_t ic = group * in_per_group + i;
        const float* x = input + (n * in.c + ic) * in_volume;
        const float* wk = weight + (ic * out_per_group + oc % out_per_group) * taps;
        add_taps(true, x, in, wk, ws, p, y, out);
      }
    }
  }
  return Error::kOk;
}

Result<Shape5> pool3d_output_shape(Shape5 in, const Pool3dParams& p) {
  if (in.n < 0 || in.c < 0 || in.d < 1 || in.h < 1 || in.w < 1 || !fits(in))
    return make_error(Error::kInvalidArgument, "pool3d: bad input shape");
  Shape5 out{in.n, in.c, 0, 0, 0};
  const Spatial3 x = spatial(in);
  std::int64_t* sizes[] = {&out.d, &out.h, &out.w};
  for (std::size_t i = 0; i < 3; ++i) {
    *sizes[i] = window_axis(x[i], p.kernel[i], p.stride[i], p.dilation[i], p.pad_begin[i],
                            p.pad_end[i], p.ceil_mode);
    if (*sizes[i] < 1) return make_error(Error::kInvalidArgument, "pool3d: window does not fit");
  }
  return out;
}

namespace {

// Runs `window(x, starts, y)` for every output position of every plane,
// where starts are the window's first input coordinates (may be negative).
template <typename Window>
Error for_each_window(const float* input, Shape5 in, const Pool3dParams& p, float* output,
                      Window window) {
  Result<Shape5> shape = pool3d_output_shape(in, p);
  if (!shape.ok()) return shape.error();
  const Shape5 out = *shape;
  if (out.numel() == 0) return Error::kOk;
  if (input == nullptr || output == nullptr) return Error::kInvalidArgument;
  const std::int64_t in_volume = in.d * in.h * in.w;
  for (std::int64_t plane = 0; plane < in.n * in.c; ++plane) {
    const float* x = input + plane * in_volume;
    for (std::int64_t od = 0; od < out.d; ++od) {
      for (std::int64_t oh = 0; oh < out.h; ++oh) {
        for (std::int64_t ow = 0; ow < out.w; ++ow) {
          const Spatial3 starts{od * p.stride[0] - p.pad_begin[0],
                                oh * p.stride[1] - p.pad_begin[1],
                                ow * p.stride[2] - p.pad_begin[2]};
          *output++ = window(x, starts);
        }
      }
    }
  }
  return Error::kOk;
}

}  // namespace

Error max_pool3d(const float* input, Shape5 in, const Pool3dParams& p, float* output) {
  return for_each_window(input, in, p, output, [&](const float* x, const Spatial3& s) {
    float m = -std::numeric_limits<float>::infinity();
    for (std::int64_t kd = 0; kd < p.kernel[0]; ++kd) {
      const std::int64_t id = s[0] + kd * p.dilation[0];
      if (id < 0 || id >= in.d) continue;
      for (std::int64_t kh = 0; kh < p.kernel[1]; ++kh) {
        const std::int64_t ih = s[1] + kh * p.dilation[1];
        if (ih < 0 || ih >= in.h) continue;
        const float* row = x + (id * in.h + ih) * in.w;
        for (std::int64_t kw = 0; kw < p.kernel[2]; ++kw) {
          const std::int64_t iw = s[2] + kw * p.dilation[2];
          if (iw < 0 || iw >= in.w) continue;
          // Once m is NaN no comparison is true, so NaN stays.
          if (row[iw] > m || std::isnan(row[iw])) m = row[iw];
        }
      }
    }
    return m;
  });
}

Error avg_pool3d(const float* input, Shape5 in, const Pool3dParams& p, float* output) {
  if (p.dilation != Spatial3{1, 1, 1}) return Error::kInvalidArgument;
  const Spatial3 x_size = spatial(in);
  return for_each_window(input, in, p, output, [&](const float* x, const Spatial3& s) {
    // Per axis, the window clipped to the input [lo, hi) and to the padded
    // input (its length for count_include_pad).
    Spatial3 lo{}, hi{};
    std::int64_t divisor = 1;
    for (std::size_t i = 0; i < 3; ++i) {
      lo[i] = std::max<std::int64_t>(s[i], 0);
      hi[i] = std::min(s[i] + p.kernel[i], x_size[i]);
      if (hi[i] <= lo[i]) return 0.0f;
      divisor *= p.count_include_pad ? std::min(s[i] + p.kernel[i], x_size[i] + p.pad_end[i]) -
                                           std::max(s[i], -p.pad_begin[i])
                                     : hi[i] - lo[i];
    }
    float sum = 0.0f;
    for (std::int64_t id = lo[0]; id < hi[0]; ++id) {
      for (std::int64_t ih = lo[1]; ih < hi[1]; ++ih) {
        const float* row = x + (id * in.h + ih) * in.w;
        for (std::int64_t iw = lo[2]; iw < hi[2]; ++iw) sum += row[iw];
      }
    }
    return sum / static_cast<float>(divisor);
  });
}

}  // namespace glassbox::runtime::kernels

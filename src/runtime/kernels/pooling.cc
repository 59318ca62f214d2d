#include "glassbox/runtime/kernels/pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>

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
  const std::int64_t planes = in.n * in.c;
  for (std::int64_t pl = 0; pl < planes; ++pl) {
    const float* src = input + pl * in.h * in.w;
    float* dst = output + pl * out->h * out->w;
    for (std::int64_t oh = 0; oh < out->h; ++oh) {
      for (std::int64_t ow = 0; ow < out->w; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          if (ih < 0 || ih >= in.h) continue;
          for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            if (iw < 0 || iw >= in.w) continue;
            const float v = src[ih * in.w + iw];
            if (v > best || std::isnan(v)) best = v;
            if (std::isnan(best)) break;
          }
        }
        dst[oh * out->w + ow] = best;
      }
    }
  }
  return Error::kOk;
}

Error avg_pool2d(const float* input, Shape4 in, const Pool2dParams& p, float* output) {
  if (p.dilation_h != 1 || p.dilation_w != 1) return Error::kInvalidArgument;
  Result<Shape4> out = pool2d_output_shape(in, p);
  if (!out.ok()) return out.error();
  if (!valid_io(input, output, in)) return Error::kInvalidArgument;
  const std::int64_t planes = in.n * in.c;
  for (std::int64_t pl = 0; pl < planes; ++pl) {
    const float* src = input + pl * in.h * in.w;
    float* dst = output + pl * out->h * out->w;
    for (std::int64_t oh = 0; oh < out->h; ++oh) {
      const std::int64_t h0 = oh * p.stride_h - p.pad_top;
      const std::int64_t h1 = std::min(h0 + p.kernel_h, in.h + p.pad_bottom);
      const std::int64_t ih0 = std::max<std::int64_t>(h0, 0);
      const std::int64_t ih1 = std::min(h1, in.h);
      for (std::int64_t ow = 0; ow < out->w; ++ow) {
        const std::int64_t w0 = ow * p.stride_w - p.pad_left;
        const std::int64_t w1 = std::min(w0 + p.kernel_w, in.w + p.pad_right);
        const std::int64_t iw0 = std::max<std::int64_t>(w0, 0);
        const std::int64_t iw1 = std::min(w1, in.w);
        float sum = 0.0f;
        for (std::int64_t ih = ih0; ih < ih1; ++ih)
          for (std::int64_t iw = iw0; iw < iw1; ++iw) sum += src[ih * in.w + iw];
        const std::int64_t count = p.count_include_pad ? (h1 - h0) * (w1 - w0)
                                                       : std::max<std::int64_t>(ih1 - ih0, 0) *
                                                             std::max<std::int64_t>(iw1 - iw0, 0);
        dst[oh * out->w + ow] = count > 0 ? sum / static_cast<float>(count) : 0.0f;
      }
    }
  }
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

#include "glassbox/runtime/kernels/conv_transpose.h"

#include <algorithm>

namespace glassbox::runtime::kernels {
namespace {

// One output length, each step overflow-checked:
//   stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1
//   - pad_begin - pad_end.
bool transposed_length(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                       std::int64_t dilation, std::int64_t pad_begin, std::int64_t pad_end,
                       std::int64_t output_padding, std::int64_t* out) {
  std::int64_t full = 0;
  std::int64_t span = 0;
  if (__builtin_mul_overflow(stride, in - 1, &full) ||
      __builtin_mul_overflow(kernel - 1, dilation, &span) ||
      __builtin_add_overflow(full, span, &full) ||
      __builtin_add_overflow(full, output_padding, &full) ||
      __builtin_add_overflow(full, 1, &full) || __builtin_sub_overflow(full, pad_begin, &full) ||
      __builtin_sub_overflow(full, pad_end, &full))
    return false;
  *out = full;
  return full >= 1;
}

bool checked_numel(Shape4 s, std::int64_t* n) {
  return !__builtin_mul_overflow(s.n, s.c, n) && !__builtin_mul_overflow(*n, s.h, n) &&
         !__builtin_mul_overflow(*n, s.w, n) &&
         !__builtin_mul_overflow(*n, std::int64_t{sizeof(float)}, n);
}

// floor(a / b) for b > 0 and any sign of a.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// The input indices i in [0, in_len) whose output i * stride + offset lies
// in [0, out_len): [*first, *end), possibly empty.
void tap_range(std::int64_t in_len, std::int64_t out_len, std::int64_t stride, std::int64_t offset,
               std::int64_t* first, std::int64_t* end) {
  *first = std::max<std::int64_t>(0, -floor_div(offset, stride));
  *end = std::min(in_len, floor_div(out_len - 1 - offset, stride) + 1);
}

}  // namespace

Result<Shape4> conv_transpose2d_output_shape(Shape4 input, Shape4 weight,
                                             const ConvTranspose2dParams& p) {
  if (input.n < 0 || input.c < 1 || input.h < 1 || input.w < 1 || weight.n != input.c ||
      weight.c < 1 || weight.h < 1 || weight.w < 1)
    return make_error(Error::kInvalidArgument, "conv_transpose2d: bad tensor shape");
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1 || p.pad_top < 0 ||
      p.pad_left < 0 || p.pad_bottom < 0 || p.pad_right < 0 || p.output_padding_h < 0 ||
      p.output_padding_w < 0 || p.groups < 1 || input.c % p.groups != 0)
    return make_error(Error::kInvalidArgument, "conv_transpose2d: bad parameters");
  Shape4 out{input.n, 0, 0, 0};
  std::int64_t numel = 0;
  if (__builtin_mul_overflow(weight.c, p.groups, &out.c) ||
      !transposed_length(input.h, weight.h, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom,
                         p.output_padding_h, &out.h) ||
      !transposed_length(input.w, weight.w, p.stride_w, p.dilation_w, p.pad_left, p.pad_right,
                         p.output_padding_w, &out.w) ||
      !checked_numel(input, &numel) || !checked_numel(weight, &numel) ||
      !checked_numel(out, &numel))
    return make_error(Error::kInvalidArgument, "conv_transpose2d: output size out of range");
  return out;
}

Error conv_transpose2d(const float* input, Shape4 input_shape, const float* weight,
                       Shape4 weight_shape, const float* bias, const ConvTranspose2dParams& p,
                       Shape4 output_shape, float* output) {
  Result<Shape4> expected = conv_transpose2d_output_shape(input_shape, weight_shape, p);
  if (!expected.ok()) return expected.error();
  if (!(*expected == output_shape)) return Error::kInvalidArgument;
  const Shape4 in = input_shape;
  const Shape4 out = output_shape;
  if (out.numel() == 0) return Error::kOk;
  if (input == nullptr || weight == nullptr || output == nullptr) return Error::kInvalidArgument;
  const std::int64_t in_per_group = in.c / p.groups;
  const std::int64_t out_per_group = weight_shape.c;
  const std::int64_t taps = weight_shape.h * weight_shape.w;
  const std::int64_t in_plane = in.h * in.w;
  const std::int64_t out_plane = out.h * out.w;
  for (std::int64_t n = 0; n < in.n; ++n) {
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      const std::int64_t group = oc / out_per_group;
      const std::int64_t oc_in_group = oc % out_per_group;
      float* y = output + (n * out.c + oc) * out_plane;
      std::fill(y, y + out_plane, bias != nullptr ? bias[oc] : 0.0f);
      // One output plane at a time, so it stays in cache while every input
      // channel of the group adds into it.
      for (std::int64_t i = 0; i < in_per_group; ++i) {
        const std::int64_t ic = group * in_per_group + i;
        const float* x = input + (n * in.c + ic) * in_plane;
        const float* w = weight + (ic * out_per_group + oc_in_group) * taps;
        for (std::int64_t kh = 0; kh < weight_shape.h; ++kh) {
          const std::int64_t offset_h = kh * p.dilation_h - p.pad_top;
          std::int64_t ih0 = 0;
          std::int64_t ih1 = 0;
          tap_range(in.h, out.h, p.stride_h, offset_h, &ih0, &ih1);
          for (std::int64_t kw = 0; kw < weight_shape.w; ++kw) {
            const std::int64_t offset_w = kw * p.dilation_w - p.pad_left;
            std::int64_t iw0 = 0;
            std::int64_t iw1 = 0;
            tap_range(in.w, out.w, p.stride_w, offset_w, &iw0, &iw1);
            if (ih0 >= ih1 || iw0 >= iw1) continue;
            const float tap = w[kh * weight_shape.w + kw];
            const std::int64_t cols = iw1 - iw0;
            for (std::int64_t ih = ih0; ih < ih1; ++ih) {
              const float* src = x + ih * in.w + iw0;
              float* dst = y + (ih * p.stride_h + offset_h) * out.w + iw0 * p.stride_w + offset_w;
              if (p.stride_w == 1) {
                for (std::int64_t j = 0; j < cols; ++j) dst[j] += tap * src[j];
              } else {
                for (std::int64_t j = 0; j < cols; ++j) dst[j * p.stride_w] += tap * src[j];
              }
            }
          }
        }
      }
    }
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

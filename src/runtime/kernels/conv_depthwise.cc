#include "src/runtime/kernels/conv_depthwise.h"

#include <algorithm>

namespace glassbox::runtime::kernels::internal {
namespace {

// Smallest ow with ow * stride + offset >= 0, i.e. ceil(-offset / stride).
std::int64_t first_valid(std::int64_t offset, std::int64_t stride) {
  if (offset >= 0) return 0;
  return (-offset + stride - 1) / stride;
}

// One past the largest ow with ow * stride + offset < limit.
std::int64_t end_valid(std::int64_t offset, std::int64_t stride, std::int64_t limit) {
  if (offset >= limit) return 0;
  return (limit - 1 - offset) / stride + 1;
}

}  // namespace

// Each output row is accumulated tap by tap: for a fixed (kh, kw) the valid
// output columns form one contiguous range and the input is read with a
// constant stride, so the inner loop has no bounds checks and vectorises
// for stride 1. The row stays in L1 across the KH*KW passes.
void conv2d_depthwise(const float* input, Shape4 in, const float* weight, Shape4 w,
                      const float* bias, const Conv2dParams& p, float* output, Shape4 out) {
  const std::int64_t oc_per_group = w.n / p.groups;
  const std::int64_t plane = in.h * in.w;
  for (std::int64_t n = 0; n < in.n; ++n) {
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      const std::int64_t ic = oc / oc_per_group;
      const float* src = input + (n * in.c + ic) * plane;
      const float* taps = weight + oc * w.h * w.w;
      float* dst_plane = output + (n * out.c + oc) * out.h * out.w;
      const float b = bias != nullptr ? bias[oc] : 0.0f;
      for (std::int64_t oh = 0; oh < out.h; ++oh) {
        float* dst = dst_plane + oh * out.w;
        std::fill(dst, dst + out.w, b);
        for (std::int64_t kh = 0; kh < w.h; ++kh) {
          const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          if (ih < 0 || ih >= in.h) continue;
          const float* __restrict row = src + ih * in.w;
          for (std::int64_t kw = 0; kw < w.w; ++kw) {
            const float tap = taps[kh * w.w + kw];
            const std::int64_t offset = kw * p.dilation_w - p.pad_left;
            const std::int64_t lo = first_valid(offset, p.stride_w);
            const std::int64_t hi = std::min(out.w, end_valid(offset, p.stride_w, in.w));
            if (p.stride_w == 1) {
              // Both pointers start at column lo, so none points outside
              // its row even when offset < 0.
              const float* __restrict from = row + lo + offset;
              float* __restrict to = dst + lo;
              for (std::int64_t i = 0; i < hi - lo; ++i) to[i] += tap * from[i];
            } else {
              for (std::int64_t ow = lo; ow < hi; ++ow)
                dst[ow] += tap * row[ow * p.stride_w + offset];
            }
          }
        }
      }
    }
  }
}

}  // namespace glassbox::runtime::kernels::internal

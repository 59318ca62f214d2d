// qlinear_conv2d: im2col tiles of int16 (x - x_zp) patches against int16
// (w - w_zp) filter rows, through the dot tile of qgemm.cc. Padding packs
// as 0, which is x_zp minus x_zp. Depthwise layers (one input channel per
// group) take direct loops instead: their dot products would be KH * KW
// long.

#include <algorithm>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_internal.h"

namespace glassbox::runtime::kernels {
namespace {

using internal::Requantizer;

constexpr std::int64_t kPixelTile = 32;    // output pixels per im2col tile
constexpr std::int64_t kChannelTile = 16;  // output channels per filter tile

struct ConvArgs {
  Shape4 in, w, out;
  const Conv2dParams* p;
  std::int64_t k;  // C/groups * KH * KW
};

// dst[j][(ic * KH + kh) * KW + kw] = x at pixel p0 + j's tap, minus zp
// (0 outside the image), for j < pc. `x` is the group's first channel.
template <typename X>
void pack_patches(const ConvArgs& a, const X* x, std::int32_t zp, std::int64_t p0, std::int64_t pc,
                  std::int16_t* dst) {
  const Conv2dParams& p = *a.p;
  const std::int64_t plane = a.in.h * a.in.w;
  for (std::int64_t j = 0; j < pc; ++j) {
    const std::int64_t pix = p0 + j;
    const std::int64_t ih0 = (pix / a.out.w) * p.stride_h - p.pad_top;
    const std::int64_t iw0 = (pix % a.out.w) * p.stride_w - p.pad_left;
    std::int16_t* d = dst + j * a.k;
    for (std::int64_t ic = 0; ic < a.w.c; ++ic) {
      const X* src = x + ic * plane;
      for (std::int64_t kh = 0; kh < a.w.h; ++kh, d += a.w.w) {
        const std::int64_t ih = ih0 + kh * p.dilation_h;
        if (ih < 0 || ih >= a.in.h) {
          std::fill(d, d + a.w.w, std::int16_t{0});
          continue;
        }
        const X* row = src + ih * a.in.w;
        for (std::int64_t kw = 0; kw < a.w.w; ++kw) {
          const std::int64_t iw = iw0 + kw * p.dilation_w;
          d[kw] = iw >= 0 && iw < a.in.w ? static_cast<std::int16_t>(row[iw] - zp) : 0;
        }
      }
    }
  }
}

// dst[i][kk] = w[oc0 + i][kk] - w_zp[oc0 + i] for i < count.
template <typename W>
void pack_filters(const QuantWeight& w, std::int64_t k, std::int64_t oc0, std::int64_t count,
                  std::int16_t* dst) {
  const W* src = static_cast<const W*>(w.data) + oc0 * k;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int32_t zp = internal::weight_zero_point(w, oc0 + i);
    for (std::int64_t kk = 0; kk < k; ++kk)
      dst[i * k + kk] = static_cast<std::int16_t>(src[i * k + kk] - zp);
  }
}

// y[n][oc0 + i][p0 + j] from acc[i][j].
template <typename Y>
void store_tile(const ConvArgs& a, const QuantInput& x, const QuantWeight& w,
                const std::int32_t* bias, const QuantOutput& y, const Requantizer& rq,
                const std::int64_t* acc, std::int64_t n, std::int64_t oc0, std::int64_t count,
                std::int64_t p0, std::int64_t pc) {
  const std::int64_t pixels = a.out.h * a.out.w;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t oc = oc0 + i;
    const float multiplier = x.scale * internal::weight_scale(w, oc) / y.scale;
    const std::int64_t b = bias != nullptr ? bias[oc] : 0;
    Y* dst = static_cast<Y*>(y.data) + (n * a.out.c + oc) * pixels + p0;
    for (std::int64_t j = 0; j < pc; ++j)
      dst[j] = static_cast<Y>(rq(static_cast<float>(acc[i * kPixelTile + j] + b) * multiplier));
  }
}

// Depthwise (one input channel per group, KH * KW <= kDotBlock taps):
// direct loops, each output row's int32 sums built one tap at a time over
// the columns that tap sees inside the image (unit stride when stride_w
// is 1), so no im2col and no short dot products.
constexpr std::int64_t kRowChunk = 512;

template <typename X, typename W>
void depthwise_row(const ConvArgs& a, const X* plane, std::int32_t x_zp, const W* filter,
                   std::int32_t w_zp, std::int64_t oh, std::int64_t ow0, std::int64_t count,
                   std::int32_t* acc) {
  const Conv2dParams& p = *a.p;
  std::fill(acc, acc + count, 0);
  for (std::int64_t kh = 0; kh < a.w.h; ++kh) {
    const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
    if (ih < 0 || ih >= a.in.h) continue;
    const X* row = plane + ih * a.in.w;
    for (std::int64_t kw = 0; kw < a.w.w; ++kw) {
      const std::int32_t wv = static_cast<std::int32_t>(filter[kh * a.w.w + kw]) - w_zp;
      // Columns ow with 0 <= ow * stride_w + shift < W.
      const std::int64_t shift = kw * p.dilation_w - p.pad_left;
      std::int64_t lo = shift >= 0 ? 0 : (-shift + p.stride_w - 1) / p.stride_w;
      std::int64_t hi = shift >= a.in.w ? 0 : (a.in.w - 1 - shift) / p.stride_w + 1;
      lo = std::max(lo, ow0) - ow0;
      hi = std::min(hi, ow0 + count) - ow0;
      if (lo >= hi) continue;
      // In bounds: the first column read is (ow0 + lo) * stride_w + shift.
      const X* src = row + (ow0 + lo) * p.stride_w + shift;
      std::int32_t* sum = acc + lo;
      const std::int64_t m = hi - lo;
      if (p.stride_w == 1) {
        for (std::int64_t j = 0; j < m; ++j)
          sum[j] += wv * (static_cast<std::int32_t>(src[j]) - x_zp);
      } else {
        for (std::int64_t j = 0; j < m; ++j)
          sum[j] += wv * (static_cast<std::int32_t>(src[j * p.stride_w]) - x_zp);
      }
    }
  }
}

// out[j] = requantized acc[j] + bias for j < count, at element `offset` of y.
void store_row(const QuantOutput& y, const Requantizer& rq, std::int64_t offset,
               const std::int32_t* acc, std::int64_t count, std::int32_t bias, float multiplier) {
  internal::dispatch_q8(y.type, [&](auto t) {
    using Y = decltype(t);
    Y* out = static_cast<Y*>(y.data) + offset;
    for (std::int64_t j = 0; j < count; ++j)
      out[j] = static_cast<Y>(
          rq(static_cast<float>(static_cast<std::int64_t>(acc[j]) + bias) * multiplier));
  });
}

template <typename X, typename W>
void depthwise(const ConvArgs& a, const QuantInput& x, const QuantWeight& w,
               const std::int32_t* bias, const QuantOutput& y, const Requantizer& rq) {
  const std::int64_t oc_per_group = a.w.n / a.p->groups;
  const std::int64_t taps = a.w.h * a.w.w;
  std::int32_t acc[kRowChunk];
  for (std::int64_t n = 0; n < a.out.n; ++n)
    for (std::int64_t oc = 0; oc < a.out.c; ++oc) {
      const X* plane =
          static_cast<const X*>(x.data) + (n * a.in.c + oc / oc_per_group) * a.in.h * a.in.w;
      const W* filter = static_cast<const W*>(w.data) + oc * taps;
      const std::int32_t w_zp = internal::weight_zero_point(w, oc);
      const float multiplier = x.scale * internal::weight_scale(w, oc) / y.scale;
      const std::int32_t b = bias != nullptr ? bias[oc] : 0;
      const std::int64_t plane_out = (n * a.out.c + oc) * a.out.h * a.out.w;
      for (std::int64_t oh = 0; oh < a.out.h; ++oh)
        for (std::int64_t ow0 = 0; ow0 < a.out.w; ow0 += kRowChunk) {
          const std::int64_t count = std::min(kRowChunk, a.out.w - ow0);
          depthwise_row(a, plane, x.zero_point, filter, w_zp, oh, ow0, count, acc);
          store_row(y, rq, plane_out + oh * a.out.w + ow0, acc, count, b, multiplier);
        }
    }
}

}  // namespace

std::size_t qlinear_conv2d_scratch_bytes(Shape4 x_shape, Shape4 w_shape,
                                         const Conv2dParams& params) {
  if (!conv2d_output_shape(x_shape, w_shape, params).ok()) return 0;
  const std::int64_t k = w_shape.c * w_shape.h * w_shape.w;
  return static_cast<std::size_t>((kPixelTile + kChannelTile) * k) * sizeof(std::int16_t) +
         2 * alignof(std::int16_t);
}

ErrorInfo qlinear_conv2d(const QuantInput& x, Shape4 x_shape, const QuantWeight& w, Shape4 w_shape,
                         const std::int32_t* bias, const Conv2dParams& params, const QuantOutput& y,
                         Span<std::uint8_t> scratch) {
  constexpr const char* kMessage = "qlinear_conv2d: bad type, scale or zero point";
  Result<Shape4> out = conv2d_output_shape(x_shape, w_shape, params);
  if (!out.ok()) return out.error_info();
  if (ErrorInfo e = internal::check_input(x, kMessage); e.code != Error::kOk) return e;
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(y, kMessage, &rq); e.code != Error::kOk) return e;
  if (ErrorInfo e = internal::check_weight(w, w_shape.n, x.scale, y.scale, kMessage);
      e.code != Error::kOk)
    return e;
  if (out->numel() == 0) return kOk;
  if (x.data == nullptr || w.data == nullptr || y.data == nullptr)
    return make_error(Error::kInvalidArgument, "qlinear_conv2d: null pointer");

  const ConvArgs a{x_shape, w_shape, *out, &params, w_shape.c * w_shape.h * w_shape.w};
  if (w_shape.c == 1 && a.k <= internal::kDotBlock) {
    internal::dispatch_q8(x.type, [&](auto xt) {
      internal::dispatch_q8(
          w.type, [&](auto wt) { depthwise<decltype(xt), decltype(wt)>(a, x, w, bias, y, rq); });
    });
    return kOk;
  }
  std::int16_t* cols = internal::carve<std::int16_t>(&scratch, kPixelTile * a.k);
  std::int16_t* rows = internal::carve<std::int16_t>(&scratch, kChannelTile * a.k);
  if (cols == nullptr || rows == nullptr)
    return make_error(Error::kInvalidArgument, "qlinear_conv2d: scratch too small");

  const std::int64_t pixels = a.out.h * a.out.w;
  const std::int64_t oc_per_group = w_shape.n / params.groups;
  const std::int64_t plane = x_shape.h * x_shape.w;
  std::int64_t acc[kChannelTile * kPixelTile];
  for (std::int64_t n = 0; n < a.out.n; ++n)
    for (std::int64_t g = 0; g < params.groups; ++g) {
      const std::int64_t channel0 = n * x_shape.c + g * w_shape.c;
      for (std::int64_t p0 = 0; p0 < pixels; p0 += kPixelTile) {
        const std::int64_t pc = std::min(kPixelTile, pixels - p0);
        internal::dispatch_q8(x.type, [&](auto t) {
          using X = decltype(t);
          const X* group_x = static_cast<const X*>(x.data) + channel0 * plane;
          pack_patches(a, group_x, x.zero_point, p0, pc, cols);
        });
        for (std::int64_t i0 = 0; i0 < oc_per_group; i0 += kChannelTile) {
          const std::int64_t oc0 = g * oc_per_group + i0;
          const std::int64_t count = std::min(kChannelTile, oc_per_group - i0);
          internal::dispatch_q8(
              w.type, [&](auto t) { pack_filters<decltype(t)>(w, a.k, oc0, count, rows); });
          internal::dot_tile(rows, count, cols, pc, a.k, acc, kPixelTile);
          internal::dispatch_q8(y.type, [&](auto t) {
            store_tile<decltype(t)>(a, x, w, bias, y, rq, acc, n, oc0, count, p0, pc);
          });
        }
      }
    }
  return kOk;
}

}  // namespace glassbox::runtime::kernels

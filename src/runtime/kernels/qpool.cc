// Quantized pooling (average, global average, max) and concat.

#include <algorithm>
#include <cstring>

#include "glassbox/runtime/kernels/quantized.h"
#include "src/runtime/kernels/quantized_internal.h"

namespace glassbox::runtime::kernels {
namespace {

using internal::Requantizer;

// [lo, hi) clipped to [0, size).
inline void clip(std::int64_t lo, std::int64_t hi, std::int64_t size, std::int64_t* a,
                 std::int64_t* b) {
  *a = std::max<std::int64_t>(lo, 0);
  *b = std::min(hi, size);
}

template <typename T>
void avg_pool(const QuantInput& x, Shape4 is, const Pool2dParams& p, Shape4 os,
              const QuantOutput& y, const Requantizer& rq) {
  const T* in = static_cast<const T*>(x.data);
  T* out = static_cast<T*>(y.data);
  const float ratio = x.scale / y.scale;
  for (std::int64_t pl = 0; pl < is.n * is.c; ++pl) {
    const T* plane = in + pl * is.h * is.w;
    for (std::int64_t oh = 0; oh < os.h; ++oh) {
      const std::int64_t h0 = oh * p.stride_h - p.pad_top;
      const std::int64_t h1 = h0 + p.kernel_h;
      std::int64_t ih0 = 0, ih1 = 0;
      clip(h0, h1, is.h, &ih0, &ih1);
      const std::int64_t padded_h = std::min(h1, is.h + p.pad_bottom) - std::max(h0, -p.pad_top);
      for (std::int64_t ow = 0; ow < os.w; ++ow) {
        const std::int64_t w0 = ow * p.stride_w - p.pad_left;
        const std::int64_t w1 = w0 + p.kernel_w;
        std::int64_t iw0 = 0, iw1 = 0;
        clip(w0, w1, is.w, &iw0, &iw1);
        std::int32_t sum = 0;
        for (std::int64_t ih = ih0; ih < ih1; ++ih)
          for (std::int64_t iw = iw0; iw < iw1; ++iw)
            sum += static_cast<std::int32_t>(plane[ih * is.w + iw]) - x.zero_point;
        const std::int64_t valid =
            std::max<std::int64_t>(0, ih1 - ih0) * std::max<std::int64_t>(0, iw1 - iw0);
        const std::int64_t divisor =
            p.count_include_pad
                ? padded_h * (std::min(w1, is.w + p.pad_right) - std::max(w0, -p.pad_left))
                : valid;
        // divisor 0 (no in-bounds element): the sum is 0 too, and y = zp.
        const float scale = ratio / static_cast<float>(divisor > 0 ? divisor : 1);
        *out++ = static_cast<T>(rq(static_cast<float>(sum) * scale));
      }
    }
  }
}

template <typename T>
void max_pool(const T* in, Shape4 is, const Pool2dParams& p, Shape4 os, T* out) {
  for (std::int64_t pl = 0; pl < is.n * is.c; ++pl) {
    const T* plane = in + pl * is.h * is.w;
    for (std::int64_t oh = 0; oh < os.h; ++oh)
      for (std::int64_t ow = 0; ow < os.w; ++ow) {
        T best = std::numeric_limits<T>::min();
        for (std::int64_t kh = 0; kh < p.kernel_h; ++kh) {
          const std::int64_t ih = oh * p.stride_h - p.pad_top + kh * p.dilation_h;
          if (ih < 0 || ih >= is.h) continue;
          for (std::int64_t kw = 0; kw < p.kernel_w; ++kw) {
            const std::int64_t iw = ow * p.stride_w - p.pad_left + kw * p.dilation_w;
            if (iw >= 0 && iw < is.w) best = std::max(best, plane[ih * is.w + iw]);
          }
        }
        *out++ = best;
      }
  }
}

}  // namespace

ErrorInfo qlinear_avg_pool2d(const QuantInput& x, Shape4 x_shape, const Pool2dParams& params,
                             const QuantOutput& y) {
  constexpr const char* kMessage = "qlinear_avg_pool2d: bad type, scale, zero point or dilation";
  Result<Shape4> out = pool2d_output_shape(x_shape, params);
  if (!out.ok()) return out.error_info();
  if (params.dilation_h != 1 || params.dilation_w != 1)
    return make_error(Error::kInvalidArgument, kMessage);
  if (ErrorInfo e = internal::check_input(x, kMessage); e.code != Error::kOk) return e;
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(y, kMessage, &rq); e.code != Error::kOk) return e;
  if (x.type != y.type || !std::isfinite(x.scale / y.scale))
    return make_error(Error::kInvalidArgument, kMessage);
  // |sum| <= 255 * kernel area must fit the int32 window sum.
  if (params.kernel_h > (std::int64_t{1} << 20) / params.kernel_w)
    return make_error(Error::kInvalidArgument, "qlinear_avg_pool2d: kernel too large");
  if (out->numel() == 0) return kOk;
  if (x.data == nullptr || y.data == nullptr)
    return make_error(Error::kInvalidArgument, "qlinear_avg_pool2d: null pointer");
  internal::dispatch_q8(x.type,
                        [&](auto t) { avg_pool<decltype(t)>(x, x_shape, params, *out, y, rq); });
  return kOk;
}

ErrorInfo qlinear_global_avg_pool2d(const QuantInput& x, Shape4 x_shape, const QuantOutput& y) {
  constexpr const char* kMessage =
      "qlinear_global_avg_pool2d: bad shape, type, scale or zero point";
  if (!checked_numel(x_shape).ok() || x_shape.h < 1 || x_shape.w < 1)
    return make_error(Error::kInvalidArgument, kMessage);
  if (ErrorInfo e = internal::check_input(x, kMessage); e.code != Error::kOk) return e;
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(y, kMessage, &rq); e.code != Error::kOk) return e;
  const std::int64_t area = x_shape.h * x_shape.w;
  const float multiplier = x.scale / (y.scale * static_cast<float>(area));
  if (x.type != y.type || !std::isfinite(multiplier))
    return make_error(Error::kInvalidArgument, kMessage);
  if (x_shape.n * x_shape.c == 0) return kOk;
  if (x.data == nullptr || y.data == nullptr)
    return make_error(Error::kInvalidArgument, "qlinear_global_avg_pool2d: null pointer");
  internal::dispatch_q8(x.type, [&](auto t) {
    using T = decltype(t);
    const T* in = static_cast<const T*>(x.data);
    T* out = static_cast<T*>(y.data);
    for (std::int64_t pl = 0; pl < x_shape.n * x_shape.c; ++pl) {
      std::int64_t sum = 0;
      const T* plane = in + pl * area;
      for (std::int64_t i = 0; i < area; ++i) sum += plane[i];
      sum -= area * x.zero_point;
      out[pl] = static_cast<T>(rq(static_cast<float>(sum) * multiplier));
    }
  });
  return kOk;
}

ErrorInfo quantized_max_pool2d(const void* x, ScalarType type, Shape4 x_shape,
                               const Pool2dParams& params, void* y) {
  Result<Shape4> out = pool2d_output_shape(x_shape, params);
  if (!out.ok()) return out.error_info();
  if (!internal::is_q8(type))
    return make_error(Error::kInvalidArgument, "quantized_max_pool2d: type is not int8/uint8");
  if (out->numel() == 0) return kOk;
  if (x == nullptr || y == nullptr)
    return make_error(Error::kInvalidArgument, "quantized_max_pool2d: null pointer");
  internal::dispatch_q8(type, [&](auto t) {
    using T = decltype(t);
    max_pool(static_cast<const T*>(x), x_shape, params, *out, static_cast<T*>(y));
  });
  return kOk;
}

ErrorInfo qlinear_concat(Span<const QuantConcatInput> inputs, std::int64_t axis,
                         const QuantOutput& y) {
  constexpr const char* kMessage =
      "qlinear_concat: no inputs, or bad shapes, axis, types, scales or zero points";
  if (inputs.empty()) return make_error(Error::kInvalidArgument, kMessage);
  Requantizer rq;
  if (ErrorInfo e = internal::make_requantizer(y, kMessage, &rq); e.code != Error::kOk) return e;
  const Span<const std::int64_t> first = inputs[0].shape;
  const auto rank = static_cast<std::int64_t>(first.size());
  if (rank < 1 || rank > static_cast<std::int64_t>(kMaxDims) || axis < -rank || axis >= rank)
    return make_error(Error::kInvalidArgument, kMessage);
  const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < ax; ++d) outer *= first[d];
  std::int64_t total = 0;  // elements of the output per outer index
  bool empty = outer == 0;
  for (const QuantConcatInput& in : inputs) {
    if (in.shape.size() != first.size() || !checked_numel(in.shape).ok() || in.x.type != y.type)
      return make_error(Error::kInvalidArgument, kMessage);
    for (std::size_t d = 0; d < first.size(); ++d)
      if (d != ax && in.shape[d] != first[d]) return make_error(Error::kInvalidArgument, kMessage);
    if (ErrorInfo e = internal::check_input(in.x, kMessage); e.code != Error::kOk) return e;
    if (!std::isfinite(in.x.scale / y.scale)) return make_error(Error::kInvalidArgument, kMessage);
    const std::int64_t numel = *checked_numel(in.shape);
    if (numel > 0 && in.x.data == nullptr)
      return make_error(Error::kInvalidArgument, "qlinear_concat: null input");
    if (!empty) total += numel / outer;
  }
  if (empty || total == 0) return kOk;
  if (y.data == nullptr) return make_error(Error::kInvalidArgument, "qlinear_concat: null output");
  const bool full_range = rq.lo <= static_cast<float>(internal::q8_min(y.type) - y.zero_point) &&
                          rq.hi >= static_cast<float>(internal::q8_max(y.type) - y.zero_point);
  internal::dispatch_q8(y.type, [&](auto t) {
    using T = decltype(t);
    T* out = static_cast<T*>(y.data);
    std::int64_t offset = 0;  // of this input's block within one outer row
    for (const QuantConcatInput& in : inputs) {
      const std::int64_t block = *checked_numel(in.shape) / outer;
      const T* src = static_cast<const T*>(in.x.data);
      const bool copy = full_range && in.x.scale == y.scale && in.x.zero_point == y.zero_point;
      const float ratio = in.x.scale / y.scale;
      for (std::int64_t o = 0; o < outer; ++o) {
        const T* s = src + o * block;
        T* d = out + o * total + offset;
        if (copy) {
          std::memcpy(d, s, static_cast<std::size_t>(block) * sizeof(T));
        } else {
          for (std::int64_t i = 0; i < block; ++i)
            d[i] = static_cast<T>(rq(static_cast<float>(s[i] - in.x.zero_point) * ratio));
        }
      }
      offset += block;
    }
  });
  return kOk;
}

}  // namespace glassbox::runtime::kernels

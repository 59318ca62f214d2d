#include "glassbox/runtime/kernels/conv.h"

#include <algorithm>

#include "src/runtime/kernels/conv_depthwise.h"
#include "src/runtime/kernels/gemm_driver.h"

namespace glassbox::runtime::kernels {
namespace {

using internal::kNr;

bool is_depthwise(Shape4 weight) { return weight.c == 1; }

bool is_pointwise(Shape4 weight, const Conv2dParams& p) {
  return weight.h == 1 && weight.w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
         p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
}

// One group's input planes of one image, seen as the im2col matrix
// B[k][p] with k = (ic * KH + kh) * KW + kw and p = oh * OW + ow.
struct Im2col {
  const float* input;  // channel 0 of the group
  Shape4 in;
  Shape4 w;
  Shape4 out;
  const Conv2dParams* p;
};

// Packs B panels straight from the image: per panel the 16 columns' patch
// origins are computed once, then each k row is a gather with a bounds test.
void pack_im2col(const void* ctx, std::int64_t k0, std::int64_t kc, std::int64_t n0,
                 std::int64_t nc, float* dst) {
  const auto& s = *static_cast<const Im2col*>(ctx);
  const Conv2dParams& p = *s.p;
  const std::int64_t plane = s.in.h * s.in.w;
  for (std::int64_t jp = 0; jp < nc; jp += kNr) {
    const std::int64_t cols = std::min(kNr, nc - jp);
    std::int64_t ih0[kNr];
    std::int64_t iw0[kNr];
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t pix = n0 + jp + j;
      ih0[j] = (pix / s.out.w) * p.stride_h - p.pad_top;
      iw0[j] = (pix % s.out.w) * p.stride_w - p.pad_left;
    }
    // Decode k0 once, then step (ic, kh, kw) like an odometer.
    std::int64_t kw = k0 % s.w.w;
    std::int64_t kh = (k0 / s.w.w) % s.w.h;
    std::int64_t ic = k0 / (s.w.w * s.w.h);
    for (std::int64_t r = 0; r < kc; ++r) {
      const float* src = s.input + ic * plane;
      const std::int64_t dh = kh * p.dilation_h;
      const std::int64_t dw = kw * p.dilation_w;
      std::int64_t j = 0;
      for (; j < cols; ++j) {
        const std::int64_t ih = ih0[j] + dh;
        const std::int64_t iw = iw0[j] + dw;
        const bool inside = ih >= 0 && ih < s.in.h && iw >= 0 && iw < s.in.w;
        dst[j] = inside ? src[ih * s.in.w + iw] : 0.0f;
      }
      for (; j < kNr; ++j) dst[j] = 0.0f;
      dst += kNr;
      if (++kw == s.w.w) {
        kw = 0;
        if (++kh == s.w.h) {
          kh = 0;
          ++ic;
        }
      }
    }
  }
}

}  // namespace

Result<Shape4> conv2d_output_shape(Shape4 input, Shape4 weight, const Conv2dParams& p) {
  if (input.n < 0 || input.c < 1 || input.h < 1 || input.w < 1 || weight.n < 1 || weight.c < 1 ||
      weight.h < 1 || weight.w < 1)
    return make_error(Error::kInvalidArgument, "conv2d: bad tensor shape");
  if (p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 || p.dilation_w < 1 || p.pad_top < 0 ||
      p.pad_left < 0 || p.pad_bottom < 0 || p.pad_right < 0 || p.groups < 1)
    return make_error(Error::kInvalidArgument, "conv2d: bad parameters");
  std::int64_t grouped_channels = 0;
  if (input.c % p.groups != 0 || weight.n % p.groups != 0 ||
      __builtin_mul_overflow(weight.c, p.groups, &grouped_channels) || grouped_channels != input.c)
    return make_error(Error::kInvalidArgument, "conv2d: channels vs groups");
  // Every step checked: parameters read from a file may be anything, and
  // the kernel's index arithmetic stays below these sums.
  std::int64_t span_h = 0, span_w = 0, padded_h = 0, padded_w = 0;
  if (__builtin_mul_overflow(p.dilation_h, weight.h - 1, &span_h) ||
      __builtin_mul_overflow(p.dilation_w, weight.w - 1, &span_w) ||
      __builtin_add_overflow(input.h, p.pad_top, &padded_h) ||
      __builtin_add_overflow(padded_h, p.pad_bottom, &padded_h) ||
      __builtin_add_overflow(input.w, p.pad_left, &padded_w) ||
      __builtin_add_overflow(padded_w, p.pad_right, &padded_w))
    return make_error(Error::kInvalidArgument, "conv2d: padded size out of range");
  if (padded_h <= span_h || padded_w <= span_w)
    return make_error(Error::kInvalidArgument, "conv2d: kernel exceeds input");
  const Shape4 out{input.n, weight.n, (padded_h - span_h - 1) / p.stride_h + 1,
                   (padded_w - span_w - 1) / p.stride_w + 1};
  if (!checked_numel(input).ok() || !checked_numel(weight).ok() || !checked_numel(out).ok())
    return make_error(Error::kInvalidArgument, "conv2d: output size out of range");
  return out;
}

std::size_t conv2d_scratch_bytes(Shape4 input, Shape4 weight, const Conv2dParams& params) {
  Result<Shape4> out = conv2d_output_shape(input, weight, params);
  if (!out.ok() || is_depthwise(weight)) return 0;
  return sizeof(float) * internal::gemm_scratch_floats(weight.n / params.groups, out->h * out->w,
                                                       weight.c * weight.h * weight.w);
}

Error conv2d(const float* input, Shape4 input_shape, const float* weight, Shape4 weight_shape,
             const float* bias, const Conv2dParams& params, float* output, Span<float> scratch) {
  Result<Shape4> out_shape = conv2d_output_shape(input_shape, weight_shape, params);
  if (!out_shape.ok()) return out_shape.error();
  const Shape4 out = *out_shape;
  if (out.numel() == 0) return Error::kOk;
  if (input == nullptr || weight == nullptr || output == nullptr) return Error::kInvalidArgument;
  if (scratch.size() * sizeof(float) < conv2d_scratch_bytes(input_shape, weight_shape, params))
    return Error::kInvalidArgument;

  if (is_depthwise(weight_shape)) {
    internal::conv2d_depthwise(input, input_shape, weight, weight_shape, bias, params, output, out);
    return Error::kOk;
  }

  const std::int64_t pixels = out.h * out.w;
  const std::int64_t oc_per_group = weight_shape.n / params.groups;
  const std::int64_t ic_per_group = weight_shape.c;
  const std::int64_t k = ic_per_group * weight_shape.h * weight_shape.w;
  const std::int64_t in_plane = input_shape.h * input_shape.w;
  const bool pointwise = is_pointwise(weight_shape, params);

  for (std::int64_t n = 0; n < out.n; ++n) {
    for (std::int64_t oc = 0; oc < out.c; ++oc) {
      float* plane = output + (n * out.c + oc) * pixels;
      std::fill(plane, plane + pixels, bias != nullptr ? bias[oc] : 0.0f);
    }
    for (std::int64_t g = 0; g < params.groups; ++g) {
      const float* group_input = input + (n * input_shape.c + g * ic_per_group) * in_plane;
      // A = this group's weights, [OC/groups, K] row-major.
      internal::GemmProblem gp;
      gp.m = oc_per_group;
      gp.n = pixels;
      gp.k = k;
      gp.a = internal::StridedMatrix{weight + g * oc_per_group * k, k, 1};
      gp.c = output + (n * out.c + g * oc_per_group) * pixels;
      gp.ldc = pixels;
      // Both sources live on this stack frame for the whole GEMM call.
      const internal::StridedMatrix planes{group_input, in_plane, 1};
      const Im2col patches{group_input, input_shape, weight_shape, out, &params};
      gp.b = pointwise ? internal::BPacker{internal::pack_b_strided, &planes}
                       : internal::BPacker{pack_im2col, &patches};
      internal::gemm_accumulate(gp, scratch.data());
    }
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

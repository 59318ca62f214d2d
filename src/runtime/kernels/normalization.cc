#include "glassbox/runtime/kernels/normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/runtime/kernels/fast_math.h"

namespace glassbox::runtime::kernels {

Error batch_norm(const float* input, Shape4 s, const float* mean, const float* var,
                 const float* gamma, const float* beta, float eps, float* output) {
  if (s.n < 0 || s.c < 0 || s.h < 0 || s.w < 0 || !(eps >= 0.0f)) return Error::kInvalidArgument;
  if (s.numel() == 0) return Error::kOk;
  if (input == nullptr || output == nullptr || mean == nullptr || var == nullptr)
    return Error::kInvalidArgument;
  const std::int64_t plane = s.h * s.w;
  for (std::int64_t c = 0; c < s.c; ++c) {
    const float g = gamma != nullptr ? gamma[c] : 1.0f;
    const float b = beta != nullptr ? beta[c] : 0.0f;
    const float scale = g / std::sqrt(var[c] + eps);
    const float shift = b - mean[c] * scale;
    for (std::int64_t n = 0; n < s.n; ++n) {
      const float* src = input + (n * s.c + c) * plane;
      float* dst = output + (n * s.c + c) * plane;
      for (std::int64_t i = 0; i < plane; ++i) dst[i] = src[i] * scale + shift;
    }
  }
  return Error::kOk;
}

namespace {

// The maxima below skip NaN (a comparison with NaN is false), which keeps
// them plain selects that vectorise; a NaN still makes its slice NaN,
// through exp(NaN - max) and the sum.
float max_of(float a, float b) { return b > a ? b : a; }

// exp(x - max) for softmax: x - max <= 0 (or NaN), so the cheaper
// exp_nonpositive does.
float exp_shifted(float x, float max) { return fast_math::exp_nonpositive(x - max); }

// Softmax of `lanes` adjacent columns (lanes <= kLanes) of an [axis, inner]
// slice, column by column but walking rows, so every access is unit-stride
// within a row and the per-column max/sum live in small local arrays.
constexpr std::int64_t kLanes = 16;

void softmax_columns(const float* src, float* dst, std::int64_t axis_len, std::int64_t inner,
                     std::int64_t lanes) {
  float max[kLanes];
  float sum[kLanes];
  std::fill(max, max + lanes, -std::numeric_limits<float>::infinity());
  std::fill(sum, sum + lanes, 0.0f);
  for (std::int64_t a = 0; a < axis_len; ++a) {
    const float* row = src + a * inner;
    for (std::int64_t j = 0; j < lanes; ++j) max[j] = max_of(max[j], row[j]);
  }
  for (std::int64_t a = 0; a < axis_len; ++a) {
    const float* row = src + a * inner;
    float* out = dst + a * inner;
    for (std::int64_t j = 0; j < lanes; ++j) {
      out[j] = exp_shifted(row[j], max[j]);
      sum[j] += out[j];
    }
  }
  // One division per column, then multiplies.
  for (std::int64_t j = 0; j < lanes; ++j) sum[j] = 1.0f / sum[j];
  for (std::int64_t a = 0; a < axis_len; ++a) {
    float* out = dst + a * inner;
    for (std::int64_t j = 0; j < lanes; ++j) out[j] *= sum[j];
  }
}

// Softmax of one contiguous row (inner == 1: the last axis, as attention
// uses it). Float addition does not reassociate, so a loop with a single
// sum accumulator stays scalar; four named accumulators, one per position
// mod 4, are four independent reductions, which g++ vectorises together as
// one SSE register. The max (a select, which g++ does not take as a
// reduction) goes into an array of lanes instead, updated by an inner loop
// that g++ vectorises into maxps as long as it is not unrolled first.
void softmax_row(const float* src, float* dst, std::int64_t len) {
  constexpr std::int64_t kMaxLanes = 8;
  float lane_max[kMaxLanes];
  std::fill(lane_max, lane_max + kMaxLanes, -std::numeric_limits<float>::infinity());
  const std::int64_t max_body = len - len % kMaxLanes;
  for (std::int64_t i = 0; i < max_body; i += kMaxLanes) {
    // Unrolled, the lanes become 8 scalar selects: half the speed.
#pragma GCC unroll 1
    for (std::int64_t j = 0; j < kMaxLanes; ++j) lane_max[j] = max_of(lane_max[j], src[i + j]);
  }
  float max = -std::numeric_limits<float>::infinity();
  for (float m : lane_max) max = max_of(max, m);
  for (std::int64_t i = max_body; i < len; ++i) max = max_of(max, src[i]);

  const std::int64_t body = len - len % 4;
  float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
  for (std::int64_t i = 0; i < body; i += 4) {
    const float e0 = exp_shifted(src[i], max);
    const float e1 = exp_shifted(src[i + 1], max);
    const float e2 = exp_shifted(src[i + 2], max);
    const float e3 = exp_shifted(src[i + 3], max);
    dst[i] = e0;
    dst[i + 1] = e1;
    dst[i + 2] = e2;
    dst[i + 3] = e3;
    s0 += e0;
    s1 += e1;
    s2 += e2;
    s3 += e3;
  }
  float sum = (s0 + s1) + (s2 + s3);
  for (std::int64_t i = body; i < len; ++i) {
    dst[i] = exp_shifted(src[i], max);
    sum += dst[i];
  }
  const float scale = 1.0f / sum;
  for (std::int64_t i = 0; i < len; ++i) dst[i] *= scale;
}

}  // namespace

Error softmax(const float* input, Span<const std::int64_t> shape, std::int64_t axis,
              float* output) {
  Result<Dims> dims = make_dims(shape);
  if (!dims.ok() || shape.empty()) return Error::kInvalidArgument;
  const auto rank = static_cast<std::int64_t>(shape.size());
  if (axis < -rank || axis >= rank) return Error::kInvalidArgument;
  const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  if (dims->numel() == 0) return Error::kOk;
  if (input == nullptr || output == nullptr) return Error::kInvalidArgument;
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::size_t i = 0; i < ax; ++i) outer *= shape[i];
  for (std::size_t i = ax + 1; i < shape.size(); ++i) inner *= shape[i];
  const std::int64_t axis_len = shape[ax];
  for (std::int64_t o = 0; o < outer; ++o) {
    const float* src = input + o * axis_len * inner;
    float* dst = output + o * axis_len * inner;
    if (inner == 1) {
      softmax_row(src, dst, axis_len);
      continue;
    }
    for (std::int64_t j = 0; j < inner; j += kLanes) {
      softmax_columns(src + j, dst + j, axis_len, inner, std::min(kLanes, inner - j));
    }
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

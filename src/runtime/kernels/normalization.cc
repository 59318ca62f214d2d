#include "glassbox/runtime/kernels/normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace glassbox::runtime::kernels {

Error batch_norm(const float* input, Shape4 s, const float* mean,
                 const float* var, const float* gamma, const float* beta,
                 float eps, float* output) {
  if (s.n < 0 || s.c < 0 || s.h < 0 || s.w < 0 || !(eps >= 0.0f))
    return Error::kInvalidArgument;
  if (s.numel() == 0) return Error::kOk;
  if (input == nullptr || output == nullptr || mean == nullptr ||
      var == nullptr)
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

// Softmax of `lanes` adjacent columns (lanes <= kLanes) of an [axis, inner]
// slice, column by column but walking rows, so every access is unit-stride
// within a row and the per-column max/sum live in small local arrays.
constexpr std::int64_t kLanes = 16;

void softmax_columns(const float* src, float* dst, std::int64_t axis_len,
                     std::int64_t inner, std::int64_t lanes) {
  float max[kLanes];
  float sum[kLanes];
  std::fill(max, max + lanes, -std::numeric_limits<float>::infinity());
  std::fill(sum, sum + lanes, 0.0f);
  for (std::int64_t a = 0; a < axis_len; ++a) {
    const float* row = src + a * inner;
    for (std::int64_t j = 0; j < lanes; ++j)
      max[j] = (row[j] > max[j] || std::isnan(row[j])) ? row[j] : max[j];
  }
  for (std::int64_t a = 0; a < axis_len; ++a) {
    const float* row = src + a * inner;
    float* out = dst + a * inner;
    for (std::int64_t j = 0; j < lanes; ++j) {
      out[j] = std::exp(row[j] - max[j]);
      sum[j] += out[j];
    }
  }
  for (std::int64_t a = 0; a < axis_len; ++a) {
    float* out = dst + a * inner;
    for (std::int64_t j = 0; j < lanes; ++j) out[j] /= sum[j];
  }
}

}  // namespace

Error softmax(const float* input, Span<const std::int64_t> shape,
              std::int64_t axis, float* output) {
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
    for (std::int64_t j = 0; j < inner; j += kLanes) {
      softmax_columns(src + j, dst + j, axis_len, inner,
                      std::min(kLanes, inner - j));
    }
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

#include "glassbox/runtime/kernels/dynamic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace glassbox::runtime::kernels {
namespace {

bool is_non_zero(const unsigned char* p, std::size_t element, bool is_float) {
  if (is_float) {
    float f = 0.0F;
    std::memcpy(&f, p, sizeof f);
    return f != 0.0F;  // -0.0 is zero, NaN is not
  }
  for (std::size_t b = 0; b < element; ++b) {
    if (p[b] != 0) return true;
  }
  return false;
}

// Strict order of TopK's output: `before(a, b)` when a comes first. NaN
// sorts as larger than any number (numpy), equal values by index.
template <typename T>
struct TopKOrder {
  const T* line;
  std::int64_t inner;
  bool largest;
  bool greater(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return !std::isnan(b);
      if (std::isnan(b)) return false;
    }
    return a > b;
  }
  bool operator()(std::int64_t i, std::int64_t j) const {
    const T a = line[i * inner], b = line[j * inner];
    if (greater(a, b)) return largest;
    if (greater(b, a)) return !largest;
    return i < j;
  }
};

// ONNX's SuppressByIOU: whether `a` and `b` overlap by more than `threshold`.
bool suppresses(const float* a, const float* b, bool center_point_box, float threshold) {
  float a_min[2], a_max[2], b_min[2], b_max[2];  // per axis (0, 1) of the box
  for (int axis = 0; axis < 2; ++axis) {
    if (center_point_box) {
      a_min[axis] = a[axis] - a[axis + 2] / 2.0F;
      a_max[axis] = a[axis] + a[axis + 2] / 2.0F;
      b_min[axis] = b[axis] - b[axis + 2] / 2.0F;
      b_max[axis] = b[axis] + b[axis + 2] / 2.0F;
    } else {
      a_min[axis] = std::min(a[axis], a[axis + 2]);
      a_max[axis] = std::max(a[axis], a[axis + 2]);
      b_min[axis] = std::min(b[axis], b[axis + 2]);
      b_max[axis] = std::max(b[axis], b[axis + 2]);
    }
  }
  float intersection = 1.0F;
  for (int axis = 0; axis < 2; ++axis) {
    const float low = std::max(a_min[axis], b_min[axis]);
    const float high = std::min(a_max[axis], b_max[axis]);
    if (high <= low) return false;
    intersection *= high - low;
  }
  const float area_a = (a_max[0] - a_min[0]) * (a_max[1] - a_min[1]);
  const float area_b = (b_max[0] - b_min[0]) * (b_max[1] - b_min[1]);
  const float union_area = area_a + area_b - intersection;
  if (area_a <= 0.0F || area_b <= 0.0F || union_area <= 0.0F) return false;
  return intersection / union_area > threshold;
}

}  // namespace

Result<std::int64_t> non_zero(const void* x, std::size_t element, bool is_float,
                              Span<const std::int64_t> shape, std::int64_t capacity,
                              std::int64_t* out) {
  if (shape.empty() || (element != 1 && element != 4 && element != 8)) {
    return make_error(Error::kInvalidArgument, "non_zero: rank 0 or unsupported element size");
  }
  std::int64_t numel = 1;
  for (std::int64_t s : shape) {
    if (s < 0) return make_error(Error::kInvalidArgument, "non_zero: negative size");
    numel *= s;
  }
  if (numel > capacity) return make_error(Error::kInvalidArgument, "non_zero: output too small");
  const auto* bytes = static_cast<const unsigned char*>(x);
  // Two passes: the count fixes the row length of the [rank, count] output.
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < numel; ++i) {
    count += is_non_zero(bytes + i * element, element, is_float) ? 1 : 0;
  }
  const auto rank = static_cast<std::int64_t>(shape.size());
  std::int64_t j = 0;
  for (std::int64_t i = 0; i < numel; ++i) {
    if (!is_non_zero(bytes + i * element, element, is_float)) continue;
    std::int64_t rest = i;
    for (std::int64_t d = rank - 1; d >= 0; --d) {
      out[d * count + j] = rest % shape[static_cast<std::size_t>(d)];
      rest /= shape[static_cast<std::size_t>(d)];
    }
    ++j;
  }
  return count;
}

template <typename T>
Error top_k(const T* x, std::int64_t outer, std::int64_t axis_length, std::int64_t inner,
            std::int64_t k, bool largest, T* values, std::int64_t* indices, std::int64_t* scratch) {
  if (outer < 0 || axis_length < 0 || inner < 0 || k < 0 || k > axis_length) {
    return Error::kInvalidArgument;
  }
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t in = 0; in < inner; ++in) {
      const T* line = x + o * axis_length * inner + in;
      for (std::int64_t i = 0; i < axis_length; ++i) scratch[i] = i;
      std::partial_sort(scratch, scratch + k, scratch + axis_length,
                        TopKOrder<T>{line, inner, largest});
      for (std::int64_t i = 0; i < k; ++i) {
        const std::int64_t at = o * k * inner + i * inner + in;
        values[at] = line[scratch[i] * inner];
        indices[at] = scratch[i];
      }
    }
  }
  return Error::kOk;
}

template Error top_k<float>(const float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                            bool, float*, std::int64_t*, std::int64_t*);
template Error top_k<std::int64_t>(const std::int64_t*, std::int64_t, std::int64_t, std::int64_t,
                                   std::int64_t, bool, std::int64_t*, std::int64_t*, std::int64_t*);

Result<std::int64_t> non_max_suppression(const float* boxes, const float* scores,
                                         std::int64_t batches, std::int64_t classes,
                                         std::int64_t count, const NmsParams& params,
                                         std::int64_t capacity, std::int64_t* selected,
                                         std::int64_t* scratch) {
  std::int64_t written = 0;
  std::int64_t* candidates = scratch;    // this class's boxes by score
  std::int64_t* kept = scratch + count;  // the ones selected so far
  for (std::int64_t b = 0; b < batches; ++b) {
    const float* batch_boxes = boxes + b * count * 4;
    for (std::int64_t c = 0; c < classes; ++c) {
      const float* s = scores + (b * classes + c) * count;
      std::int64_t n = 0;
      for (std::int64_t i = 0; i < count; ++i) {
        if (!params.has_score_threshold || s[i] > params.score_threshold) candidates[n++] = i;
      }
      // Stable: equal scores keep the lower index first.
      std::stable_sort(candidates, candidates + n,
                       [s](std::int64_t i, std::int64_t j) { return s[i] > s[j]; });
      std::int64_t num_kept = 0;
      for (std::int64_t k = 0; k < n && num_kept < params.max_per_class; ++k) {
        const float* box = batch_boxes + candidates[k] * 4;
        bool suppressed = false;
        for (std::int64_t q = 0; q < num_kept && !suppressed; ++q) {
          suppressed = suppresses(batch_boxes + kept[q] * 4, box, params.center_point_box,
                                  params.iou_threshold);
        }
        if (suppressed) continue;
        if (written >= capacity) {
          return make_error(Error::kInvalidArgument, "non_max_suppression: output too small");
        }
        kept[num_kept++] = candidates[k];
        selected[written * 3] = b;
        selected[written * 3 + 1] = c;
        selected[written * 3 + 2] = candidates[k];
        ++written;
      }
    }
  }
  return written;
}

}  // namespace glassbox::runtime::kernels

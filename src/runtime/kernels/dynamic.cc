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

// A box's corners, each axis ordered (ONNX's SuppressByIOU normalises them
// at every comparison; a kept box is normalised once), and its area.
struct Corners {
  float min[2], max[2];
};

Corners corners_of(const float* box, bool center_point_box) {
  Corners c;
  for (int axis = 0; axis < 2; ++axis) {
    if (center_point_box) {
      c.min[axis] = box[axis] - box[axis + 2] / 2.0F;
      c.max[axis] = box[axis] + box[axis + 2] / 2.0F;
    } else {
      c.min[axis] = std::min(box[axis], box[axis + 2]);
      c.max[axis] = std::max(box[axis], box[axis + 2]);
    }
  }
  return c;
}

float area_of(const Corners& c) { return (c.max[0] - c.min[0]) * (c.max[1] - c.min[1]); }

// Whether kept box `q` (of `k`) overlaps `b` by more than `threshold`:
// ONNX's SuppressByIOU with its arithmetic (the same float operations in
// the same order), the kept box's corners and area computed once.
template <typename Kept>
bool overlaps(const Kept& k, std::int64_t q, const Corners& b, float area_b, float threshold) {
  const float low_x = std::max(k.x_min[q], b.min[0]), high_x = std::min(k.x_max[q], b.max[0]);
  const float low_y = std::max(k.y_min[q], b.min[1]), high_y = std::min(k.y_max[q], b.max[1]);
  const float intersection = (high_x - low_x) * (high_y - low_y);
  const float union_area = k.area[q] + area_b - intersection;
  return high_x > low_x && high_y > low_y && k.area[q] > 0.0F && union_area > 0.0F &&
         intersection / union_area > threshold;
}

// The kept boxes, one array per coordinate, so the test of a candidate
// against all of them vectorises; with many candidates they are also
// listed by where they start along x (buckets over the candidates' x
// range), and a candidate is tested only against the boxes that start
// close enough to reach it: with the coordinate offsets a batched NMS
// gives each class, that is a small share of them.
struct KeptBoxes {
  float* x_min;
  float* y_min;
  float* x_max;
  float* y_max;
  float* area;
  std::int64_t* next;        // the next kept box of the same bucket, or -1
  std::int64_t* head;        // per bucket: its last kept box, or -1
  std::int64_t buckets = 0;  // 0: no index, every kept box is tested
  float origin = 0.0F, scale = 0.0F, widest = 0.0F;

  static constexpr std::int64_t kBuckets = 256;
  static constexpr std::int64_t kIndexFrom = 512;  // candidates

  void index(const float* boxes, const std::int64_t* candidates, std::int64_t n,
             bool center_point_box) {
    buckets = 0;
    if (n < kIndexFrom) return;
    float low = 0.0F, high = 0.0F;
    widest = 0.0F;
    for (std::int64_t k = 0; k < n; ++k) {
      const Corners c = corners_of(boxes + candidates[k] * 4, center_point_box);
      if (!std::isfinite(c.min[0]) || !std::isfinite(c.max[0])) return;
      low = k == 0 ? c.min[0] : std::min(low, c.min[0]);
      high = k == 0 ? c.max[0] : std::max(high, c.max[0]);
      widest = std::max(widest, c.max[0] - c.min[0]);
    }
    if (!(high > low) || !std::isfinite(high - low)) return;
    buckets = kBuckets;
    origin = low;
    scale = static_cast<float>(kBuckets) / (high - low);
    std::fill(head, head + kBuckets, -1);
  }

  std::int64_t bucket_of(float x) const {
    const float at = (x - origin) * scale;
    if (!(at > 0.0F)) return 0;
    if (at >= static_cast<float>(buckets - 1)) return buckets - 1;
    return static_cast<std::int64_t>(at);
  }

  void set(std::int64_t i, const Corners& c) const {
    x_min[i] = c.min[0];
    y_min[i] = c.min[1];
    x_max[i] = c.max[0];
    y_max[i] = c.max[1];
    area[i] = area_of(c);
    if (buckets == 0) return;
    const std::int64_t k = bucket_of(c.min[0]);
    next[i] = head[k];
    head[k] = i;
  }

  // Whether a kept box among [0, n) suppresses `b`.
  bool any_suppresses(std::int64_t n, const Corners& b, float threshold) const {
    const float area_b = area_of(b);
    if (area_b <= 0.0F) return false;
    if (buckets > 0) {
      // A kept box reaching b along x starts after b.min - widest and
      // before b.max; a bucket more on each side absorbs rounding.
      const std::int64_t first = std::max<std::int64_t>(0, bucket_of(b.min[0] - widest) - 1);
      const std::int64_t last = std::min(buckets - 1, bucket_of(b.max[0]) + 1);
      for (std::int64_t k = first; k <= last; ++k) {
        for (std::int64_t q = head[k]; q >= 0; q = next[q]) {
          if (overlaps(*this, q, b, area_b, threshold)) return true;
        }
      }
      return false;
    }
    constexpr std::int64_t kBlock = 16;
    for (std::int64_t start = 0; start < n; start += kBlock) {
      const std::int64_t end = std::min(n, start + kBlock);
      bool hit = false;
      for (std::int64_t q = start; q < end; ++q)
        hit = hit || overlaps(*this, q, b, area_b, threshold);
      if (hit) return true;
    }
    return false;
  }
};

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
  std::int64_t* candidates = scratch;  // this class's boxes by score
  auto* floats = reinterpret_cast<float*>(scratch + count);
  std::int64_t* lists = scratch + count + (5 * count + 1) / 2;
  KeptBoxes kept{floats, floats + count, floats + 2 * count, floats + 3 * count, floats + 4 * count,
                 lists,  lists + count};
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
      kept.index(batch_boxes, candidates, n, params.center_point_box);
      std::int64_t num_kept = 0;
      for (std::int64_t k = 0; k < n && num_kept < params.max_per_class; ++k) {
        const Corners box = corners_of(batch_boxes + candidates[k] * 4, params.center_point_box);
        if (kept.any_suppresses(num_kept, box, params.iou_threshold)) continue;
        if (written >= capacity) {
          return make_error(Error::kInvalidArgument, "non_max_suppression: output too small");
        }
        kept.set(num_kept++, box);
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

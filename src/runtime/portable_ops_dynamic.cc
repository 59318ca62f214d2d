// non_zero, top_k, non_max_suppression: argument checks around
// kernels/dynamic.h. Their outputs are dynamic (Tensor::resize at each
// execution, within the bound prepare checked); top_k also takes a dynamic
// input, whose actual sizes it reads at run time.

#include <algorithm>
#include <cmath>
#include <limits>

#include "glassbox/runtime/kernels/dynamic.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kNonZero = "non_zero";
constexpr const char* kTopK = "top_k";
constexpr const char* kNms = "non_max_suppression";

// Counts, and each tensor's bytes cover its (bound) sizes.
bool check_counts(const char* op, const KernelArgs& args, std::size_t min_inputs,
                  std::size_t max_inputs, std::size_t outputs, Diagnostics* d) {
  if (args.inputs.size() < min_inputs || args.inputs.size() > max_inputs ||
      args.outputs.size() != outputs) {
    report(d, "%s: expects %zu to %zu inputs and %zu outputs, got %zu and %zu", op, min_inputs,
           max_inputs, outputs, args.inputs.size(), args.outputs.size());
    return false;
  }
  for (const Span<Tensor* const>& tensors : {args.inputs, args.outputs}) {
    for (const Tensor* t : tensors) {
      std::size_t numel = 1;
      for (std::int64_t s : t->sizes) {
        if (s < 0 || s > (std::int64_t{1} << 40)) {
          report(d, "%s: a tensor has size %lld", op, static_cast<long long>(s));
          return false;
        }
        numel *= static_cast<std::size_t>(s);
      }
      if (element_size(t->dtype) == 0 || t->nbytes < numel * element_size(t->dtype) ||
          (numel > 0 && t->data == nullptr)) {
        report(d, "%s: a tensor %s has no bytes for its elements", op, shape_text(t->sizes).text);
        return false;
      }
    }
  }
  return true;
}

// A dynamic output of `rank` dims; `min_bound` (per dim, -1 for any) is
// what the kernel may need.
bool check_dynamic_output(const char* op, const Tensor& out, std::size_t index,
                          Span<const std::int64_t> min_bound, Diagnostics* d) {
  if (!out.is_dynamic() || out.bound.size() != min_bound.size()) {
    report(d, "%s: output %zu must be dynamic (sized by data) of rank %zu", op, index,
           min_bound.size());
    return false;
  }
  for (std::size_t i = 0; i < min_bound.size(); ++i) {
    if (min_bound[i] >= 0 && out.bound[i] < min_bound[i]) {
      report(d, "%s: output %zu's bound %s is too small", op, index, shape_text(out.bound).text);
      return false;
    }
  }
  return true;
}

struct TopKArgs {
  std::int64_t axis = 0;  // normalised
  std::int64_t largest = 1;
  std::int64_t k = -1;  // -1: from input 1
};

bool read_top_k(const KernelArgs& args, TopKArgs* t, Diagnostics* d) {
  std::int64_t sorted = 1;
  if (!read_int(kTopK, args, "axis", -1, &t->axis, d) ||
      !read_int(kTopK, args, "largest", 1, &t->largest, d) ||
      !read_int(kTopK, args, "sorted", 1, &sorted, d) ||
      !read_int(kTopK, args, "k", -1, &t->k, d)) {
    return false;
  }
  const auto rank = static_cast<std::int64_t>(args.inputs[0]->sizes.size());
  if (t->axis < -rank || t->axis >= rank) {
    report(d, "top_k: axis %lld is out of range for rank %lld", static_cast<long long>(t->axis),
           static_cast<long long>(rank));
    return false;
  }
  if (t->axis < 0) t->axis += rank;
  return true;
}

}  // namespace

Result<std::size_t> prepare_non_zero(const KernelArgs& args, Diagnostics* d) {
  if (!check_counts(kNonZero, args, 1, 1, 1, d)) return kRejected;
  const Tensor& x = *args.inputs[0];
  if (x.sizes.empty() || x.is_dynamic()) {
    report(d, "non_zero: the input must have rank >= 1 and a static size");
    return kRejected;
  }
  const std::int64_t bound[] = {static_cast<std::int64_t>(x.sizes.size()), x.numel()};
  if (!check_dtype(kNonZero, *args.outputs[0], "output", ScalarType::kLong, d) ||
      !check_dynamic_output(kNonZero, *args.outputs[0], 0, bound, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_non_zero(const KernelArgs& args, Span<std::uint8_t>) {
  const Tensor& x = *args.inputs[0];
  Tensor& y = *args.outputs[0];
  Result<std::int64_t> count =
      kernels::non_zero(x.data, element_size(x.dtype), x.dtype == ScalarType::kFloat, x.sizes,
                        y.bound[1], static_cast<std::int64_t*>(y.data));
  if (!count.ok()) return count.error();
  const std::int64_t sizes[] = {y.bound[0], *count};
  return y.resize(sizes);
}

Result<std::size_t> prepare_top_k(const KernelArgs& args, Diagnostics* d) {
  TopKArgs t;
  if (!check_counts(kTopK, args, 1, 2, 2, d) || !read_top_k(args, &t, d)) return kRejected;
  const Tensor& x = *args.inputs[0];
  if (x.sizes.size() > kernels::kMaxDims) {  // run sizes its outputs in an array of that many
    report(d, "top_k: input 0 has rank %zu, above %zu", x.sizes.size(), kernels::kMaxDims);
    return kRejected;
  }
  if (x.dtype != ScalarType::kFloat && x.dtype != ScalarType::kLong) {
    report(d, "top_k: input 0 has dtype %s, expected FLOAT or LONG", to_string(x.dtype).data());
    return kRejected;
  }
  if (!check_dtype(kTopK, *args.outputs[0], "output 0", x.dtype, d) ||
      !check_dtype(kTopK, *args.outputs[1], "output 1", ScalarType::kLong, d)) {
    return kRejected;
  }
  if ((args.inputs.size() == 2) == (t.k >= 0)) {
    report(d, "top_k: k must be given either as attribute 'k' or as input 1");
    return kRejected;
  }
  if (args.inputs.size() == 2 && (!check_dtype(kTopK, *args.inputs[1], "k", ScalarType::kLong, d) ||
                                  args.inputs[1]->numel() != 1)) {
    report(d, "top_k: input 1 (k) must be one int64");
    return kRejected;
  }
  // The outputs hold x's (bound) shape with the axis at most k (or whole).
  for (std::size_t o = 0; o < 2; ++o) {
    const Tensor& out = *args.outputs[o];
    const bool dynamic = x.is_dynamic() || args.inputs.size() == 2;
    if (out.is_dynamic() != dynamic || out.sizes.size() != x.sizes.size()) {
      report(d, "top_k: output %zu must be %s of x's rank", o, dynamic ? "dynamic" : "static");
      return kRejected;
    }
    // A dynamic output's sizes are last execution's: its bound is what
    // must hold the sizes x has now.
    const Span<const std::int64_t> held = dynamic ? out.bound : out.sizes;
    for (std::size_t i = 0; i < x.sizes.size(); ++i) {
      const std::int64_t want = static_cast<std::int64_t>(i) != t.axis ? x.sizes[i]
                                : t.k >= 0                             ? std::min(t.k, x.sizes[i])
                                                                       : x.sizes[i];
      if (dynamic ? held[i] < want : held[i] != want) {
        report(d, "top_k: output %zu has sizes %s", o, shape_text(out.sizes).text);
        return kRejected;
      }
    }
  }
  if (!x.is_dynamic() && t.k > x.sizes[static_cast<std::size_t>(t.axis)]) {
    report(d, "top_k: k %lld exceeds the axis length", static_cast<long long>(t.k));
    return kRejected;
  }
  return static_cast<std::size_t>(x.sizes[static_cast<std::size_t>(t.axis)]) * sizeof(std::int64_t);
}

Error run_top_k(const KernelArgs& args, Span<std::uint8_t> scratch) {
  TopKArgs t;
  if (!read_top_k(args, &t, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];  // its actual sizes, when dynamic
  const auto axis = static_cast<std::size_t>(t.axis);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i) outer *= x.sizes[i];
  for (std::size_t i = axis + 1; i < x.sizes.size(); ++i) inner *= x.sizes[i];
  const std::int64_t length = x.sizes[axis];
  std::int64_t k = t.k;
  if (k < 0) k = *static_cast<const std::int64_t*>(args.inputs[1]->data);
  // ONNX: k beyond the axis (or negative) is an error, not a clamp.
  if (k < 0 || k > length) return Error::kInvalidArgument;
  Tensor& values = *args.outputs[0];
  Tensor& indices = *args.outputs[1];
  if (values.is_dynamic()) {
    std::int64_t sizes[kernels::kMaxDims];
    for (std::size_t i = 0; i < x.sizes.size(); ++i) sizes[i] = i == axis ? k : x.sizes[i];
    const Span<const std::int64_t> shape(sizes, x.sizes.size());
    if (values.resize(shape) != Error::kOk || indices.resize(shape) != Error::kOk) {
      return Error::kInvalidArgument;
    }
  }
  auto* line = reinterpret_cast<std::int64_t*>(scratch.data());
  if (x.dtype == ScalarType::kLong) {
    return kernels::top_k(static_cast<const std::int64_t*>(x.data), outer, length, inner, k,
                          t.largest != 0, static_cast<std::int64_t*>(values.data),
                          static_cast<std::int64_t*>(indices.data), line);
  }
  return kernels::top_k(x.float_data(), outer, length, inner, k, t.largest != 0,
                        values.float_data(), static_cast<std::int64_t*>(indices.data), line);
}

namespace {

bool read_nms(const KernelArgs& args, kernels::NmsParams* p, Diagnostics* d) {
  std::int64_t center = 0;
  // score_threshold absent: no threshold (NaN as the fallback tells).
  float score = std::numeric_limits<float>::quiet_NaN();
  if (!read_int(kNms, args, "center_point_box", 0, &center, d) ||
      !read_int(kNms, args, "max_output_boxes_per_class", 0, &p->max_per_class, d) ||
      !read_float(kNms, args, "iou_threshold", 0.0, &p->iou_threshold, d) ||
      !read_float(kNms, args, "score_threshold", std::numeric_limits<double>::quiet_NaN(), &score,
                  d)) {
    return false;
  }
  p->center_point_box = center != 0;
  p->has_score_threshold = !std::isnan(score);
  p->score_threshold = score;
  if (p->max_per_class < 0) {
    report(d, "non_max_suppression: max_output_boxes_per_class must be >= 0");
    return false;
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_non_max_suppression(const KernelArgs& args, Diagnostics* d) {
  kernels::NmsParams p;
  if (!check_counts(kNms, args, 2, 2, 1, d) || !read_nms(args, &p, d)) return kRejected;
  const Tensor& boxes = *args.inputs[0];
  const Tensor& scores = *args.inputs[1];
  if (!check_dtype(kNms, boxes, "boxes", ScalarType::kFloat, d) ||
      !check_dtype(kNms, scores, "scores", ScalarType::kFloat, d) ||
      !check_dtype(kNms, *args.outputs[0], "output", ScalarType::kLong, d)) {
    return kRejected;
  }
  // Dynamic boxes and scores (sized by data, e.g. the candidates a score
  // threshold kept) are checked at their actual sizes: prepare runs again
  // at each execution.
  if (boxes.sizes.size() != 3 || scores.sizes.size() != 3 || boxes.sizes[2] != 4 ||
      scores.sizes[0] != boxes.sizes[0] || scores.sizes[2] != boxes.sizes[1]) {
    report(d, "non_max_suppression: boxes %s and scores %s must be [B,N,4] and [B,C,N]",
           shape_text(boxes.sizes).text, shape_text(scores.sizes).text);
    return kRejected;
  }
  const std::int64_t bound[] = {
      boxes.sizes[0] * scores.sizes[1] * std::min(boxes.sizes[1], p.max_per_class), 3};
  if (!check_dynamic_output(kNms, *args.outputs[0], 0, bound, d)) return kRejected;
  return static_cast<std::size_t>(kernels::nms_scratch_size(boxes.sizes[1])) * sizeof(std::int64_t);
}

Error run_non_max_suppression(const KernelArgs& args, Span<std::uint8_t> scratch) {
  kernels::NmsParams p;
  if (!read_nms(args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& boxes = *args.inputs[0];
  const Tensor& scores = *args.inputs[1];
  Tensor& out = *args.outputs[0];
  Result<std::int64_t> count = kernels::non_max_suppression(
      boxes.float_data(), scores.float_data(), boxes.sizes[0], scores.sizes[1], boxes.sizes[1], p,
      out.bound[0], static_cast<std::int64_t*>(out.data),
      reinterpret_cast<std::int64_t*>(scratch.data()));
  if (!count.ok()) return count.error();
  const std::int64_t sizes[] = {*count, 3};
  return out.resize(sizes);
}

}  // namespace glassbox::runtime::portable

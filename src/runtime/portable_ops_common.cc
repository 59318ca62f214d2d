#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

// Bound on window attributes (kernel, stride, padding, dilation) so that the
// kernels' int64 window arithmetic cannot overflow on a corrupt program.
constexpr std::int64_t kMaxWindow = std::numeric_limits<std::int32_t>::max();

const KernelAttributes& attributes_of(const KernelArgs& args) {
  static const KernelAttributes kNone(nullptr);
  return args.attributes != nullptr ? *args.attributes : kNone;
}

bool same_sizes(Span<const std::int64_t> a, Span<const std::int64_t> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Validates one tensor of the call; `role` is "input" or "output".
// `float_only`: the op's kernels read float32 whatever else it takes.
bool check_tensor(const char* op, const Tensor* t, const char* role, std::size_t index,
                  bool float_only, Diagnostics* d) {
  if (t == nullptr) {
    report(d, "%s: %s %zu is missing", op, role, index);
    return false;
  }
  const bool supported =
      t->dtype == ScalarType::kFloat ||
      (!float_only && (t->dtype == ScalarType::kLong || t->dtype == ScalarType::kInt ||
                       t->dtype == ScalarType::kBool || t->dtype == ScalarType::kChar ||
                       t->dtype == ScalarType::kByte));
  if (!supported) {
    report(d, "%s: %s %zu has dtype %s, only %s supported", op, role, index,
           to_string(t->dtype).data(),
           float_only ? "FLOAT is" : "FLOAT, LONG, INT, CHAR, BYTE and BOOL are");
    return false;
  }
  // Kernels index with int64 and size buffers in bytes: the element count
  // and its byte size must both be representable.
  std::int64_t numel = 1;
  for (std::int64_t s : t->sizes) {
    if (s < 0 || __builtin_mul_overflow(numel, s, &numel)) {
      report(d, "%s: %s %zu has invalid shape %s", op, role, index, shape_text(t->sizes).text);
      return false;
    }
  }
  std::int64_t bytes = 0;
  const auto item = static_cast<std::int64_t>(element_size(t->dtype));
  if (__builtin_mul_overflow(numel, item, &bytes) || t->nbytes < static_cast<std::size_t>(bytes) ||
      (numel > 0 && t->data == nullptr)) {
    report(d, "%s: %s %zu %s has no data for its %lld elements", op, role, index,
           shape_text(t->sizes).text, static_cast<long long>(numel));
    return false;
  }
  return true;
}

}  // namespace

ShapeText shape_text(Span<const std::int64_t> shape) {
  ShapeText out{};
  // Room kept at the end for ",...]" and the terminator.
  constexpr std::size_t kTail = 6;
  std::size_t used = 0;
  out.text[used++] = '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    char item[24];
    const int n = std::snprintf(item, sizeof(item), i == 0 ? "%lld" : ",%lld",
                                static_cast<long long>(shape[i]));
    if (n <= 0) break;
    const auto len = static_cast<std::size_t>(n);
    if (used + len + kTail > sizeof(out.text)) {
      std::memcpy(out.text + used, ",...", 4);
      used += 4;
      break;
    }
    std::memcpy(out.text + used, item, len);
    used += len;
  }
  out.text[used++] = ']';
  out.text[used] = '\0';
  return out;
}

namespace {

bool check_call(const char* op, const KernelArgs& args, std::size_t min_inputs,
                std::size_t max_inputs, bool float_only, Diagnostics* d) {
  const std::size_t n = args.inputs.size();
  if (n < min_inputs || n > max_inputs) {
    const char* plural = min_inputs == 1 ? "" : "s";
    if (min_inputs == max_inputs) {
      report(d, "%s: expects %zu input%s, got %zu", op, min_inputs, plural, n);
    } else if (max_inputs == static_cast<std::size_t>(-1)) {
      report(d, "%s: expects at least %zu input%s, got %zu", op, min_inputs, plural, n);
    } else {
      report(d, "%s: expects %zu to %zu inputs, got %zu", op, min_inputs, max_inputs, n);
    }
    return false;
  }
  if (args.outputs.size() != 1) {
    report(d, "%s: expects 1 output, got %zu", op, args.outputs.size());
    return false;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!check_tensor(op, args.inputs[i], "input", i, float_only, d)) return false;
  return check_tensor(op, args.outputs[0], "output", 0, float_only, d);
}

}  // namespace

bool check_signature(const char* op, const KernelArgs& args, std::size_t min_inputs,
                     std::size_t max_inputs, Diagnostics* d) {
  return check_call(op, args, min_inputs, max_inputs, true, d);
}

bool check_typed_signature(const char* op, const KernelArgs& args, std::size_t min_inputs,
                           std::size_t max_inputs, Diagnostics* d) {
  return check_call(op, args, min_inputs, max_inputs, false, d);
}

bool check_dtype(const char* op, const Tensor& t, const char* what, ScalarType expected,
                 Diagnostics* d) {
  if (t.dtype == expected) return true;
  report(d, "%s: %s has dtype %s, expected %s", op, what, to_string(t.dtype).data(),
         to_string(expected).data());
  return false;
}

bool check_rank_limit(const char* op, const KernelArgs& args, Diagnostics* d) {
  for (std::size_t i = 0; i < args.inputs.size(); ++i) {
    if (args.inputs[i]->sizes.size() > kernels::kMaxDims) {
      report(d, "%s: input %zu %s has rank above %zu", op, i,
             shape_text(args.inputs[i]->sizes).text, kernels::kMaxDims);
      return false;
    }
  }
  if (args.outputs[0]->sizes.size() > kernels::kMaxDims) {
    report(d, "%s: output %s has rank above %zu", op, shape_text(args.outputs[0]->sizes).text,
           kernels::kMaxDims);
    return false;
  }
  return true;
}

bool check_output_shape(const char* op, const KernelArgs& args, Span<const std::int64_t> expected,
                        Diagnostics* d) {
  Tensor& out = *args.outputs[0];
  if (same_sizes(out.sizes, expected)) return true;
  if (out.is_dynamic()) {
    // Fed by a value sized by data: the output takes the computed sizes
    // (prepare runs again at each execution, Method::run_instruction),
    // within the bound the arena reserved.
    if (out.resize(expected) == Error::kOk) return true;
    report(d, "%s: output shape %s exceeds its bound %s", op, shape_text(expected).text,
           shape_text(out.bound).text);
    return false;
  }
  const Span<const std::int64_t> actual = out.sizes;
  report(d, "%s: output shape %s does not match the computed %s", op, shape_text(actual).text,
         shape_text(expected).text);
  return false;
}

bool check_rank(const char* op, const KernelArgs& args, std::size_t index, const char* what,
                std::size_t rank, Diagnostics* d) {
  const Span<const std::int64_t> sizes = args.inputs[index]->sizes;
  if (sizes.size() == rank) return true;
  report(d, "%s: %s (input %zu) must have rank %zu, got %s", op, what, index, rank,
         shape_text(sizes).text);
  return false;
}

bool check_input_shape(const char* op, const KernelArgs& args, std::size_t index, const char* what,
                       Span<const std::int64_t> expected, Diagnostics* d) {
  const Span<const std::int64_t> sizes = args.inputs[index]->sizes;
  if (same_sizes(sizes, expected)) return true;
  report(d, "%s: %s (input %zu) must have shape %s, got %s", op, what, index,
         shape_text(expected).text, shape_text(sizes).text);
  return false;
}

bool check_no_overlap(const char* op, const KernelArgs& args, InPlace in_place, Diagnostics* d) {
  const Tensor& out = *args.outputs[0];
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out.data);
  const std::uintptr_t out_end =
      out_begin + static_cast<std::uintptr_t>(out.numel()) * element_size(out.dtype);
  for (std::size_t i = 0; i < args.inputs.size(); ++i) {
    const Tensor& in = *args.inputs[i];
    const auto in_begin = reinterpret_cast<std::uintptr_t>(in.data);
    const std::uintptr_t in_end =
        in_begin + static_cast<std::uintptr_t>(in.numel()) * element_size(in.dtype);
    if (in_begin >= out_end || out_begin >= in_end) continue;  // Disjoint.
    if (in.data == out.data && (in_place == InPlace::kAlways || (in_place == InPlace::kSameShape &&
                                                                 same_sizes(in.sizes, out.sizes))))
      continue;
    report(d, "%s: output overlaps input %zu in memory", op, i);
    return false;
  }
  return true;
}

bool read_int(const char* op, const KernelArgs& args, const char* name, std::int64_t fallback,
              std::int64_t* value, Diagnostics* d) {
  Result<std::int64_t> r = attributes_of(args).get_int(name, fallback);
  if (!r.ok()) {
    report(d, "%s: attribute '%s' must be an int", op, name);
    return false;
  }
  *value = *r;
  return true;
}

bool read_float(const char* op, const KernelArgs& args, const char* name, double fallback,
                float* value, Diagnostics* d) {
  Result<double> r = attributes_of(args).get_float(name, fallback);
  if (!r.ok()) {
    report(d, "%s: attribute '%s' must be a float", op, name);
    return false;
  }
  // A double outside float's range does not convert (undefined behaviour),
  // so saturate it explicitly.
  constexpr double kMax = std::numeric_limits<float>::max();
  const double v = *r;
  if (std::isnan(v)) {
    *value = std::numeric_limits<float>::quiet_NaN();
  } else if (v > kMax || v < -kMax) {
    *value =
        v > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  } else {
    *value = static_cast<float>(v);
  }
  return true;
}

bool read_ints(const char* op, const KernelArgs& args, const char* name,
               Span<const std::int64_t>* value, Diagnostics* d) {
  Result<Span<const std::int64_t>> r = attributes_of(args).get_ints(name);
  if (!r.ok()) {
    report(d, "%s: attribute '%s' must be an int list", op, name);
    return false;
  }
  *value = *r;
  return true;
}

bool read_choice(const char* op, const KernelArgs& args, const char* name,
                 Span<const char* const> choices, std::size_t* index, Diagnostics* d) {
  Result<const char*> r = attributes_of(args).get_string(name, choices[0]);
  if (!r.ok()) {
    report(d, "%s: attribute '%s' must be a string", op, name);
    return false;
  }
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (std::strcmp(*r, choices[i]) == 0) {
      *index = i;
      return true;
    }
  }
  report(d, "%s: attribute '%s' has unsupported value \"%.40s\"", op, name, *r);
  return false;
}

bool read_pair(const char* op, const KernelArgs& args, const char* name, std::int64_t fallback,
               std::int64_t min, std::int64_t* h, std::int64_t* w, Diagnostics* d) {
  Span<const std::int64_t> v;
  if (!read_ints(op, args, name, &v, d)) return false;
  if (v.empty()) {
    *h = *w = fallback;
    return true;
  }
  if (v.size() != 2) {
    report(d, "%s: attribute '%s' must have 2 entries, got %s", op, name, shape_text(v).text);
    return false;
  }
  if (v[0] < min || v[1] < min || v[0] > kMaxWindow || v[1] > kMaxWindow) {
    report(d, "%s: attribute '%s' %s must be in [%lld, %lld]", op, name, shape_text(v).text,
           static_cast<long long>(min), static_cast<long long>(kMaxWindow));
    return false;
  }
  *h = v[0];
  *w = v[1];
  return true;
}

bool read_spatial(const char* op, const KernelArgs& args, const char* name, std::size_t n,
                  std::int64_t fallback, std::int64_t min, std::int64_t* out, Diagnostics* d) {
  Span<const std::int64_t> v;
  if (!read_ints(op, args, name, &v, d)) return false;
  if (v.empty()) {
    std::fill(out, out + n, fallback);
    return true;
  }
  if (v.size() != n) {
    report(d, "%s: attribute '%s' must have %zu %s, got %s", op, name, n,
           n == 1 ? "entry" : "entries", shape_text(v).text);
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (v[i] < min || v[i] > kMaxWindow) {
      report(d, "%s: attribute '%s' %s must be in [%lld, %lld]", op, name, shape_text(v).text,
             static_cast<long long>(min), static_cast<long long>(kMaxWindow));
      return false;
    }
    out[i] = v[i];
  }
  return true;
}

bool read_spatial_padding(const char* op, const KernelArgs& args, std::size_t n,
                          std::int64_t* begin, std::int64_t* end, Diagnostics* d) {
  Span<const std::int64_t> v;
  if (!read_ints(op, args, "padding", &v, d)) return false;
  if (!v.empty() && v.size() != n && v.size() != 2 * n) {
    report(d, "%s: attribute 'padding' must have %zu or %zu entries, got %s", op, n, 2 * n,
           shape_text(v).text);
    return false;
  }
  for (std::int64_t p : v) {
    if (p < 0 || p > kMaxWindow) {
      report(d, "%s: attribute 'padding' %s must be in [0, %lld]", op, shape_text(v).text,
             static_cast<long long>(kMaxWindow));
      return false;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    begin[i] = v.empty() ? 0 : v[i];
    end[i] = v.empty() ? 0 : v[v.size() == n ? i : n + i];
  }
  return true;
}

bool read_padding(const char* op, const KernelArgs& args, Padding* padding, Diagnostics* d) {
  Span<const std::int64_t> v;
  if (!read_ints(op, args, "padding", &v, d)) return false;
  for (std::int64_t p : v) {
    if (p < 0 || p > kMaxWindow) {
      report(d, "%s: attribute 'padding' %s must be in [0, %lld]", op, shape_text(v).text,
             static_cast<long long>(kMaxWindow));
      return false;
    }
  }
  if (v.empty()) {
    *padding = Padding{};
  } else if (v.size() == 2) {
    *padding = Padding{v[0], v[1], v[0], v[1]};
  } else if (v.size() == 4) {
    *padding = Padding{v[0], v[1], v[2], v[3]};
  } else {
    report(d, "%s: attribute 'padding' must have 2 or 4 entries, got %s", op, shape_text(v).text);
    return false;
  }
  return true;
}

kernels::Shape4 shape4(const Tensor& t) { return {t.sizes[0], t.sizes[1], t.sizes[2], t.sizes[3]}; }

}  // namespace glassbox::runtime::portable

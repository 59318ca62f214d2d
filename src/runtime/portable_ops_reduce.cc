// Reductions (reduce_*, argmax, argmin) and the normalizations of
// transformers and modern CNNs (layer_norm, instance_norm, group_norm).

#include <cstring>

#include "glassbox/runtime/kernels/layer_norm.h"
#include "glassbox/runtime/kernels/reduce.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::Dims;
using kernels::kMaxDims;

// The reduced axes of x (normalised, distinct) and the output shape.
struct Reduction {
  Dims axes;
  Dims out;
};

bool read_reduction(const char* op, const KernelArgs& args, bool single_axis, Reduction* r,
                    Diagnostics* d) {
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  const auto rank = static_cast<std::int64_t>(x.size());
  if (x.size() > kMaxDims) {
    report(d, "%s: input %s has rank above %zu", op, shape_text(x).text, kMaxDims);
    return false;
  }
  std::int64_t keepdims = 1;
  if (!read_int(op, args, "keepdims", 1, &keepdims, d)) return false;
  Span<const std::int64_t> axes;
  std::int64_t axis = 0;
  if (single_axis) {
    if (!read_int(op, args, "axis", 0, &axis, d)) return false;
    axes = Span<const std::int64_t>(&axis, 1);
  } else if (!read_ints(op, args, "axes", &axes, d)) {
    return false;
  }
  bool reduced[kMaxDims] = {};
  r->axes.rank = 0;
  for (std::int64_t a : axes) {
    if (a < -rank || a >= rank || reduced[a < 0 ? a + rank : a] || r->axes.rank == kMaxDims) {
      report(d, "%s: axis %lld is out of range or repeated for input %s", op,
             static_cast<long long>(a), shape_text(x).text);
      return false;
    }
    const std::int64_t n = a < 0 ? a + rank : a;
    reduced[n] = true;
    r->axes.sizes[r->axes.rank++] = n;
  }
  r->out.rank = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!reduced[i]) {
      r->out.sizes[r->out.rank++] = x[i];
    } else if (keepdims != 0) {
      r->out.sizes[r->out.rank++] = 1;
    }
  }
  return true;
}

}  // namespace

namespace {

// reduce_min and reduce_max also take int64 (shape arithmetic), over axes
// that are not empty.
bool int64_extreme(const char* op, const KernelArgs& args) {
  return args.inputs.size() == 1 && args.inputs[0]->dtype == ScalarType::kLong &&
         (std::strcmp(op, "reduce_min") == 0 || std::strcmp(op, "reduce_max") == 0);
}

}  // namespace

Result<std::size_t> prepare_reduce(const char* op, const KernelArgs& args, Diagnostics* d) {
  Reduction r;
  if (int64_extreme(op, args)) {
    if (!check_typed_signature(op, args, 1, 1, d) ||
        !check_dtype(op, *args.outputs[0], "output", ScalarType::kLong, d) ||
        !read_reduction(op, args, false, &r, d) || !check_output_shape(op, args, r.out.span(), d) ||
        !check_no_overlap(op, args, InPlace::kNever, d)) {
      return kRejected;
    }
    for (std::size_t i = 0; i < r.axes.rank; ++i) {
      if (args.inputs[0]->sizes[static_cast<std::size_t>(r.axes.sizes[i])] == 0) {
        report(d, "%s: an int64 reduction over an empty axis", op);
        return kRejected;
      }
    }
    return std::size_t{0};
  }
  if (!check_signature(op, args, 1, 1, d) || !read_reduction(op, args, false, &r, d) ||
      !check_output_shape(op, args, r.out.span(), d) ||
      !check_no_overlap(op, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_reduce(kernels::ReduceOp op, const char* name, const KernelArgs& args) {
  Reduction r;
  if (!read_reduction(name, args, false, &r, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  if (int64_extreme(name, args)) {
    return kernels::reduce_extreme_int64(
        op == kernels::ReduceOp::kMax, static_cast<const std::int64_t*>(x.data), x.sizes,
        r.axes.span(), static_cast<std::int64_t*>(args.outputs[0]->data));
  }
  return kernels::reduce(op, x.float_data(), x.sizes, r.axes.span(), args.outputs[0]->float_data());
}

Result<std::size_t> prepare_arg_reduce(const char* op, const KernelArgs& args, Diagnostics* d) {
  Reduction r;
  std::int64_t last = 0;
  if (!check_typed_signature(op, args, 1, 1, d) ||
      !check_dtype(op, *args.inputs[0], "input 0", ScalarType::kFloat, d) ||
      !check_dtype(op, *args.outputs[0], "output", ScalarType::kLong, d) ||
      !read_int(op, args, "select_last_index", 0, &last, d) ||
      !read_reduction(op, args, true, &r, d) || !check_output_shape(op, args, r.out.span(), d) ||
      !check_no_overlap(op, args, InPlace::kNever, d)) {
    return kRejected;
  }
  if (args.inputs[0]->sizes[static_cast<std::size_t>(r.axes.sizes[0])] == 0) {
    report(d, "%s: the reduced axis is empty", op);
    return kRejected;
  }
  return std::size_t{0};
}

Error run_arg_reduce(bool is_max, const char* name, const KernelArgs& args) {
  Reduction r;
  std::int64_t last = 0;
  if (!read_reduction(name, args, true, &r, nullptr) ||
      !read_int(name, args, "select_last_index", 0, &last, nullptr)) {
    return Error::kInvalidArgument;
  }
  const Tensor& x = *args.inputs[0];
  return kernels::arg_reduce(is_max, x.float_data(), x.sizes, r.axes.sizes[0], last != 0,
                             static_cast<std::int64_t*>(args.outputs[0]->data));
}

namespace {

// layer_norm splits x at `axis` into [rows, cols].
bool layer_norm_split(const KernelArgs& args, std::int64_t* rows, std::int64_t* cols, float* eps,
                      Diagnostics* d) {
  std::int64_t axis = -1;
  if (!read_int("layer_norm", args, "axis", -1, &axis, d) ||
      !read_float("layer_norm", args, "eps", 1e-5, eps, d)) {
    return false;
  }
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  const auto rank = static_cast<std::int64_t>(x.size());
  if (axis < -rank || axis >= rank) {
    report(d, "layer_norm: axis %lld out of range for %s", static_cast<long long>(axis),
           shape_text(x).text);
    return false;
  }
  const auto split = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  *rows = 1;
  *cols = 1;
  for (std::size_t i = 0; i < x.size(); ++i) (i < split ? *rows : *cols) *= x[i];
  const Span<const std::int64_t> normalized(x.data() + split, x.size() - split);
  for (std::size_t i = 1; i < args.inputs.size(); ++i) {
    if (!check_input_shape("layer_norm", args, i, i == 1 ? "scale" : "bias", normalized, d)) {
      return false;
    }
  }
  return true;
}

// instance_norm and group_norm see x as [n, channels, spatial].
struct ChannelSplit {
  std::int64_t n = 0;
  std::int64_t channels = 0;
  std::int64_t spatial = 1;
  std::int64_t groups = 0;
  float eps = 1e-5f;
};

bool channel_split(const char* op, const KernelArgs& args, bool grouped, ChannelSplit* s,
                   Diagnostics* d) {
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  if (x.size() < 2) {
    report(d, "%s: input %s must have rank >= 2", op, shape_text(x).text);
    return false;
  }
  if (!read_float(op, args, "eps", 1e-5, &s->eps, d)) return false;
  s->n = x[0];
  s->channels = x[1];
  s->spatial = 1;
  for (std::size_t i = 2; i < x.size(); ++i) s->spatial *= x[i];
  s->groups = s->channels;
  if (grouped && !read_int(op, args, "num_groups", 1, &s->groups, d)) return false;
  if (s->groups < 1 || s->channels % s->groups != 0) {
    report(d, "%s: %lld channels not divisible by num_groups %lld", op,
           static_cast<long long>(s->channels), static_cast<long long>(s->groups));
    return false;
  }
  const std::int64_t scale = args.inputs[1]->numel();
  if ((scale != s->channels && scale != s->groups) || args.inputs[1]->sizes.size() != 1 ||
      !check_input_shape(op, args, 2, "bias", args.inputs[1]->sizes, d)) {
    report(d, "%s: scale and bias must have shape [channels]%s", op,
           grouped ? " or [num_groups]" : "");
    return false;
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_layer_norm(const KernelArgs& args, Diagnostics* d) {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  float eps = 0;
  if (!check_signature("layer_norm", args, 2, 3, d) ||
      !layer_norm_split(args, &rows, &cols, &eps, d) ||
      !check_output_shape("layer_norm", args, args.inputs[0]->sizes, d) ||
      !check_no_overlap("layer_norm", args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_layer_norm(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  float eps = 0;
  if (!layer_norm_split(args, &rows, &cols, &eps, nullptr)) return Error::kInvalidArgument;
  const float* bias = args.inputs.size() == 3 ? args.inputs[2]->float_data() : nullptr;
  return kernels::layer_norm(args.inputs[0]->float_data(), rows, cols, args.inputs[1]->float_data(),
                             bias, eps, args.outputs[0]->float_data());
}

Result<std::size_t> prepare_channel_norm(const char* op, const KernelArgs& args, Diagnostics* d) {
  ChannelSplit s;
  const bool grouped = op[0] == 'g';
  if (!check_signature(op, args, 3, 3, d) || !channel_split(op, args, grouped, &s, d) ||
      !check_output_shape(op, args, args.inputs[0]->sizes, d) ||
      !check_no_overlap(op, args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_channel_norm(const char* op, const KernelArgs& args) {
  ChannelSplit s;
  const bool grouped = op[0] == 'g';
  if (!channel_split(op, args, grouped, &s, nullptr)) return Error::kInvalidArgument;
  const float* x = args.inputs[0]->float_data();
  const float* scale = args.inputs[1]->float_data();
  const float* bias = args.inputs[2]->float_data();
  float* y = args.outputs[0]->float_data();
  if (!grouped) return kernels::instance_norm(x, s.n, s.channels, s.spatial, scale, bias, s.eps, y);
  return kernels::group_norm(x, s.n, s.channels, s.spatial, s.groups, scale, bias,
                             args.inputs[1]->numel(), s.eps, y);
}

}  // namespace glassbox::runtime::portable

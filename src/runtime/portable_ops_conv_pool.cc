// conv2d, max_pool2d, avg_pool2d, global_avg_pool2d.

#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/pooling.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::Conv2dParams;
using kernels::Pool2dParams;
using kernels::Shape4;

constexpr const char* kConv2d = "conv2d";
constexpr const char* kMaxPool2d = "max_pool2d";
constexpr const char* kAvgPool2d = "avg_pool2d";
constexpr const char* kGlobalAvgPool2d = "global_avg_pool2d";

// Shared by prepare (reporting) and run (d == null, cannot fail by then).
bool conv2d_params(const KernelArgs& args, Conv2dParams* p, Diagnostics* d) {
  Padding pad;
  if (!read_pair(kConv2d, args, "stride", 1, 1, &p->stride_h, &p->stride_w, d) ||
      !read_padding(kConv2d, args, &pad, d) ||
      !read_pair(kConv2d, args, "dilation", 1, 1, &p->dilation_h, &p->dilation_w, d) ||
      !read_int(kConv2d, args, "groups", 1, &p->groups, d)) {
    return false;
  }
  if (p->groups < 1) {
    report(d, "conv2d: attribute 'groups' is %lld, must be >= 1",
           static_cast<long long>(p->groups));
    return false;
  }
  p->pad_top = pad.top;
  p->pad_left = pad.left;
  p->pad_bottom = pad.bottom;
  p->pad_right = pad.right;
  return true;
}

// `avg` selects avg_pool2d's rules (no dilation, count_include_pad).
bool pool2d_params(const char* op, bool avg, const KernelArgs& args, Pool2dParams* p,
                   Diagnostics* d) {
  Padding pad;
  std::int64_t ceil_mode = 0;
  // 0 stands for "absent": a present kernel must be >= 1.
  if (!read_pair(op, args, "kernel", 0, 1, &p->kernel_h, &p->kernel_w, d) ||
      !read_pair(op, args, "stride", 1, 1, &p->stride_h, &p->stride_w, d) ||
      !read_padding(op, args, &pad, d) ||
      !read_pair(op, args, "dilation", 1, 1, &p->dilation_h, &p->dilation_w, d) ||
      !read_int(op, args, "ceil_mode", 0, &ceil_mode, d)) {
    return false;
  }
  if (p->kernel_h == 0) {
    report(d, "%s: attribute 'kernel' is required", op);
    return false;
  }
  if (ceil_mode != 0 && ceil_mode != 1) {
    report(d, "%s: attribute 'ceil_mode' is %lld, must be 0 or 1", op,
           static_cast<long long>(ceil_mode));
    return false;
  }
  p->pad_top = pad.top;
  p->pad_left = pad.left;
  p->pad_bottom = pad.bottom;
  p->pad_right = pad.right;
  p->ceil_mode = ceil_mode == 1;
  if (avg) {
    if (p->dilation_h != 1 || p->dilation_w != 1) {
      report(d, "avg_pool2d: attribute 'dilation' must be [1,1], got [%lld,%lld]",
             static_cast<long long>(p->dilation_h), static_cast<long long>(p->dilation_w));
      return false;
    }
    // PyTorch's default; ONNX AveragePool's is 0 and must be written out.
    std::int64_t count_include_pad = 1;
    if (!read_int(op, args, "count_include_pad", 1, &count_include_pad, d)) {
      return false;
    }
    if (count_include_pad != 0 && count_include_pad != 1) {
      report(d,
             "avg_pool2d: attribute 'count_include_pad' is %lld, must be 0 "
             "or 1",
             static_cast<long long>(count_include_pad));
      return false;
    }
    p->count_include_pad = count_include_pad == 1;
  }
  return true;
}

Result<std::size_t> prepare_pool2d(const char* op, bool avg, const KernelArgs& args,
                                   Diagnostics* d) {
  Pool2dParams p;
  if (!check_signature(op, args, 1, 1, d) || !check_rank(op, args, 0, "input", 4, d) ||
      !pool2d_params(op, avg, args, &p, d)) {
    return kRejected;
  }
  const Shape4 in = shape4(*args.inputs[0]);
  Result<Shape4> out = kernels::pool2d_output_shape(in, p);
  if (!out.ok()) {
    report(d,
           "%s: input %s does not fit kernel [%lld,%lld], stride "
           "[%lld,%lld], padding [%lld,%lld,%lld,%lld], dilation "
           "[%lld,%lld] (%s)",
           op, shape_text(args.inputs[0]->sizes).text, static_cast<long long>(p.kernel_h),
           static_cast<long long>(p.kernel_w), static_cast<long long>(p.stride_h),
           static_cast<long long>(p.stride_w), static_cast<long long>(p.pad_top),
           static_cast<long long>(p.pad_left), static_cast<long long>(p.pad_bottom),
           static_cast<long long>(p.pad_right), static_cast<long long>(p.dilation_h),
           static_cast<long long>(p.dilation_w), out.message());
    return kRejected;
  }
  const std::int64_t dims[] = {out->n, out->c, out->h, out->w};
  if (!check_output_shape(op, args, dims, d) || !check_no_overlap(op, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

}  // namespace

Result<std::size_t> prepare_conv2d(const KernelArgs& args, Diagnostics* d) {
  Conv2dParams p;
  if (!check_signature(kConv2d, args, 2, 3, d) || !check_rank(kConv2d, args, 0, "input", 4, d) ||
      !check_rank(kConv2d, args, 1, "weight", 4, d) || !conv2d_params(args, &p, d)) {
    return kRejected;
  }
  const Shape4 in = shape4(*args.inputs[0]);
  const Shape4 w = shape4(*args.inputs[1]);
  const std::int64_t bias_shape[] = {w.n};
  if (args.inputs.size() == 3 && !check_input_shape(kConv2d, args, 2, "bias", bias_shape, d)) {
    return kRejected;
  }
  Result<Shape4> out = kernels::conv2d_output_shape(in, w, p);
  if (!out.ok()) {
    report(d,
           "conv2d: input %s and weight %s do not fit stride [%lld,%lld], "
           "padding [%lld,%lld,%lld,%lld], dilation [%lld,%lld], groups "
           "%lld (%s)",
           shape_text(args.inputs[0]->sizes).text, shape_text(args.inputs[1]->sizes).text,
           static_cast<long long>(p.stride_h), static_cast<long long>(p.stride_w),
           static_cast<long long>(p.pad_top), static_cast<long long>(p.pad_left),
           static_cast<long long>(p.pad_bottom), static_cast<long long>(p.pad_right),
           static_cast<long long>(p.dilation_h), static_cast<long long>(p.dilation_w),
           static_cast<long long>(p.groups), out.message());
    return kRejected;
  }
  const std::int64_t dims[] = {out->n, out->c, out->h, out->w};
  if (!check_output_shape(kConv2d, args, dims, d) ||
      !check_no_overlap(kConv2d, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return kernels::conv2d_scratch_bytes(in, w, p);
}

Error run_conv2d(const KernelArgs& args, Span<std::uint8_t> scratch) {
  Conv2dParams p;
  if (!conv2d_params(args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& w = *args.inputs[1];
  const float* bias = args.inputs.size() == 3 ? args.inputs[2]->float_data() : nullptr;
  return kernels::conv2d(x.float_data(), shape4(x), w.float_data(), shape4(w), bias, p,
                         args.outputs[0]->float_data(), float_scratch(scratch));
}

Result<std::size_t> prepare_max_pool2d(const KernelArgs& args, Diagnostics* d) {
  return prepare_pool2d(kMaxPool2d, false, args, d);
}

Error run_max_pool2d(const KernelArgs& args, Span<std::uint8_t>) {
  Pool2dParams p;
  if (!pool2d_params(kMaxPool2d, false, args, &p, nullptr)) {
    return Error::kInvalidArgument;
  }
  const Tensor& x = *args.inputs[0];
  return kernels::max_pool2d(x.float_data(), shape4(x), p, args.outputs[0]->float_data());
}

Result<std::size_t> prepare_avg_pool2d(const KernelArgs& args, Diagnostics* d) {
  return prepare_pool2d(kAvgPool2d, true, args, d);
}

Error run_avg_pool2d(const KernelArgs& args, Span<std::uint8_t>) {
  Pool2dParams p;
  if (!pool2d_params(kAvgPool2d, true, args, &p, nullptr)) {
    return Error::kInvalidArgument;
  }
  const Tensor& x = *args.inputs[0];
  return kernels::avg_pool2d(x.float_data(), shape4(x), p, args.outputs[0]->float_data());
}

Result<std::size_t> prepare_global_avg_pool2d(const KernelArgs& args, Diagnostics* d) {
  const char* op = kGlobalAvgPool2d;
  if (!check_signature(op, args, 1, 1, d) || !check_rank(op, args, 0, "input", 4, d)) {
    return kRejected;
  }
  const Shape4 in = shape4(*args.inputs[0]);
  if (in.h < 1 || in.w < 1) {
    report(d, "global_avg_pool2d: input %s has empty planes",
           shape_text(args.inputs[0]->sizes).text);
    return kRejected;
  }
  const std::int64_t dims[] = {in.n, in.c, 1, 1};
  if (!check_output_shape(op, args, dims, d) || !check_no_overlap(op, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_global_avg_pool2d(const KernelArgs& args, Span<std::uint8_t>) {
  const Tensor& x = *args.inputs[0];
  return kernels::global_avg_pool2d(x.float_data(), shape4(x), args.outputs[0]->float_data());
}

}  // namespace glassbox::runtime::portable

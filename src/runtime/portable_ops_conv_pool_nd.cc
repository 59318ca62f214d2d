// conv1d, conv3d, conv_transpose3d and the 1-D and 3-D pools. A 1-D op
// runs on the 2-D kernel with a height of 1, which is exact (a one-row
// window reads the same elements in the same order) and keeps the 2-D
// kernels' GEMM and separable pooling; a 3-D op on conv_pool3d.h.

#include <type_traits>

#include "glassbox/runtime/kernels/conv.h"
#include "glassbox/runtime/kernels/conv_pool3d.h"
#include "glassbox/runtime/kernels/pooling.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::Conv3dParams;
using kernels::Pool3dParams;
using kernels::Shape4;
using kernels::Shape5;

// The window attributes of n spatial dims, read into the 3-D parameter
// structs (a 1-D op fills entry 0). Shared by prepare (reporting) and run
// (d == null, cannot fail by then).
bool conv_params(const char* op, std::size_t n, bool transposed, const KernelArgs& args,
                 Conv3dParams* p, Diagnostics* d) {
  if (!read_spatial(op, args, "stride", n, 1, 1, p->stride.data(), d) ||
      !read_spatial(op, args, "dilation", n, 1, 1, p->dilation.data(), d) ||
      !read_spatial_padding(op, args, n, p->pad_begin.data(), p->pad_end.data(), d) ||
      !read_int(op, args, "groups", 1, &p->groups, d) ||
      (transposed &&
       !read_spatial(op, args, "output_padding", n, 0, 0, p->output_padding.data(), d))) {
    return false;
  }
  if (p->groups < 1) {
    report(d, "%s: attribute 'groups' is %lld, must be >= 1", op,
           static_cast<long long>(p->groups));
    return false;
  }
  return true;
}

bool flag(const char* op, const KernelArgs& args, const char* name, std::int64_t fallback,
          bool* value, Diagnostics* d) {
  std::int64_t v = fallback;
  if (!read_int(op, args, name, fallback, &v, d)) return false;
  if (v != 0 && v != 1) {
    report(d, "%s: attribute '%s' is %lld, must be 0 or 1", op, name, static_cast<long long>(v));
    return false;
  }
  *value = v == 1;
  return true;
}

// `avg` selects avg_pool's rules (no dilation, count_include_pad).
bool pool_params(const char* op, std::size_t n, bool avg, const KernelArgs& args, Pool3dParams* p,
                 Diagnostics* d) {
  // 0 stands for "absent": a present kernel must be >= 1.
  if (!read_spatial(op, args, "kernel", n, 0, 1, p->kernel.data(), d) ||
      !read_spatial(op, args, "stride", n, 1, 1, p->stride.data(), d) ||
      !read_spatial(op, args, "dilation", n, 1, 1, p->dilation.data(), d) ||
      !read_spatial_padding(op, args, n, p->pad_begin.data(), p->pad_end.data(), d) ||
      !flag(op, args, "ceil_mode", 0, &p->ceil_mode, d)) {
    return false;
  }
  if (p->kernel[0] == 0) {
    report(d, "%s: attribute 'kernel' is required", op);
    return false;
  }
  if (!avg) return true;
  for (std::size_t i = 0; i < n; ++i) {
    if (p->dilation[i] != 1) {
      report(d, "%s: attribute 'dilation' must be all 1", op);
      return false;
    }
  }
  // PyTorch's default; ONNX AveragePool's is 0 and must be written out.
  return flag(op, args, "count_include_pad", 1, &p->count_include_pad, d);
}

// A 1-D op's tensors and window as the 2-D kernels see them: one row.
Shape4 as_row(const Tensor& t) { return {t.sizes[0], t.sizes[1], 1, t.sizes[2]}; }

kernels::Conv2dParams conv2d_of(const Conv3dParams& p) {
  kernels::Conv2dParams q;
  q.stride_w = p.stride[0];
  q.pad_left = p.pad_begin[0];
  q.pad_right = p.pad_end[0];
  q.dilation_w = p.dilation[0];
  q.groups = p.groups;
  return q;
}

kernels::Pool2dParams pool2d_of(const Pool3dParams& p) {
  kernels::Pool2dParams q;
  q.kernel_w = p.kernel[0];
  q.stride_w = p.stride[0];
  q.pad_left = p.pad_begin[0];
  q.pad_right = p.pad_end[0];
  q.dilation_w = p.dilation[0];
  q.ceil_mode = p.ceil_mode;
  q.count_include_pad = p.count_include_pad;
  return q;
}

Shape5 shape5(const Tensor& t) {
  return {t.sizes[0], t.sizes[1], t.sizes[2], t.sizes[3], t.sizes[4]};
}

// The output dims of a 1-D (from a row's shape) or 3-D result.
struct OutDims {
  std::int64_t dims[5] = {};
  std::size_t rank = 0;
};

template <typename Shape>
OutDims out_dims(const Shape& s) {
  if constexpr (std::is_same_v<Shape, Shape4>) {
    return {{s.n, s.c, s.w}, 3};
  } else {
    return {{s.n, s.c, s.d, s.h, s.w}, 5};
  }
}

// Checks the output against the shape function's result; reports why the
// window does not fit.
template <typename Shape>
bool check_result(const char* op, const KernelArgs& args, const Result<Shape>& out,
                  Diagnostics* d) {
  if (!out.ok()) {
    report(d, "%s: input %s does not fit the window attributes (%s)", op,
           shape_text(args.inputs[0]->sizes).text, out.message());
    return false;
  }
  const OutDims o = out_dims(*out);
  return check_output_shape(op, args, Span<const std::int64_t>(o.dims, o.rank), d) &&
         check_no_overlap(op, args, InPlace::kNever, d);
}

Result<std::size_t> prepare_conv(const char* op, std::size_t n, const KernelArgs& args,
                                 Diagnostics* d) {
  Conv3dParams p;
  if (!check_signature(op, args, 2, 3, d) || !check_rank(op, args, 0, "input", n + 2, d) ||
      !check_rank(op, args, 1, "weight", n + 2, d) || !conv_params(op, n, false, args, &p, d)) {
    return kRejected;
  }
  const std::int64_t bias_shape[] = {args.inputs[1]->sizes[0]};
  if (args.inputs.size() == 3 && !check_input_shape(op, args, 2, "bias", bias_shape, d)) {
    return kRejected;
  }
  if (n == 1) {
    const Shape4 x = as_row(*args.inputs[0]);
    const Shape4 w = as_row(*args.inputs[1]);
    if (!check_result(op, args, kernels::conv2d_output_shape(x, w, conv2d_of(p)), d)) {
      return kRejected;
    }
    return kernels::conv2d_scratch_bytes(x, w, conv2d_of(p));
  }
  if (!check_result(
          op, args,
          kernels::conv3d_output_shape(shape5(*args.inputs[0]), shape5(*args.inputs[1]), p), d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_conv(const char* op, std::size_t n, const KernelArgs& args, Span<std::uint8_t> scratch) {
  Conv3dParams p;
  if (!conv_params(op, n, false, args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& w = *args.inputs[1];
  const float* bias = args.inputs.size() == 3 ? args.inputs[2]->float_data() : nullptr;
  float* y = args.outputs[0]->float_data();
  if (n == 1) {
    return kernels::conv2d(x.float_data(), as_row(x), w.float_data(), as_row(w), bias, conv2d_of(p),
                           y, float_scratch(scratch));
  }
  return kernels::conv3d(x.float_data(), shape5(x), w.float_data(), shape5(w), bias, p, y);
}

Result<std::size_t> prepare_pool(const char* op, std::size_t n, bool avg, const KernelArgs& args,
                                 Diagnostics* d) {
  Pool3dParams p;
  if (!check_signature(op, args, 1, 1, d) || !check_rank(op, args, 0, "input", n + 2, d) ||
      !pool_params(op, n, avg, args, &p, d)) {
    return kRejected;
  }
  const bool fits =
      n == 1 ? check_result(op, args,
                            kernels::pool2d_output_shape(as_row(*args.inputs[0]), pool2d_of(p)), d)
             : check_result(op, args, kernels::pool3d_output_shape(shape5(*args.inputs[0]), p), d);
  if (!fits) return kRejected;
  return std::size_t{0};
}

Error run_pool(const char* op, std::size_t n, bool avg, const KernelArgs& args) {
  Pool3dParams p;
  if (!pool_params(op, n, avg, args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  float* y = args.outputs[0]->float_data();
  if (n == 1) {
    return avg ? kernels::avg_pool2d(x.float_data(), as_row(x), pool2d_of(p), y)
               : kernels::max_pool2d(x.float_data(), as_row(x), pool2d_of(p), y);
  }
  return avg ? kernels::avg_pool3d(x.float_data(), shape5(x), p, y)
             : kernels::max_pool3d(x.float_data(), shape5(x), p, y);
}

constexpr const char* kConvTranspose3d = "conv_transpose3d";

}  // namespace

Result<std::size_t> prepare_conv1d(const KernelArgs& args, Diagnostics* d) {
  return prepare_conv("conv1d", 1, args, d);
}
Error run_conv1d(const KernelArgs& args, Span<std::uint8_t> scratch) {
  return run_conv("conv1d", 1, args, scratch);
}
Result<std::size_t> prepare_conv3d(const KernelArgs& args, Diagnostics* d) {
  return prepare_conv("conv3d", 3, args, d);
}
Error run_conv3d(const KernelArgs& args, Span<std::uint8_t> scratch) {
  return run_conv("conv3d", 3, args, scratch);
}

Result<std::size_t> prepare_conv_transpose3d(const KernelArgs& args, Diagnostics* d) {
  const char* op = kConvTranspose3d;
  Conv3dParams p;
  if (!check_signature(op, args, 2, 3, d) || !check_rank(op, args, 0, "input", 5, d) ||
      !check_rank(op, args, 1, "weight", 5, d) || !conv_params(op, 3, true, args, &p, d)) {
    return kRejected;
  }
  Result<Shape5> out =
      kernels::conv_transpose3d_output_shape(shape5(*args.inputs[0]), shape5(*args.inputs[1]), p);
  if (!check_result(op, args, out, d)) return kRejected;
  const std::int64_t bias_shape[] = {out->c};
  if (args.inputs.size() == 3 && !check_input_shape(op, args, 2, "bias", bias_shape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_conv_transpose3d(const KernelArgs& args, Span<std::uint8_t>) {
  Conv3dParams p;
  if (!conv_params(kConvTranspose3d, 3, true, args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& w = *args.inputs[1];
  const float* bias = args.inputs.size() == 3 ? args.inputs[2]->float_data() : nullptr;
  return kernels::conv_transpose3d(x.float_data(), shape5(x), w.float_data(), shape5(w), bias, p,
                                   shape5(*args.outputs[0]), args.outputs[0]->float_data());
}

Result<std::size_t> prepare_max_pool1d(const KernelArgs& args, Diagnostics* d) {
  return prepare_pool("max_pool1d", 1, false, args, d);
}
Error run_max_pool1d(const KernelArgs& args, Span<std::uint8_t>) {
  return run_pool("max_pool1d", 1, false, args);
}
Result<std::size_t> prepare_max_pool3d(const KernelArgs& args, Diagnostics* d) {
  return prepare_pool("max_pool3d", 3, false, args, d);
}
Error run_max_pool3d(const KernelArgs& args, Span<std::uint8_t>) {
  return run_pool("max_pool3d", 3, false, args);
}
Result<std::size_t> prepare_avg_pool1d(const KernelArgs& args, Diagnostics* d) {
  return prepare_pool("avg_pool1d", 1, true, args, d);
}
Error run_avg_pool1d(const KernelArgs& args, Span<std::uint8_t>) {
  return run_pool("avg_pool1d", 1, true, args);
}
Result<std::size_t> prepare_avg_pool3d(const KernelArgs& args, Diagnostics* d) {
  return prepare_pool("avg_pool3d", 3, true, args, d);
}
Error run_avg_pool3d(const KernelArgs& args, Span<std::uint8_t>) {
  return run_pool("avg_pool3d", 3, true, args);
}

}  // namespace glassbox::runtime::portable

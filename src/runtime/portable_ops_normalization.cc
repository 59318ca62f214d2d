// batch_norm (inference), softmax.

#include <cmath>

#include "glassbox/runtime/kernels/normalization.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kBatchNorm = "batch_norm";
constexpr const char* kSoftmax = "softmax";
constexpr double kDefaultEps = 1e-5;  // nn.BatchNorm2d and ONNX.

bool batch_norm_eps(const KernelArgs& args, float* eps, Diagnostics* d) {
  if (!read_float(kBatchNorm, args, "eps", kDefaultEps, eps, d)) return false;
  if (!(*eps >= 0.0f) || std::isinf(*eps)) {
    report(d, "batch_norm: attribute 'eps' is %g, must be finite and >= 0",
           static_cast<double>(*eps));
    return false;
  }
  return true;
}

// x[N, C, ...]: the kernel's NCHW view puts all trailing dims into H.
kernels::Shape4 batch_norm_shape(const Tensor& x) {
  kernels::Shape4 s{x.sizes[0], x.sizes[1], 1, 1};
  for (std::size_t i = 2; i < x.sizes.size(); ++i) s.h *= x.sizes[i];
  return s;
}

bool softmax_axis(const KernelArgs& args, std::int64_t* axis, Diagnostics* d) {
  // ONNX Softmax (opset 13) defaults to the last axis.
  if (!read_int(kSoftmax, args, "axis", -1, axis, d)) return false;
  const auto rank = static_cast<std::int64_t>(args.inputs[0]->sizes.size());
  if (*axis < -rank || *axis >= rank) {
    report(d, "softmax: attribute 'axis' %lld is out of range for rank %lld",
           static_cast<long long>(*axis), static_cast<long long>(rank));
    return false;
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_batch_norm(const KernelArgs& args, Diagnostics* d) {
  float eps = 0.0f;
  if (!check_signature(kBatchNorm, args, 5, 5, d)) return kRejected;
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  if (x.size() < 2) {
    report(d, "batch_norm: input %s must have rank >= 2", shape_text(x).text);
    return kRejected;
  }
  const std::int64_t channels[] = {x[1]};
  constexpr const char* kParams[] = {"mean", "var", "weight", "bias"};
  for (std::size_t i = 0; i < 4; ++i) {
    if (!check_input_shape(kBatchNorm, args, i + 1, kParams[i], channels, d)) {
      return kRejected;
    }
  }
  if (!batch_norm_eps(args, &eps, d) || !check_output_shape(kBatchNorm, args, x, d) ||
      !check_no_overlap(kBatchNorm, args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_batch_norm(const KernelArgs& args, Span<std::uint8_t>) {
  float eps = 0.0f;
  if (!batch_norm_eps(args, &eps, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::batch_norm(x.float_data(), batch_norm_shape(x), args.inputs[1]->float_data(),
                             args.inputs[2]->float_data(), args.inputs[3]->float_data(),
                             args.inputs[4]->float_data(), eps, args.outputs[0]->float_data());
}

Result<std::size_t> prepare_softmax(const KernelArgs& args, Diagnostics* d) {
  std::int64_t axis = 0;
  if (!check_signature(kSoftmax, args, 1, 1, d)) return kRejected;
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  if (x.empty() || x.size() > kernels::kMaxDims) {
    report(d, "softmax: input %s must have rank 1 to %zu", shape_text(x).text, kernels::kMaxDims);
    return kRejected;
  }
  if (!softmax_axis(args, &axis, d) || !check_output_shape(kSoftmax, args, x, d) ||
      !check_no_overlap(kSoftmax, args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_softmax(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t axis = 0;
  if (!softmax_axis(args, &axis, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::softmax(x.float_data(), x.sizes, axis, args.outputs[0]->float_data());
}

}  // namespace glassbox::runtime::portable

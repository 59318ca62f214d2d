// linear, matmul.

#include "glassbox/runtime/kernels/gemm.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kLinear = "linear";
constexpr const char* kMatmul = "matmul";

// nn.Linear on x[..., k]: every leading dim is a row of the GEMM.
struct LinearSizes {
  std::int64_t m = 1;
  std::int64_t k = 0;
  std::int64_t n = 0;
};

LinearSizes linear_sizes(const KernelArgs& args) {
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  LinearSizes s;
  for (std::size_t i = 0; i + 1 < x.size(); ++i) s.m *= x[i];
  s.k = x.back();
  s.n = args.inputs[1]->sizes[0];
  return s;
}

}  // namespace

Result<std::size_t> prepare_linear(const KernelArgs& args, Diagnostics* d) {
  if (!check_signature(kLinear, args, 2, 3, d) || !check_rank(kLinear, args, 1, "weight", 2, d)) {
    return kRejected;
  }
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  const Span<const std::int64_t> w = args.inputs[1]->sizes;
  if (x.empty() || x.size() > kernels::kMaxDims) {
    report(d, "linear: input %s must have rank 1 to %zu", shape_text(x).text, kernels::kMaxDims);
    return kRejected;
  }
  if (w[1] != x.back()) {
    report(d, "linear: weight %s does not match input %s (in_features %lld)", shape_text(w).text,
           shape_text(x).text, static_cast<long long>(x.back()));
    return kRejected;
  }
  const std::int64_t bias_shape[] = {w[0]};
  if (args.inputs.size() == 3 && !check_input_shape(kLinear, args, 2, "bias", bias_shape, d)) {
    return kRejected;
  }
  kernels::Dims out = *kernels::make_dims(x);  // Rank and sizes checked above.
  out.sizes[out.rank - 1] = w[0];
  if (!check_output_shape(kLinear, args, out.span(), d) ||
      !check_no_overlap(kLinear, args, InPlace::kNever, d)) {
    return kRejected;
  }
  const LinearSizes s = linear_sizes(args);
  return kernels::linear_scratch_bytes(s.m, s.n, s.k);
}

Error run_linear(const KernelArgs& args, Span<std::uint8_t> scratch) {
  const LinearSizes s = linear_sizes(args);
  const float* bias = args.inputs.size() == 3 ? args.inputs[2]->float_data() : nullptr;
  return kernels::linear(args.inputs[0]->float_data(), s.m, s.k, args.inputs[1]->float_data(), s.n,
                         bias, args.outputs[0]->float_data(), float_scratch(scratch));
}

Result<std::size_t> prepare_matmul(const KernelArgs& args, Diagnostics* d) {
  if (!check_signature(kMatmul, args, 2, 2, d)) return kRejected;
  const Span<const std::int64_t> a = args.inputs[0]->sizes;
  const Span<const std::int64_t> b = args.inputs[1]->sizes;
  Result<kernels::Dims> out = kernels::matmul_output_shape(a, b);
  if (!out.ok()) {
    report(d, "matmul: cannot multiply %s by %s (%s)", shape_text(a).text, shape_text(b).text,
           out.message());
    return kRejected;
  }
  if (!check_output_shape(kMatmul, args, out->span(), d) ||
      !check_no_overlap(kMatmul, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return kernels::matmul_scratch_bytes(a, b);
}

Error run_matmul(const KernelArgs& args, Span<std::uint8_t> scratch) {
  const Tensor& a = *args.inputs[0];
  const Tensor& b = *args.inputs[1];
  return kernels::matmul(a.float_data(), a.sizes, b.float_data(), b.sizes,
                         args.outputs[0]->float_data(), float_scratch(scratch));
}

}  // namespace glassbox::runtime::portable

// Unary relu, clamp, sigmoid, hardswish, hardsigmoid, tan, sin, cos, and
// the checker and runner every plain float unary op shares. (The
// broadcasting ops are in portable_ops_math.cc.)

#include <cmath>
#include <limits>

#include "glassbox/runtime/kernels/elementwise.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();
}  // namespace

// One input, one output of the same shape; in place is fine.
Result<std::size_t> prepare_unary(const char* op, const KernelArgs& args, Diagnostics* d) {
  if (!check_signature(op, args, 1, 1, d) ||
      !check_output_shape(op, args, args.inputs[0]->sizes, d) ||
      !check_no_overlap(op, args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_unary(UnaryKernel kernel, const KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  return kernel(x.float_data(), args.outputs[0]->float_data(), x.numel());
}

namespace {

struct ClampBounds {
  float min = -kInf;
  float max = kInf;
};

// A missing bound means unbounded on that side (ONNX Clip).
bool clamp_bounds(const KernelArgs& args, ClampBounds* b, Diagnostics* d) {
  if (!read_float("clamp", args, "min", -kInf, &b->min, d) ||
      !read_float("clamp", args, "max", kInf, &b->max, d)) {
    return false;
  }
  if (!(b->min <= b->max)) {  // Also catches NaN.
    report(d, "clamp: attributes min %g and max %g must satisfy min <= max",
           static_cast<double>(b->min), static_cast<double>(b->max));
    return false;
  }
  return true;
}

struct HardSigmoidParams {
  float alpha = 0.2f;  // ONNX HardSigmoid's defaults.
  float beta = 0.5f;
};

bool hardsigmoid_params(const KernelArgs& args, HardSigmoidParams* p, Diagnostics* d) {
  if (!read_float("hardsigmoid", args, "alpha", 0.2, &p->alpha, d) ||
      !read_float("hardsigmoid", args, "beta", 0.5, &p->beta, d)) {
    return false;
  }
  if (!std::isfinite(p->alpha) || !std::isfinite(p->beta)) {
    report(d, "hardsigmoid: attributes alpha %g and beta %g must be finite",
           static_cast<double>(p->alpha), static_cast<double>(p->beta));
    return false;
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_clamp(const KernelArgs& args, Diagnostics* d) {
  ClampBounds b;
  Result<std::size_t> r = prepare_unary("clamp", args, d);
  if (!r.ok() || !clamp_bounds(args, &b, d)) return kRejected;
  return r;
}
Error run_clamp(const KernelArgs& args, Span<std::uint8_t>) {
  ClampBounds b;
  if (!clamp_bounds(args, &b, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::clamp(x.float_data(), args.outputs[0]->float_data(), x.numel(), b.min, b.max);
}

Result<std::size_t> prepare_hardsigmoid(const KernelArgs& args, Diagnostics* d) {
  HardSigmoidParams p;
  Result<std::size_t> r = prepare_unary("hardsigmoid", args, d);
  if (!r.ok() || !hardsigmoid_params(args, &p, d)) return kRejected;
  return r;
}
Error run_hardsigmoid(const KernelArgs& args, Span<std::uint8_t>) {
  HardSigmoidParams p;
  if (!hardsigmoid_params(args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::hardsigmoid(x.float_data(), args.outputs[0]->float_data(), x.numel(), p.alpha,
                              p.beta);
}

}  // namespace glassbox::runtime::portable

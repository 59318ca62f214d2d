// Unary relu, clamp, sigmoid, hardswish, hardsigmoid, tan, sin, cos and
// broadcasting add, sub, mul, div.

#include <cmath>
#include <limits>

#include "glassbox/runtime/kernels/elementwise.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::BinaryOp;
using UnaryKernel = Error (*)(const float*, float*, std::int64_t);

constexpr float kInf = std::numeric_limits<float>::infinity();

// One input, one output of the same shape; in place is fine.
Result<std::size_t> prepare_unary(const char* op, const KernelArgs& args,
                                  Diagnostics* d) {
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

bool hardsigmoid_params(const KernelArgs& args, HardSigmoidParams* p,
                        Diagnostics* d) {
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

Result<std::size_t> prepare_binary(const char* op, const KernelArgs& args,
                                   Diagnostics* d) {
  if (!check_signature(op, args, 2, 2, d)) return kRejected;
  const Span<const std::int64_t> a = args.inputs[0]->sizes;
  const Span<const std::int64_t> b = args.inputs[1]->sizes;
  Result<kernels::Dims> out = kernels::broadcast_shapes(a, b);
  if (!out.ok()) {
    report(d, "%s: shapes %s and %s do not broadcast (%s)", op,
           shape_text(a).text, shape_text(b).text, out.message());
    return kRejected;
  }
  if (!check_output_shape(op, args, out->span(), d) ||
      !check_no_overlap(op, args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_binary(BinaryOp op, const KernelArgs& args) {
  const Tensor& a = *args.inputs[0];
  const Tensor& b = *args.inputs[1];
  return kernels::binary(op, a.float_data(), a.sizes, b.float_data(), b.sizes,
                         args.outputs[0]->float_data());
}

}  // namespace

Result<std::size_t> prepare_relu(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary("relu", args, d);
}
Error run_relu(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kernels::relu, args);
}

Result<std::size_t> prepare_sigmoid(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary("sigmoid", args, d);
}
Error run_sigmoid(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kernels::sigmoid, args);
}

Result<std::size_t> prepare_hardswish(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary("hardswish", args, d);
}
Error run_hardswish(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kernels::hardswish, args);
}

Result<std::size_t> prepare_tan(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary("tan", args, d);
}
Error run_tan(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kernels::tan, args);
}

Result<std::size_t> prepare_sin(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary("sin", args, d);
}
Error run_sin(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kernels::sin, args);
}

Result<std::size_t> prepare_cos(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary("cos", args, d);
}
Error run_cos(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kernels::cos, args);
}

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
  return kernels::clamp(x.float_data(), args.outputs[0]->float_data(),
                        x.numel(), b.min, b.max);
}

Result<std::size_t> prepare_hardsigmoid(const KernelArgs& args,
                                        Diagnostics* d) {
  HardSigmoidParams p;
  Result<std::size_t> r = prepare_unary("hardsigmoid", args, d);
  if (!r.ok() || !hardsigmoid_params(args, &p, d)) return kRejected;
  return r;
}
Error run_hardsigmoid(const KernelArgs& args, Span<std::uint8_t>) {
  HardSigmoidParams p;
  if (!hardsigmoid_params(args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::hardsigmoid(x.float_data(), args.outputs[0]->float_data(),
                              x.numel(), p.alpha, p.beta);
}

Result<std::size_t> prepare_add(const KernelArgs& args, Diagnostics* d) {
  return prepare_binary("add", args, d);
}
Error run_add(const KernelArgs& args, Span<std::uint8_t>) {
  return run_binary(BinaryOp::kAdd, args);
}

Result<std::size_t> prepare_sub(const KernelArgs& args, Diagnostics* d) {
  return prepare_binary("sub", args, d);
}
Error run_sub(const KernelArgs& args, Span<std::uint8_t>) {
  return run_binary(BinaryOp::kSub, args);
}

Result<std::size_t> prepare_mul(const KernelArgs& args, Diagnostics* d) {
  return prepare_binary("mul", args, d);
}
Error run_mul(const KernelArgs& args, Span<std::uint8_t>) {
  return run_binary(BinaryOp::kMul, args);
}

Result<std::size_t> prepare_div(const KernelArgs& args, Diagnostics* d) {
  return prepare_binary("div", args, d);
}
Error run_div(const KernelArgs& args, Span<std::uint8_t>) {
  return run_binary(BinaryOp::kDiv, args);
}

}  // namespace glassbox::runtime::portable

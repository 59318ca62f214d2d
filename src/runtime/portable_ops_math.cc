// The elementwise ops beyond the original set: parameterised activations
// (gelu, leaky_relu, elu, selu), logical_not, the broadcasting family of
// every dtype rule (arithmetic on float or int64, float-only, comparisons,
// logical), where and cast. The plain float unary ops (erf, exp, ...) are
// instances of the unary templates (kernel_registry.cc).

#include <cmath>

#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::ElementwiseOp;

bool read_finite(const char* op, const KernelArgs& args, const char* name, double fallback,
                 float* value, Diagnostics* d) {
  if (!read_float(op, args, name, fallback, value, d)) return false;
  if (std::isfinite(*value)) return true;
  report(d, "%s: attribute '%s' must be finite", op, name);
  return false;
}

// ONNX's defaults; the importer always writes the attributes anyway.
struct Activation {
  float alpha = 0.0f;
  float gamma = 0.0f;
};

bool activation_params(const char* op, const KernelArgs& args, Activation* a, Diagnostics* d) {
  const bool is_selu = op[0] == 's';
  const double alpha_default = op[0] == 'l' ? 0.01 : is_selu ? 1.67326319217681884765625 : 1.0;
  if (!read_finite(op, args, "alpha", alpha_default, &a->alpha, d)) return false;
  return !is_selu || read_finite(op, args, "gamma", 1.05070102214813232421875, &a->gamma, d);
}

constexpr const char* kGeluModes[] = {"none", "tanh"};

bool gelu_is_tanh(const KernelArgs& args, bool* is_tanh, Diagnostics* d) {
  std::size_t mode = 0;
  if (!read_choice("gelu", args, "approximate", kGeluModes, &mode, d)) return false;
  *is_tanh = mode == 1;
  return true;
}

const char* role_of(std::size_t index) {
  static constexpr const char* kNames[] = {"input 0", "input 1", "input 2"};
  return index < 3 ? kNames[index] : "input";
}

// Every input has dtype `t`.
bool inputs_are(const char* op, const KernelArgs& args, ScalarType t, std::size_t first,
                Diagnostics* d) {
  for (std::size_t i = first; i < args.inputs.size(); ++i) {
    if (!check_dtype(op, *args.inputs[i], role_of(i), t, d)) return false;
  }
  return true;
}

// The broadcast output shape of every input from `first` on.
bool check_broadcast_output(const char* op, const KernelArgs& args, std::size_t first,
                            Diagnostics* d) {
  kernels::Dims out;
  out.rank = 0;
  for (std::size_t i = first; i < args.inputs.size(); ++i) {
    const Span<const std::int64_t> s = args.inputs[i]->sizes;
    Result<kernels::Dims> next = kernels::broadcast_shapes(out.span(), s);
    if (!next.ok()) {
      if (args.inputs.size() == 2) {
        report(d, "%s: shapes %s and %s do not broadcast (%s)", op,
               shape_text(args.inputs[0]->sizes).text, shape_text(s).text, next.message());
      } else {
        report(d, "%s: input %zu %s does not broadcast with the inputs before it (%s)", op, i,
               shape_text(s).text, next.message());
      }
      return false;
    }
    out = *next;
  }
  return check_output_shape(op, args, out.span(), d) &&
         check_no_overlap(op, args, InPlace::kSameShape, d);
}

}  // namespace

Result<std::size_t> prepare_gelu(const KernelArgs& args, Diagnostics* d) {
  bool is_tanh = false;
  Result<std::size_t> r = prepare_unary("gelu", args, d);
  if (!r.ok() || !gelu_is_tanh(args, &is_tanh, d)) return kRejected;
  return r;
}
Error run_gelu(const KernelArgs& args, Span<std::uint8_t>) {
  bool is_tanh = false;
  if (!gelu_is_tanh(args, &is_tanh, nullptr)) return Error::kInvalidArgument;
  return run_unary(is_tanh ? kernels::gelu_tanh : kernels::gelu_erf, args);
}

Result<std::size_t> prepare_activation(const char* op, const KernelArgs& args, Diagnostics* d) {
  Activation a;
  Result<std::size_t> r = prepare_unary(op, args, d);
  if (!r.ok() || !activation_params(op, args, &a, d)) return kRejected;
  return r;
}
Error run_activation(const char* op, const KernelArgs& args) {
  Activation a;
  if (!activation_params(op, args, &a, nullptr)) return Error::kInvalidArgument;
  const float* x = args.inputs[0]->float_data();
  float* y = args.outputs[0]->float_data();
  const std::int64_t n = args.inputs[0]->numel();
  switch (op[0]) {
    case 'l': return kernels::leaky_relu(x, y, n, a.alpha);
    case 'e': return kernels::elu(x, y, n, a.alpha);
    default: return kernels::selu(x, y, n, a.alpha, a.gamma);
  }
}

Result<std::size_t> prepare_logical_not(const KernelArgs& args, Diagnostics* d) {
  if (!check_typed_signature("logical_not", args, 1, 1, d) ||
      !inputs_are("logical_not", args, ScalarType::kBool, 0, d) ||
      !check_dtype("logical_not", *args.outputs[0], "output", ScalarType::kBool, d) ||
      !check_output_shape("logical_not", args, args.inputs[0]->sizes, d) ||
      !check_no_overlap("logical_not", args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_logical_not(const KernelArgs& args, Span<std::uint8_t>) {
  const Tensor& x = *args.inputs[0];
  return kernels::logical_not(static_cast<const std::uint8_t*>(x.data),
                              static_cast<std::uint8_t*>(args.outputs[0]->data), x.numel());
}

Result<std::size_t> prepare_broadcast(const BroadcastOp& op, const KernelArgs& args,
                                      Diagnostics* d) {
  if (!check_typed_signature(op.name, args, 2, 2, d)) return kRejected;
  const ScalarType a = args.inputs[0]->dtype;
  bool ok = false;
  ScalarType out = a;
  switch (op.operands) {
    case Operands::kArithmetic: ok = a == ScalarType::kFloat || a == ScalarType::kLong; break;
    case Operands::kFloat: ok = a == ScalarType::kFloat; break;
    case Operands::kCompare:
      ok = a == ScalarType::kFloat || a == ScalarType::kLong;
      out = ScalarType::kBool;
      break;
    case Operands::kLogical: ok = a == ScalarType::kBool; break;
  }
  if (!ok) {
    report(d, "%s: input 0 has dtype %s, which this op does not take", op.name,
           to_string(a).data());
    return kRejected;
  }
  if (op.op == ElementwiseOp::kMod) {
    std::int64_t fmod = 0;
    if (!read_int(op.name, args, "fmod", 0, &fmod, d)) return kRejected;
  }
  if (!inputs_are(op.name, args, a, 1, d) ||
      !check_dtype(op.name, *args.outputs[0], "output", out, d) ||
      !check_broadcast_output(op.name, args, 0, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_broadcast(const BroadcastOp& op, const KernelArgs& args) {
  const Tensor& a = *args.inputs[0];
  const Tensor& b = *args.inputs[1];
  void* out = args.outputs[0]->data;
  ElementwiseOp kind = op.op;
  if (kind == ElementwiseOp::kMod) {
    std::int64_t fmod = 0;
    if (!read_int(op.name, args, "fmod", 0, &fmod, nullptr)) return Error::kInvalidArgument;
    if (fmod != 0) kind = ElementwiseOp::kFmod;
  }
  const bool is_float = a.dtype == ScalarType::kFloat;
  switch (op.operands) {
    case Operands::kArithmetic:
    case Operands::kFloat:
      if (!is_float) {
        return kernels::binary_int64(kind, static_cast<const std::int64_t*>(a.data), a.sizes,
                                     static_cast<const std::int64_t*>(b.data), b.sizes,
                                     static_cast<std::int64_t*>(out));
      }
      // The original four keep their tuned kernel.
      switch (kind) {
        case ElementwiseOp::kAdd:
          return kernels::add(a.float_data(), a.sizes, b.float_data(), b.sizes,
                              static_cast<float*>(out));
        case ElementwiseOp::kSub:
          return kernels::sub(a.float_data(), a.sizes, b.float_data(), b.sizes,
                              static_cast<float*>(out));
        case ElementwiseOp::kMul:
          return kernels::mul(a.float_data(), a.sizes, b.float_data(), b.sizes,
                              static_cast<float*>(out));
        case ElementwiseOp::kDiv:
          return kernels::div(a.float_data(), a.sizes, b.float_data(), b.sizes,
                              static_cast<float*>(out));
        default:
          return kernels::binary_float(kind, a.float_data(), a.sizes, b.float_data(), b.sizes,
                                       static_cast<float*>(out));
      }
    case Operands::kCompare:
      if (is_float) {
        return kernels::compare_float(kind, a.float_data(), a.sizes, b.float_data(), b.sizes,
                                      static_cast<std::uint8_t*>(out));
      }
      return kernels::compare_int64(kind, static_cast<const std::int64_t*>(a.data), a.sizes,
                                    static_cast<const std::int64_t*>(b.data), b.sizes,
                                    static_cast<std::uint8_t*>(out));
    case Operands::kLogical:
      return kernels::logical(kind, static_cast<const std::uint8_t*>(a.data), a.sizes,
                              static_cast<const std::uint8_t*>(b.data), b.sizes,
                              static_cast<std::uint8_t*>(out));
  }
  return Error::kInvalidArgument;
}

Result<std::size_t> prepare_where(const KernelArgs& args, Diagnostics* d) {
  if (!check_typed_signature("where", args, 3, 3, d) ||
      !check_dtype("where", *args.inputs[0], "input 0 (condition)", ScalarType::kBool, d) ||
      !inputs_are("where", args, args.inputs[1]->dtype, 2, d) ||
      !check_dtype("where", *args.outputs[0], "output", args.inputs[1]->dtype, d) ||
      !check_broadcast_output("where", args, 0, d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_where(const KernelArgs& args, Span<std::uint8_t>) {
  const Tensor& c = *args.inputs[0];
  const Tensor& x = *args.inputs[1];
  const Tensor& y = *args.inputs[2];
  return kernels::where(static_cast<const std::uint8_t*>(c.data), c.sizes, x.data, x.sizes, y.data,
                        y.sizes, element_size(x.dtype), args.outputs[0]->data);
}

Result<std::size_t> prepare_cast(const KernelArgs& args, Diagnostics* d) {
  std::int64_t to = 0;
  if (!check_typed_signature("cast", args, 1, 1, d) ||
      !read_int("cast", args, "dtype", -1, &to, d)) {
    return kRejected;
  }
  if (to != static_cast<std::int64_t>(args.outputs[0]->dtype)) {
    report(d, "cast: attribute dtype %lld does not match the output's %s",
           static_cast<long long>(to), to_string(args.outputs[0]->dtype).data());
    return kRejected;
  }
  if (!check_output_shape("cast", args, args.inputs[0]->sizes, d) ||
      !check_no_overlap("cast", args, InPlace::kNever, d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_cast(const KernelArgs& args, Span<std::uint8_t>) {
  const Tensor& x = *args.inputs[0];
  const Tensor& y = *args.outputs[0];
  return kernels::cast(x.data, x.dtype, y.data, y.dtype, x.numel());
}

}  // namespace glassbox::runtime::portable

// flatten, reshape, concat, transpose.

#include <cstring>
#include <new>

#include "glassbox/runtime/kernels/shape_ops.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::ConstTensor;
using kernels::Dims;
using kernels::kMaxDims;

constexpr const char* kFlatten = "flatten";
constexpr const char* kReshape = "reshape";
constexpr const char* kConcat = "concat";
constexpr const char* kTranspose = "transpose";

// Flatten and reshape keep contiguous data in order, in any dtype: the
// output is a copy, or nothing at all when the planner gave both the same
// buffer.
Error run_copy(const KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  const Tensor& y = *args.outputs[0];
  if (Error e = kernels::check_reshape(x.sizes, y.sizes); e != Error::kOk) return e;
  const std::size_t bytes = static_cast<std::size_t>(x.numel()) * element_size(x.dtype);
  if (bytes != 0 && x.data != y.data) std::memmove(y.data, x.data, bytes);
  return Error::kOk;
}

// Flatten, reshape and transpose take any dtype and keep it.
bool check_same_dtype(const char* op, const KernelArgs& args, Diagnostics* d) {
  return check_typed_signature(op, args, 1, 1, d) &&
         check_dtype(op, *args.outputs[0], "output", args.inputs[0]->dtype, d);
}

// Concat's inputs and output share one dtype (any: bytes are moved).
bool check_one_dtype(const char* op, const KernelArgs& args, Diagnostics* d) {
  const ScalarType dtype = args.outputs[0]->dtype;
  for (std::size_t i = 0; i < args.inputs.size(); ++i) {
    if (!check_dtype(op, *args.inputs[i], "an input", dtype, d)) return false;
  }
  return element_size(dtype) != 0;
}

// The "shape" attribute with its one allowed -1 resolved (PyTorch rules: 0
// is a literal size, not ONNX Reshape's "copy this dim").
bool reshape_target(const KernelArgs& args, Dims* out, Diagnostics* d) {
  Span<const std::int64_t> shape;
  if (!read_ints(kReshape, args, "shape", &shape, d)) return false;
  if (shape.size() > kMaxDims) {
    report(d, "reshape: attribute 'shape' %s has rank above %zu", shape_text(shape).text, kMaxDims);
    return false;
  }
  const Tensor& x = *args.inputs[0];
  std::int64_t known = 1;
  std::size_t inferred = shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred == shape.size()) {
      inferred = i;
    } else if (shape[i] < 0 || __builtin_mul_overflow(known, shape[i], &known)) {
      report(d, "reshape: attribute 'shape' %s has a bad dimension", shape_text(shape).text);
      return false;
    }
  }
  const std::int64_t numel = x.numel();
  const bool fits = inferred != shape.size() ? known != 0 && numel % known == 0 : known == numel;
  if (!fits) {
    report(d, "reshape: cannot reshape input %s to attribute 'shape' %s", shape_text(x.sizes).text,
           shape_text(shape).text);
    return false;
  }
  out->rank = shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) out->sizes[i] = shape[i];
  if (inferred != shape.size()) out->sizes[inferred] = numel / known;
  return true;
}

bool concat_axis(const KernelArgs& args, std::int64_t* axis, Diagnostics* d) {
  return read_int(kConcat, args, "axis", 0, axis, d);  // torch.cat's default.
}

// The "perm" attribute; absent means reversing the dims (ONNX Transpose).
bool transpose_perm(const KernelArgs& args, Dims* perm, Diagnostics* d) {
  Span<const std::int64_t> attr;
  if (!read_ints(kTranspose, args, "perm", &attr, d)) return false;
  const std::size_t rank = args.inputs[0]->sizes.size();
  if (!attr.empty()) {
    if (attr.size() > kMaxDims) {
      report(d, "transpose: attribute 'perm' %s has rank above %zu", shape_text(attr).text,
             kMaxDims);
      return false;
    }
    perm->rank = attr.size();
    for (std::size_t i = 0; i < attr.size(); ++i) perm->sizes[i] = attr[i];
    return true;
  }
  perm->rank = rank;
  for (std::size_t i = 0; i < rank; ++i) {
    perm->sizes[i] = static_cast<std::int64_t>(rank - 1 - i);
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_flatten(const KernelArgs& args, Diagnostics* d) {
  std::int64_t start = 0;
  std::int64_t end = -1;
  if (!check_same_dtype(kFlatten, args, d) || !check_rank_limit(kFlatten, args, d) ||
      !read_int(kFlatten, args, "start_dim", 0, &start, d) ||
      !read_int(kFlatten, args, "end_dim", -1, &end, d)) {
    return kRejected;
  }
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  Result<Dims> out = kernels::flatten_shape(x, start, end);
  if (!out.ok()) {
    report(d,
           "flatten: start_dim %lld and end_dim %lld do not fit input %s "
           "(%s)",
           static_cast<long long>(start), static_cast<long long>(end), shape_text(x).text,
           out.message());
    return kRejected;
  }
  if (!check_output_shape(kFlatten, args, out->span(), d) ||
      !check_no_overlap(kFlatten, args, InPlace::kAlways, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_flatten(const KernelArgs& args, Span<std::uint8_t>) { return run_copy(args); }

Result<std::size_t> prepare_reshape(const KernelArgs& args, Diagnostics* d) {
  Dims target;
  if (!check_same_dtype(kReshape, args, d) || !check_rank_limit(kReshape, args, d) ||
      !reshape_target(args, &target, d) || !check_output_shape(kReshape, args, target.span(), d) ||
      !check_no_overlap(kReshape, args, InPlace::kAlways, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_reshape(const KernelArgs& args, Span<std::uint8_t>) { return run_copy(args); }

Result<std::size_t> prepare_concat(const KernelArgs& args, Diagnostics* d) {
  std::int64_t axis = 0;
  if (!check_typed_signature(kConcat, args, 1, static_cast<std::size_t>(-1), d) ||
      !check_rank_limit(kConcat, args, d) || !concat_axis(args, &axis, d) ||
      !check_one_dtype(kConcat, args, d)) {
    return kRejected;
  }
  // Input 0 alone checks the axis against its rank; then folding the
  // inputs pairwise checks any number of them without a table.
  const ConstTensor first{nullptr, args.inputs[0]->sizes};
  Result<Dims> shape = kernels::concat_output_shape({&first, 1}, axis);
  if (!shape.ok()) {
    report(d, "concat: axis %lld does not fit input 0 %s (%s)", static_cast<long long>(axis),
           shape_text(args.inputs[0]->sizes).text, shape.message());
    return kRejected;
  }
  for (std::size_t i = 1; i < args.inputs.size(); ++i) {
    const ConstTensor pair[] = {{nullptr, shape->span()}, {nullptr, args.inputs[i]->sizes}};
    Result<Dims> joined = kernels::concat_output_shape(pair, axis);
    if (!joined.ok()) {
      report(d, "concat: input %zu %s does not join %s along axis %lld (%s)", i,
             shape_text(args.inputs[i]->sizes).text, shape_text(shape->span()).text,
             static_cast<long long>(axis), joined.message());
      return kRejected;
    }
    shape = *joined;
  }
  if (!check_output_shape(kConcat, args, shape->span(), d) ||
      !check_no_overlap(kConcat, args, InPlace::kNever, d)) {
    return kRejected;
  }
  // run() lays the kernel's view of the inputs out in scratch.
  return args.inputs.size() * sizeof(ConstTensor);
}

Error run_concat(const KernelArgs& args, Span<std::uint8_t> scratch) {
  std::int64_t axis = 0;
  if (!concat_axis(args, &axis, nullptr) ||
      scratch.size() < args.inputs.size() * sizeof(ConstTensor)) {
    return Error::kInvalidArgument;
  }
  // Scratch is 64-byte aligned, enough for ConstTensor.
  auto* inputs = reinterpret_cast<ConstTensor*>(scratch.data());
  // Any dtype: the kernel moves bytes, so `data` carries only the address.
  for (std::size_t i = 0; i < args.inputs.size(); ++i) {
    new (inputs + i)
        ConstTensor{static_cast<const float*>(args.inputs[i]->data), args.inputs[i]->sizes};
  }
  return kernels::concat_elements(Span<const ConstTensor>(inputs, args.inputs.size()), axis,
                                  args.outputs[0]->data, element_size(args.outputs[0]->dtype));
}

Result<std::size_t> prepare_transpose(const KernelArgs& args, Diagnostics* d) {
  Dims perm;
  if (!check_same_dtype(kTranspose, args, d) || !check_rank_limit(kTranspose, args, d) ||
      !transpose_perm(args, &perm, d)) {
    return kRejected;
  }
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  Result<Dims> out = kernels::transpose_output_shape(x, perm.span());
  if (!out.ok()) {
    report(d, "transpose: attribute 'perm' %s does not permute input %s (%s)",
           shape_text(perm.span()).text, shape_text(x).text, out.message());
    return kRejected;
  }
  if (!check_output_shape(kTranspose, args, out->span(), d) ||
      !check_no_overlap(kTranspose, args, InPlace::kNever, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_transpose(const KernelArgs& args, Span<std::uint8_t>) {
  Dims perm;
  if (!transpose_perm(args, &perm, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::transpose_elements(x.data, x.sizes, perm.span(), args.outputs[0]->data,
                                     element_size(x.dtype));
}

}  // namespace glassbox::runtime::portable

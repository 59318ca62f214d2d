// shape and full_like: ONNX Shape and ConstantOfShape(Shape(x)) at run
// time, for an x sized by data (its actual sizes, not its bound). Both
// take a dynamic input: prepare runs again before each execution.

#include <algorithm>

#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kShape = "shape";
constexpr const char* kFullLike = "full_like";

bool shape_range(const KernelArgs& args, std::int64_t* start, std::int64_t* end, Diagnostics* d) {
  const auto rank = static_cast<std::int64_t>(args.inputs[0]->sizes.size());
  if (!read_int(kShape, args, "start", 0, start, d) ||
      !read_int(kShape, args, "end", rank, end, d)) {
    return false;
  }
  if (*start < 0 || *start > *end || *end > rank) {
    report(d, "shape: start %lld and end %lld do not fit rank %lld", static_cast<long long>(*start),
           static_cast<long long>(*end), static_cast<long long>(rank));
    return false;
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_shape(const KernelArgs& args, Diagnostics* d) {
  std::int64_t start = 0, end = 0;
  if (!check_typed_signature(kShape, args, 1, 1, d) ||
      !check_dtype(kShape, *args.outputs[0], "output", ScalarType::kLong, d) ||
      !shape_range(args, &start, &end, d)) {
    return kRejected;
  }
  const std::int64_t count[] = {end - start};
  if (!check_output_shape(kShape, args, count, d)) return kRejected;
  return std::size_t{0};
}

Error run_shape(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t start = 0, end = 0;
  if (!shape_range(args, &start, &end, nullptr)) return Error::kInvalidArgument;
  const Span<const std::int64_t> sizes = args.inputs[0]->sizes;
  auto* out = static_cast<std::int64_t*>(args.outputs[0]->data);
  for (auto d = static_cast<std::size_t>(start); d < static_cast<std::size_t>(end); ++d) {
    *out++ = sizes[d];
  }
  return Error::kOk;
}

Result<std::size_t> prepare_full_like(const KernelArgs& args, Diagnostics* d) {
  std::int64_t dtype = -1;
  float value = 0;
  if (!check_typed_signature(kFullLike, args, 1, 1, d) ||
      !read_int(kFullLike, args, "dtype", -1, &dtype, d) ||
      !read_float(kFullLike, args, "value", 0.0, &value, d)) {
    return kRejected;
  }
  const ScalarType out = args.outputs[0]->dtype;
  if (dtype != static_cast<std::int64_t>(out) ||
      (out != ScalarType::kFloat && out != ScalarType::kLong && out != ScalarType::kBool)) {
    report(d, "full_like: attribute dtype %lld must be the output's, FLOAT, LONG or BOOL",
           static_cast<long long>(dtype));
    return kRejected;
  }
  if (!check_output_shape(kFullLike, args, args.inputs[0]->sizes, d)) return kRejected;
  return std::size_t{0};
}

Error run_full_like(const KernelArgs& args, Span<std::uint8_t>) {
  float value = 0;
  if (!read_float(kFullLike, args, "value", 0.0, &value, nullptr)) return Error::kInvalidArgument;
  Tensor& y = *args.outputs[0];
  const std::int64_t n = y.numel();
  switch (y.dtype) {
    case ScalarType::kFloat: std::fill_n(static_cast<float*>(y.data), n, value); break;
    case ScalarType::kLong:
      std::fill_n(static_cast<std::int64_t*>(y.data), n, static_cast<std::int64_t>(value));
      break;
    case ScalarType::kBool:
      std::fill_n(static_cast<std::uint8_t*>(y.data), n, value != 0.0f ? 1 : 0);
      break;
    default: return Error::kInvalidArgument;
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::portable

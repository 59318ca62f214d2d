// cumsum (ONNX CumSum): argument checks around kernels/cumsum.h.

#include "glassbox/runtime/kernels/cumsum.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kCumsum = "cumsum";

struct CumsumArgs {
  std::int64_t axis = 0;  // normalised: 0 <= axis < rank
  std::int64_t exclusive = 0;
  std::int64_t reverse = 0;
};

bool read_cumsum(const KernelArgs& args, CumsumArgs* c, Diagnostics* d) {
  if (!read_int(kCumsum, args, "axis", 0, &c->axis, d) ||
      !read_int(kCumsum, args, "exclusive", 0, &c->exclusive, d) ||
      !read_int(kCumsum, args, "reverse", 0, &c->reverse, d)) {
    return false;
  }
  const auto rank = static_cast<std::int64_t>(args.inputs[0]->sizes.size());
  if (rank == 0 || c->axis < -rank || c->axis >= rank) {
    report(d, "cumsum: attribute 'axis' %lld is out of range for rank %lld",
           static_cast<long long>(c->axis), static_cast<long long>(rank));
    return false;
  }
  if (c->axis < 0) c->axis += rank;
  return true;
}

}  // namespace

Result<std::size_t> prepare_cumsum(const KernelArgs& args, Diagnostics* d) {
  CumsumArgs c;
  if (!check_typed_signature(kCumsum, args, 1, 1, d)) return kRejected;
  const Tensor& x = *args.inputs[0];
  if (x.dtype != ScalarType::kFloat && x.dtype != ScalarType::kLong) {
    report(d, "cumsum: input 0 has dtype %s, expected FLOAT or LONG", to_string(x.dtype).data());
    return kRejected;
  }
  if (!check_dtype(kCumsum, *args.outputs[0], "output", x.dtype, d) || !read_cumsum(args, &c, d) ||
      !check_output_shape(kCumsum, args, x.sizes, d) ||
      !check_no_overlap(kCumsum, args, InPlace::kSameShape, d)) {
    return kRejected;
  }
  return std::size_t{0};
}

Error run_cumsum(const KernelArgs& args, Span<std::uint8_t>) {
  CumsumArgs c;
  if (!read_cumsum(args, &c, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  Tensor& y = *args.outputs[0];
  if (x.dtype == ScalarType::kLong) {
    return kernels::cumsum(static_cast<const std::int64_t*>(x.data), x.sizes, c.axis,
                           c.exclusive != 0, c.reverse != 0, static_cast<std::int64_t*>(y.data));
  }
  return kernels::cumsum(x.float_data(), x.sizes, c.axis, c.exclusive != 0, c.reverse != 0,
                         y.float_data());
}

}  // namespace glassbox::runtime::portable

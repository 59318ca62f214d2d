// unique (ONNX Unique): argument checks around kernels/unique.h. Outputs 0
// (Y), 1 (indices) and 3 (counts) are dynamic: the kernel finds how many
// distinct elements or slices there are and resizes them at each execution;
// output 2 (inverse_indices) has one entry per element or slice, static.

#include <limits>

#include "glassbox/runtime/kernels/unique.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kUnique = "unique";
// "axis" absent: unique elements of x flattened. Integer attributes stay
// within +-2^31 (aot/ops.cc), so no axis given collides with it.
constexpr std::int64_t kNoAxis = std::numeric_limits<std::int64_t>::min();
// Y's sizes are built on the stack at run time.
constexpr std::size_t kMaxRank = 8;

struct UniqueArgs {
  bool sorted = true;
  std::int64_t axis = -1;  // normalised; -1: flattened
  kernels::UniqueShape view;
};

bool read_unique(const KernelArgs& args, UniqueArgs* u, Diagnostics* d) {
  std::int64_t sorted = 1, axis = kNoAxis;
  if (!read_int(kUnique, args, "sorted", 1, &sorted, d) ||
      !read_int(kUnique, args, "axis", kNoAxis, &axis, d)) {
    return false;
  }
  const Tensor& x = *args.inputs[0];
  const auto rank = static_cast<std::int64_t>(x.sizes.size());
  if (axis != kNoAxis && (axis < -rank || axis >= rank)) {
    report(d, "unique: attribute 'axis' %lld is out of range for rank %lld",
           static_cast<long long>(axis), static_cast<long long>(rank));
    return false;
  }
  if (sorted != 0 && sorted != 1) {
    report(d, "unique: attribute 'sorted' must be 0 or 1");
    return false;
  }
  u->sorted = sorted == 1;
  u->axis = axis == kNoAxis ? -1 : (axis < 0 ? axis + rank : axis);
  u->view = {1, x.numel(), 1};
  if (u->axis >= 0) {
    u->view.length = x.sizes[static_cast<std::size_t>(u->axis)];
    for (std::int64_t dim = 0; dim < rank; ++dim) {
      const std::int64_t size = x.sizes[static_cast<std::size_t>(dim)];
      if (dim < u->axis) u->view.outer *= size;
      if (dim > u->axis) u->view.inner *= size;
    }
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_unique(const KernelArgs& args, Diagnostics* d) {
  if (args.inputs.size() != 1 || args.outputs.size() != 4) {
    report(d, "unique: expects 1 input and 4 outputs, got %zu and %zu", args.inputs.size(),
           args.outputs.size());
    return kRejected;
  }
  const Tensor& x = *args.inputs[0];
  if ((x.dtype != ScalarType::kFloat && x.dtype != ScalarType::kLong) || x.is_dynamic() ||
      x.nbytes < static_cast<std::size_t>(x.numel()) * element_size(x.dtype) ||
      (x.numel() > 0 && x.data == nullptr)) {
    report(d, "unique: input 0 must be a static FLOAT or LONG tensor with bytes for its elements");
    return kRejected;
  }
  if (x.sizes.size() > kMaxRank) {
    report(d, "unique: input 0 has rank %zu; at most %zu is supported", x.sizes.size(), kMaxRank);
    return kRejected;
  }
  UniqueArgs u;
  if (!read_unique(args, &u, d)) return kRejected;
  // Each output's bound (the most distinct elements or slices: all of
  // them), its dtype and whether it is sized by data.
  const std::int64_t length[] = {u.view.length};
  const std::int64_t flat[] = {x.numel()};
  const Span<const std::int64_t> y_bound = u.axis >= 0 ? x.sizes : Span<const std::int64_t>(flat);
  const struct {
    Span<const std::int64_t> sizes;
    ScalarType dtype;
    bool dynamic;
  } want[] = {{y_bound, x.dtype, true},
              {length, ScalarType::kLong, true},
              {length, ScalarType::kLong, false},
              {length, ScalarType::kLong, true}};
  for (std::size_t o = 0; o < 4; ++o) {
    const Tensor& out = *args.outputs[o];
    const Span<const std::int64_t> sizes = out.is_dynamic() ? out.bound : out.sizes;
    bool same = out.dtype == want[o].dtype && out.is_dynamic() == want[o].dynamic &&
                sizes.size() == want[o].sizes.size();
    for (std::size_t i = 0; same && i < sizes.size(); ++i) same = sizes[i] == want[o].sizes[i];
    std::size_t bytes = element_size(out.dtype);
    for (std::int64_t s : sizes) bytes *= static_cast<std::size_t>(s);
    const bool has_data = bytes == 0 || out.data != nullptr;
    if (!same || !has_data || (!out.is_dynamic() && out.nbytes < bytes)) {
      report(d, "unique: output %zu must be %s %s of sizes %s", o,
             want[o].dynamic ? "a dynamic" : "a static", to_string(want[o].dtype).data(),
             shape_text(want[o].sizes).text);
      return kRejected;
    }
  }
  if (!check_no_overlap(kUnique, args, InPlace::kNever, d)) return kRejected;
  return static_cast<std::size_t>(kernels::unique_scratch_entries(u.view.length)) *
         sizeof(std::int64_t);
}

Error run_unique(const KernelArgs& args, Span<std::uint8_t> scratch) {
  UniqueArgs u;
  if (!read_unique(args, &u, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  Tensor& y = *args.outputs[0];
  auto* indices = static_cast<std::int64_t*>(args.outputs[1]->data);
  auto* inverse = static_cast<std::int64_t*>(args.outputs[2]->data);
  auto* counts = static_cast<std::int64_t*>(args.outputs[3]->data);
  const Span<std::int64_t> work(reinterpret_cast<std::int64_t*>(scratch.data()),
                                scratch.size() / sizeof(std::int64_t));
  std::int64_t count = 0;
  const Error e = x.dtype == ScalarType::kLong
                      ? kernels::unique(static_cast<const std::int64_t*>(x.data), u.view, u.sorted,
                                        static_cast<std::int64_t*>(y.data), indices, inverse,
                                        counts, work, &count)
                      : kernels::unique(x.float_data(), u.view, u.sorted, y.float_data(), indices,
                                        inverse, counts, work, &count);
  if (e != Error::kOk) return e;
  // Y keeps x's shape with the axis dim the count (or is the count alone).
  std::int64_t y_sizes[kMaxRank] = {count};
  std::size_t y_rank = 1;
  if (u.axis >= 0) {
    y_rank = x.sizes.size();
    for (std::size_t i = 0; i < y_rank; ++i) {
      y_sizes[i] = static_cast<std::int64_t>(i) == u.axis ? count : x.sizes[i];
    }
  }
  const std::int64_t per_unique[] = {count};
  if (y.resize(Span<const std::int64_t>(y_sizes, y_rank)) != Error::kOk ||
      args.outputs[1]->resize(per_unique) != Error::kOk ||
      args.outputs[3]->resize(per_unique) != Error::kOk) {
    return Error::kInvalidArgument;
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::portable

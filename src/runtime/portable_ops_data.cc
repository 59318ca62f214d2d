// Data movement of any dtype (pad, expand, tile, slice, gather,
// gather_elements, scatter_nd, depth_to_space, space_to_depth) and the
// float-only resize and conv_transpose2d.

#include <algorithm>
#include <cmath>

#include "glassbox/runtime/kernels/conv_transpose.h"
#include "glassbox/runtime/kernels/data_movement.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

using kernels::Dims;
using kernels::kMaxDims;

std::size_t item_size(const Tensor& t) { return element_size(t.dtype); }

// One input of any dtype (plus index inputs checked by the op), an output of
// the same dtype, rank within the kernels' limit.
bool check_moving(const char* op, const KernelArgs& args, std::size_t inputs, Diagnostics* d) {
  if (!check_typed_signature(op, args, inputs, inputs, d) ||
      !check_dtype(op, *args.outputs[0], "output", args.inputs[0]->dtype, d) ||
      !check_no_overlap(op, args, InPlace::kNever, d)) {
    return false;
  }
  return check_rank_limit(op, args, d);
}

bool check_shape_result(const char* op, const KernelArgs& args, const Result<Dims>& out,
                        Diagnostics* d) {
  if (!out.ok()) {
    report(d, "%s: %s", op, out.message());
    return false;
  }
  return check_output_shape(op, args, out->span(), d);
}

// ---- pad

constexpr const char* kPadModes[] = {"constant", "reflect", "edge"};

struct PadParams {
  Span<const std::int64_t> begin;
  Span<const std::int64_t> end;
  kernels::PadMode mode = kernels::PadMode::kConstant;
  float value = 0;
};

bool pad_params(const KernelArgs& args, PadParams* p, Diagnostics* d) {
  Span<const std::int64_t> pads;
  std::size_t mode = 0;
  if (!read_ints("pad", args, "pads", &pads, d) ||
      !read_choice("pad", args, "mode", kPadModes, &mode, d) ||
      !read_float("pad", args, "value", 0.0, &p->value, d)) {
    return false;
  }
  const std::size_t rank = args.inputs[0]->sizes.size();
  if (pads.size() != 2 * rank) {
    report(d, "pad: attribute 'pads' needs %zu entries, got %zu", 2 * rank, pads.size());
    return false;
  }
  p->begin = Span<const std::int64_t>(pads.data(), rank);
  p->end = Span<const std::int64_t>(pads.data() + rank, rank);
  p->mode = static_cast<kernels::PadMode>(mode);
  return true;
}

// The padding value in the tensor's own dtype.
union PadValue {
  float f;
  std::int64_t l;
  std::int32_t i;
  std::uint8_t b;
};

PadValue pad_value(ScalarType t, float v) {
  PadValue out{};
  switch (t) {
    case ScalarType::kLong: out.l = static_cast<std::int64_t>(v); break;
    case ScalarType::kInt: out.i = static_cast<std::int32_t>(v); break;
    case ScalarType::kBool: out.b = v != 0 ? 1 : 0; break;
    // Quantized tensors pad with a value in their own domain (the importer
    // passes the zero point for a quantized zero).
    case ScalarType::kChar:
      out.b = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(v, -128.0f, 127.0f)));
      break;
    case ScalarType::kByte: out.b = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f)); break;
    default: out.f = v; break;
  }
  return out;
}

}  // namespace

Result<std::size_t> prepare_pad(const KernelArgs& args, Diagnostics* d) {
  PadParams p;
  if (!check_moving("pad", args, 1, d) || !pad_params(args, &p, d) ||
      !check_shape_result("pad", args,
                          kernels::pad_output_shape(args.inputs[0]->sizes, p.begin, p.end), d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_pad(const KernelArgs& args, Span<std::uint8_t>) {
  PadParams p;
  if (!pad_params(args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const PadValue value = pad_value(x.dtype, p.value);
  return kernels::pad(x.data, x.sizes, item_size(x), p.begin, p.end, p.mode, &value,
                      args.outputs[0]->data);
}

Result<std::size_t> prepare_expand(const KernelArgs& args, Diagnostics* d) {
  Span<const std::int64_t> shape;
  if (!check_moving("expand", args, 1, d) || !read_ints("expand", args, "shape", &shape, d) ||
      !check_output_shape("expand", args, shape, d)) {
    return kRejected;
  }
  Result<Dims> b = kernels::broadcast_shapes(args.inputs[0]->sizes, shape);
  if (!b.ok() || !check_output_shape("expand", args, b->span(), d)) {
    report(d, "expand: input %s does not broadcast to %s", shape_text(args.inputs[0]->sizes).text,
           shape_text(shape).text);
    return kRejected;
  }
  return std::size_t{0};
}
Error run_expand(const KernelArgs& args, Span<std::uint8_t>) {
  const Tensor& x = *args.inputs[0];
  const Tensor& y = *args.outputs[0];
  return kernels::expand(x.data, x.sizes, item_size(x), y.sizes, y.data);
}

Result<std::size_t> prepare_tile(const KernelArgs& args, Diagnostics* d) {
  Span<const std::int64_t> repeats;
  if (!check_moving("tile", args, 1, d) || !read_ints("tile", args, "repeats", &repeats, d) ||
      !check_shape_result("tile", args, kernels::tile_output_shape(args.inputs[0]->sizes, repeats),
                          d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_tile(const KernelArgs& args, Span<std::uint8_t>) {
  Span<const std::int64_t> repeats;
  if (!read_ints("tile", args, "repeats", &repeats, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::tile(x.data, x.sizes, item_size(x), repeats, args.outputs[0]->data);
}

namespace {

struct SliceParams {
  Span<const std::int64_t> starts;
  Span<const std::int64_t> steps;
};

bool slice_params(const KernelArgs& args, SliceParams* p, Diagnostics* d) {
  Span<const std::int64_t> shape;
  if (!read_ints("slice", args, "starts", &p->starts, d) ||
      !read_ints("slice", args, "steps", &p->steps, d) ||
      !read_ints("slice", args, "shape", &shape, d)) {
    return false;
  }
  const std::size_t rank = args.inputs[0]->sizes.size();
  if (p->starts.size() != rank || p->steps.size() != rank) {
    report(d, "slice: starts and steps need %zu entries", rank);
    return false;
  }
  if (!args.inputs[0]->is_dynamic()) return check_output_shape("slice", args, shape, d);
  // An input sized by data: each dim keeps what is left of it from the
  // start, at most the count the attribute gives (the count at the bound:
  // a whole dim, or a cap like [:100]).
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  if (shape.size() != rank || rank > kernels::kMaxDims) {
    report(d, "slice: attribute 'shape' needs %zu entries", rank);
    return false;
  }
  std::int64_t sizes[kernels::kMaxDims];
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t step = p->steps[i];
    if (step <= 0 && x[i] != args.inputs[0]->bound[i]) {
      report(d, "slice: a reversed slice of dim %zu, whose size depends on data", i);
      return false;
    }
    const std::int64_t left =
        step > 0 ? std::max<std::int64_t>(0, (x[i] - p->starts[i] + step - 1) / step) : shape[i];
    sizes[i] = std::min(shape[i], left);
  }
  return check_output_shape("slice", args, Span<const std::int64_t>(sizes, rank), d);
}

}  // namespace

Result<std::size_t> prepare_slice(const KernelArgs& args, Diagnostics* d) {
  SliceParams p;
  if (!check_moving("slice", args, 1, d) || !slice_params(args, &p, d)) return kRejected;
  // Every index the kernel will read, checked once here.
  const Span<const std::int64_t> x = args.inputs[0]->sizes;
  const Span<const std::int64_t> y = args.outputs[0]->sizes;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (y[i] == 0) continue;
    std::int64_t span = 0;
    std::int64_t last = 0;
    if (p.steps[i] == 0 || __builtin_mul_overflow(y[i] - 1, p.steps[i], &span) ||
        __builtin_add_overflow(p.starts[i], span, &last) || p.starts[i] < 0 ||
        p.starts[i] >= x[i] || last < 0 || last >= x[i]) {
      report(d, "slice: dim %zu reads outside the input %s", i, shape_text(x).text);
      return kRejected;
    }
  }
  return std::size_t{0};
}
Error run_slice(const KernelArgs& args, Span<std::uint8_t>) {
  SliceParams p;
  if (!slice_params(args, &p, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& y = *args.outputs[0];
  return kernels::slice(x.data, x.sizes, item_size(x), p.starts, p.steps, y.sizes, y.data);
}

namespace {

bool gather_params(const char* op, const KernelArgs& args, std::int64_t* axis, Diagnostics* d) {
  if (!check_moving(op, args, 2, d) ||
      !check_dtype(op, *args.inputs[1], "input 1 (indices)", ScalarType::kLong, d) ||
      !read_int(op, args, "axis", 0, axis, d)) {
    return false;
  }
  const auto rank = static_cast<std::int64_t>(args.inputs[0]->sizes.size());
  if (*axis < -rank || *axis >= rank) {
    report(d, "%s: axis %lld out of range for rank %lld", op, static_cast<long long>(*axis),
           static_cast<long long>(rank));
    return false;
  }
  if (*axis < 0) *axis += rank;
  return true;
}

}  // namespace

Result<std::size_t> prepare_gather(const KernelArgs& args, Diagnostics* d) {
  std::int64_t axis = 0;
  if (!gather_params("gather", args, &axis, d) ||
      !check_shape_result(
          "gather", args,
          kernels::gather_output_shape(args.inputs[0]->sizes, args.inputs[1]->sizes, axis), d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_gather(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t axis = 0;
  if (!gather_params("gather", args, &axis, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& i = *args.inputs[1];
  return kernels::gather(x.data, x.sizes, item_size(x), static_cast<const std::int64_t*>(i.data),
                         i.sizes, axis, args.outputs[0]->data);
}

Result<std::size_t> prepare_gather_elements(const KernelArgs& args, Diagnostics* d) {
  std::int64_t axis = 0;
  if (!gather_params("gather_elements", args, &axis, d) ||
      !check_output_shape("gather_elements", args, args.inputs[1]->sizes, d)) {
    return kRejected;
  }
  if (args.inputs[1]->sizes.size() != args.inputs[0]->sizes.size()) {
    report(d, "gather_elements: indices must have the data's rank");
    return kRejected;
  }
  return std::size_t{0};
}
Error run_gather_elements(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t axis = 0;
  if (!gather_params("gather_elements", args, &axis, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& i = *args.inputs[1];
  return kernels::gather_elements(x.data, x.sizes, item_size(x),
                                  static_cast<const std::int64_t*>(i.data), i.sizes, axis,
                                  args.outputs[0]->data);
}

namespace {

constexpr const char* kReductions[] = {"none", "add", "mul"};

bool scatter_params(const KernelArgs& args, kernels::ScatterReduction* r, Diagnostics* d) {
  std::size_t index = 0;
  if (!read_choice("scatter_nd", args, "reduction", kReductions, &index, d)) return false;
  *r = static_cast<kernels::ScatterReduction>(index);
  if (*r != kernels::ScatterReduction::kNone && args.inputs[0]->dtype != ScalarType::kFloat) {
    report(d, "scatter_nd: reductions need float data");
    return false;
  }
  return true;
}

}  // namespace

Result<std::size_t> prepare_scatter_nd(const KernelArgs& args, Diagnostics* d) {
  kernels::ScatterReduction r{};
  if (!check_moving("scatter_nd", args, 3, d) ||
      !check_dtype("scatter_nd", *args.inputs[1], "input 1 (indices)", ScalarType::kLong, d) ||
      !check_dtype("scatter_nd", *args.inputs[2], "input 2 (updates)", args.inputs[0]->dtype, d) ||
      !scatter_params(args, &r, d) ||
      !check_output_shape("scatter_nd", args, args.inputs[0]->sizes, d)) {
    return kRejected;
  }
  return std::size_t{0};
}
Error run_scatter_nd(const KernelArgs& args, Span<std::uint8_t>) {
  kernels::ScatterReduction r{};
  if (!scatter_params(args, &r, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  const Tensor& i = *args.inputs[1];
  const Tensor& u = *args.inputs[2];
  return kernels::scatter_nd(x.data, x.sizes, item_size(x),
                             static_cast<const std::int64_t*>(i.data), i.sizes, u.data, u.sizes, r,
                             x.dtype == ScalarType::kFloat, args.outputs[0]->data);
}

namespace {

constexpr const char* kResizeModes[] = {"nearest", "linear"};
constexpr const char* kTransforms[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                       "asymmetric", "tf_half_pixel_for_nn"};
constexpr const char* kRoundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

struct ResizeParams {
  kernels::ResizeMode mode{};
  kernels::CoordinateTransform transform{};
  kernels::NearestRounding rounding{};
  float scales[2] = {0, 0};  // 0: output / input
};

bool resize_params(const KernelArgs& args, ResizeParams* p, Diagnostics* d) {
  std::size_t mode = 0;
  std::size_t transform = 0;
  std::size_t rounding = 0;
  if (!read_choice("resize", args, "mode", kResizeModes, &mode, d) ||
      !read_choice("resize", args, "coordinate_transformation_mode", kTransforms, &transform, d) ||
      !read_choice("resize", args, "nearest_mode", kRoundings, &rounding, d) ||
      !read_float("resize", args, "scale_h", 0.0, &p->scales[0], d) ||
      !read_float("resize", args, "scale_w", 0.0, &p->scales[1], d)) {
    return false;
  }
  if ((p->scales[0] == 0) != (p->scales[1] == 0) || !(p->scales[0] >= 0) || !(p->scales[1] >= 0) ||
      !std::isfinite(p->scales[0]) || !std::isfinite(p->scales[1])) {
    report(d, "resize: scale_h and scale_w must both be given and > 0, or neither");
    return false;
  }
  p->mode = static_cast<kernels::ResizeMode>(mode);
  p->transform = static_cast<kernels::CoordinateTransform>(transform);
  p->rounding = static_cast<kernels::NearestRounding>(rounding);
  return true;
}

}  // namespace

Result<std::size_t> prepare_resize(const KernelArgs& args, Diagnostics* d) {
  ResizeParams p;
  Span<const std::int64_t> sizes;
  if (!check_signature("resize", args, 1, 1, d) || !check_rank("resize", args, 0, "input", 4, d) ||
      !resize_params(args, &p, d) || !read_ints("resize", args, "sizes", &sizes, d) ||
      !check_output_shape("resize", args, sizes, d) ||
      !check_no_overlap("resize", args, InPlace::kNever, d)) {
    return kRejected;
  }
  const kernels::Shape4 x = shape4(*args.inputs[0]);
  const kernels::Shape4 y = shape4(*args.outputs[0]);
  if (x.n != y.n || x.c != y.c || x.h < 1 || x.w < 1) {
    report(d, "resize: only H and W may change, and the input must not be empty");
    return kRejected;
  }
  return std::size_t{0};
}
Error run_resize(const KernelArgs& args, Span<std::uint8_t>) {
  ResizeParams p;
  if (!resize_params(args, &p, nullptr)) return Error::kInvalidArgument;
  return kernels::resize(args.inputs[0]->float_data(), shape4(*args.inputs[0]),
                         shape4(*args.outputs[0]), p.mode, p.transform, p.rounding,
                         p.scales[0] > 0 ? p.scales : nullptr, args.outputs[0]->float_data());
}

namespace {

constexpr const char* kDepthModes[] = {"DCR", "CRD"};

bool block_params(const char* op, const KernelArgs& args, std::int64_t* block, bool* crd,
                  Diagnostics* d) {
  std::size_t mode = 0;
  if (!read_int(op, args, "blocksize", 0, block, d)) return false;
  if (op[0] == 'd' && !read_choice(op, args, "mode", kDepthModes, &mode, d)) return false;
  *crd = mode == 1;
  return true;
}

}  // namespace

Result<std::size_t> prepare_depth_to_space(const KernelArgs& args, Diagnostics* d) {
  std::int64_t block = 0;
  bool crd = false;
  if (!check_moving("depth_to_space", args, 1, d) ||
      !check_rank("depth_to_space", args, 0, "input", 4, d) ||
      !block_params("depth_to_space", args, &block, &crd, d)) {
    return kRejected;
  }
  Result<kernels::Shape4> out =
      kernels::depth_to_space_output_shape(shape4(*args.inputs[0]), block);
  if (!out.ok()) {
    report(d, "depth_to_space: %s", out.message());
    return kRejected;
  }
  const std::int64_t dims[] = {out->n, out->c, out->h, out->w};
  if (!check_output_shape("depth_to_space", args, dims, d)) return kRejected;
  return std::size_t{0};
}
Error run_depth_to_space(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t block = 0;
  bool crd = false;
  if (!block_params("depth_to_space", args, &block, &crd, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::depth_to_space(x.data, shape4(x), item_size(x), block, crd,
                                 args.outputs[0]->data);
}

Result<std::size_t> prepare_space_to_depth(const KernelArgs& args, Diagnostics* d) {
  std::int64_t block = 0;
  bool crd = false;
  if (!check_moving("space_to_depth", args, 1, d) ||
      !check_rank("space_to_depth", args, 0, "input", 4, d) ||
      !block_params("space_to_depth", args, &block, &crd, d)) {
    return kRejected;
  }
  Result<kernels::Shape4> out =
      kernels::space_to_depth_output_shape(shape4(*args.inputs[0]), block);
  if (!out.ok()) {
    report(d, "space_to_depth: %s", out.message());
    return kRejected;
  }
  const std::int64_t dims[] = {out->n, out->c, out->h, out->w};
  if (!check_output_shape("space_to_depth", args, dims, d)) return kRejected;
  return std::size_t{0};
}
Error run_space_to_depth(const KernelArgs& args, Span<std::uint8_t>) {
  std::int64_t block = 0;
  bool crd = false;
  if (!block_params("space_to_depth", args, &block, &crd, nullptr)) return Error::kInvalidArgument;
  const Tensor& x = *args.inputs[0];
  return kernels::space_to_depth(x.data, shape4(x), item_size(x), block, args.outputs[0]->data);
}

}  // namespace glassbox::runtime::portable

namespace glassbox::runtime::portable {
namespace {

bool conv_transpose_params(const KernelArgs& args, kernels::ConvTranspose2dParams* p,
                           Diagnostics* d) {
  constexpr const char* kOp = "conv_transpose2d";
  Padding padding;
  return read_pair(kOp, args, "stride", 1, 1, &p->stride_h, &p->stride_w, d) &&
         read_pair(kOp, args, "dilation", 1, 1, &p->dilation_h, &p->dilation_w, d) &&
         read_pair(kOp, args, "output_padding", 0, 0, &p->output_padding_h, &p->output_padding_w,
                   d) &&
         read_padding(kOp, args, &padding, d) && read_int(kOp, args, "groups", 1, &p->groups, d) &&
         ((p->pad_top = padding.top), (p->pad_left = padding.left),
          (p->pad_bottom = padding.bottom), (p->pad_right = padding.right), true);
}

}  // namespace

Result<std::size_t> prepare_conv_transpose2d(const KernelArgs& args, Diagnostics* d) {
  constexpr const char* kOp = "conv_transpose2d";
  kernels::ConvTranspose2dParams p;
  if (!check_signature(kOp, args, 2, 3, d) || !check_rank(kOp, args, 0, "input", 4, d) ||
      !check_rank(kOp, args, 1, "weight", 4, d) || !conv_transpose_params(args, &p, d) ||
      !check_no_overlap(kOp, args, InPlace::kNever, d)) {
    return kRejected;
  }
  Result<kernels::Shape4> out =
      kernels::conv_transpose2d_output_shape(shape4(*args.inputs[0]), shape4(*args.inputs[1]), p);
  if (!out.ok()) {
    report(d, "%s: %s", kOp, out.message());
    return kRejected;
  }
  const std::int64_t dims[] = {out->n, out->c, out->h, out->w};
  if (!check_output_shape(kOp, args, dims, d)) return kRejected;
  if (args.inputs.size() == 3) {
    const std::int64_t bias[] = {out->c};
    if (!check_input_shape(kOp, args, 2, "bias", bias, d)) return kRejected;
  }
  return std::size_t{0};
}
Error run_conv_transpose2d(const KernelArgs& args, Span<std::uint8_t>) {
  kernels::ConvTranspose2dParams p;
  if (!conv_transpose_params(args, &p, nullptr)) return Error::kInvalidArgument;
  const float* bias = args.inputs.size() == 3 ? args.inputs[2]->float_data() : nullptr;
  return kernels::conv_transpose2d(args.inputs[0]->float_data(), shape4(*args.inputs[0]),
                                   args.inputs[1]->float_data(), shape4(*args.inputs[1]), bias, p,
                                   shape4(*args.outputs[0]), args.outputs[0]->float_data());
}

}  // namespace glassbox::runtime::portable

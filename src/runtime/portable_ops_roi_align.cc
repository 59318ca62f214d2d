// roi_align (ONNX RoiAlign): argument checks around kernels/roi_align.h.

#include <cmath>

#include "glassbox/runtime/kernels/roi_align.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime::portable {
namespace {

constexpr const char* kRoiAlign = "roi_align";
constexpr const char* kModes[] = {"avg", "max"};
constexpr const char* kRoiAlignTransforms[] = {"half_pixel", "output_half_pixel"};

bool read_roi_align(const KernelArgs& args, kernels::RoiAlignParams* p, Diagnostics* d) {
  std::size_t mode = 0, transform = 0;
  if (!read_int(kRoiAlign, args, "output_height", 1, &p->output_height, d) ||
      !read_int(kRoiAlign, args, "output_width", 1, &p->output_width, d) ||
      !read_int(kRoiAlign, args, "sampling_ratio", 0, &p->sampling_ratio, d) ||
      !read_float(kRoiAlign, args, "spatial_scale", 1.0, &p->spatial_scale, d) ||
      !read_choice(kRoiAlign, args, "mode", kModes, &mode, d) ||
      !read_choice(kRoiAlign, args, "coordinate_transformation_mode", kRoiAlignTransforms,
                   &transform, d)) {
    return false;
  }
  if (p->output_height < 1 || p->output_width < 1 || p->sampling_ratio < 0 ||
      !std::isfinite(p->spatial_scale)) {
    report(d,
           "roi_align: output_height and output_width must be >= 1, sampling_ratio >= 0 and "
           "spatial_scale finite");
    return false;
  }
  p->mode = mode == 0 ? kernels::RoiAlignMode::kAvg : kernels::RoiAlignMode::kMax;
  p->half_pixel = transform == 0;
  return true;
}

}  // namespace

Result<std::size_t> prepare_roi_align(const KernelArgs& args, Diagnostics* d) {
  kernels::RoiAlignParams p;
  if (!check_typed_signature(kRoiAlign, args, 3, 3, d) ||
      !check_dtype(kRoiAlign, *args.inputs[0], "input 0", ScalarType::kFloat, d) ||
      !check_dtype(kRoiAlign, *args.inputs[1], "input 1", ScalarType::kFloat, d) ||
      !check_dtype(kRoiAlign, *args.inputs[2], "input 2", ScalarType::kLong, d) ||
      !check_dtype(kRoiAlign, *args.outputs[0], "output", ScalarType::kFloat, d) ||
      !check_rank(kRoiAlign, args, 0, "input", 4, d) ||
      !check_rank(kRoiAlign, args, 1, "rois", 2, d) ||
      !check_rank(kRoiAlign, args, 2, "batch_indices", 1, d) || !read_roi_align(args, &p, d)) {
    return kRejected;
  }
  const kernels::Shape4 x = shape4(*args.inputs[0]);
  const std::int64_t num_rois = args.inputs[2]->sizes[0];
  const std::int64_t rois_shape[] = {num_rois, 4};
  const std::int64_t y_shape[] = {num_rois, x.c, p.output_height, p.output_width};
  if (!check_input_shape(kRoiAlign, args, 1, "rois", rois_shape, d) ||
      !check_output_shape(kRoiAlign, args, y_shape, d) ||
      !check_no_overlap(kRoiAlign, args, InPlace::kNever, d)) {
    return kRejected;
  }
  if (num_rois > 0 && x.c > 0 && (x.h == 0 || x.w == 0)) {
    report(d, "roi_align: the input map is empty but there are rois to pool");
    return kRejected;
  }
  return std::size_t{0};
}

Error run_roi_align(const KernelArgs& args, Span<std::uint8_t>) {
  kernels::RoiAlignParams p;
  if (!read_roi_align(args, &p, nullptr)) return Error::kInvalidArgument;
  // Batch indices and roi coordinates are data: the kernel refuses an index
  // outside the batch or a non-finite coordinate at run time.
  return kernels::roi_align(args.inputs[0]->float_data(), shape4(*args.inputs[0]),
                            args.inputs[1]->float_data(),
                            static_cast<const std::int64_t*>(args.inputs[2]->data),
                            args.inputs[2]->sizes[0], p, args.outputs[0]->float_data());
}

}  // namespace glassbox::runtime::portable

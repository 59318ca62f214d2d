#include "glassbox/runtime/kernels/roi_align.h"

#include <algorithm>
#include <cmath>

namespace glassbox::runtime::kernels {
namespace {

// One sampling point: four plane offsets and their bilinear weights (all
// zero for a point outside the map, which then samples 0).
struct Tap {
  std::int64_t offset[4] = {0, 0, 0, 0};
  float weight[4] = {0, 0, 0, 0};
};

// The low neighbour, high neighbour and fraction of a coordinate already
// known to be within [-1, size]: clamped at 0 below and at the last pixel
// above, as ONNX's reference does.
struct Axis {
  std::int64_t low = 0;
  std::int64_t high = 0;
  float frac = 0;
};
Axis axis_of(float at, std::int64_t size) {
  at = std::max(at, 0.0f);
  Axis a;
  a.low = static_cast<std::int64_t>(at);
  if (a.low >= size - 1) {
    a.low = a.high = size - 1;
  } else {
    a.high = a.low + 1;
    a.frac = at - static_cast<float>(a.low);
  }
  return a;
}

Tap tap_at(float y, float x, std::int64_t height, std::int64_t width) {
  Tap t;
  if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f || x > static_cast<float>(width)) {
    return t;
  }
  const Axis ay = axis_of(y, height);
  const Axis ax = axis_of(x, width);
  t.offset[0] = ay.low * width + ax.low;
  t.offset[1] = ay.low * width + ax.high;
  t.offset[2] = ay.high * width + ax.low;
  t.offset[3] = ay.high * width + ax.high;
  t.weight[0] = (1 - ay.frac) * (1 - ax.frac);
  t.weight[1] = (1 - ay.frac) * ax.frac;
  t.weight[2] = ay.frac * (1 - ax.frac);
  t.weight[3] = ay.frac * ax.frac;
  return t;
}

// A roi's bins and sampling grid in feature-map coordinates.
struct Region {
  float start_y = 0, start_x = 0;
  float bin_h = 0, bin_w = 0;
  std::int64_t grid_h = 0, grid_w = 0;
};

bool region_of(const float* roi, const RoiAlignParams& p, Region* r) {
  for (int i = 0; i < 4; ++i) {
    if (!std::isfinite(roi[i])) return false;
  }
  const float shift = p.half_pixel ? 0.5f : 0.0f;
  r->start_x = roi[0] * p.spatial_scale - shift;
  r->start_y = roi[1] * p.spatial_scale - shift;
  float width = roi[2] * p.spatial_scale - shift - r->start_x;
  float height = roi[3] * p.spatial_scale - shift - r->start_y;
  if (!p.half_pixel) {
    width = std::max(width, 1.0f);
    height = std::max(height, 1.0f);
  }
  if (!std::isfinite(width) || !std::isfinite(height)) return false;
  r->bin_h = height / static_cast<float>(p.output_height);
  r->bin_w = width / static_cast<float>(p.output_width);
  // A negative extent (a reversed roi in half_pixel mode) has no samples.
  const double cap = static_cast<double>(kMaxRoiAlignSamplesPerBin);
  const double grid_h =
      p.sampling_ratio > 0 ? static_cast<double>(p.sampling_ratio) : std::ceil(r->bin_h);
  const double grid_w =
      p.sampling_ratio > 0 ? static_cast<double>(p.sampling_ratio) : std::ceil(r->bin_w);
  if (std::max(grid_h, 0.0) * std::max(grid_w, 0.0) > cap) return false;
  r->grid_h = static_cast<std::int64_t>(std::max(grid_h, 0.0));
  r->grid_w = static_cast<std::int64_t>(std::max(grid_w, 0.0));
  return true;
}

// Every channel's bin (ph, pw) of one roi: out[c * plane_out] for channel c.
void pool_bin(const float* image, const Shape4& x, const Region& r, std::int64_t ph,
              std::int64_t pw, const RoiAlignParams& p, std::int64_t plane_out, float* out) {
  const std::int64_t plane_in = x.h * x.w;
  const std::int64_t samples = r.grid_h * r.grid_w;
  for (std::int64_t c = 0; c < x.c; ++c) out[c * plane_out] = 0.0f;
  for (std::int64_t iy = 0; iy < r.grid_h; ++iy) {
    const float y = r.start_y + static_cast<float>(ph) * r.bin_h +
                    (static_cast<float>(iy) + 0.5f) * r.bin_h / static_cast<float>(r.grid_h);
    for (std::int64_t ix = 0; ix < r.grid_w; ++ix) {
      const float xx = r.start_x + static_cast<float>(pw) * r.bin_w +
                       (static_cast<float>(ix) + 0.5f) * r.bin_w / static_cast<float>(r.grid_w);
      const Tap t = tap_at(y, xx, x.h, x.w);
      const bool first = iy == 0 && ix == 0;
      for (std::int64_t c = 0; c < x.c; ++c) {
        const float* plane = image + c * plane_in;
        float& acc = out[c * plane_out];
        if (p.mode == RoiAlignMode::kAvg) {
          acc += t.weight[0] * plane[t.offset[0]] + t.weight[1] * plane[t.offset[1]] +
                 t.weight[2] * plane[t.offset[2]] + t.weight[3] * plane[t.offset[3]];
        } else {
          float v = t.weight[0] * plane[t.offset[0]];
          for (int k = 1; k < 4; ++k) v = std::max(v, t.weight[k] * plane[t.offset[k]]);
          acc = first ? v : std::max(acc, v);
        }
      }
    }
  }
  if (p.mode == RoiAlignMode::kAvg && samples > 1) {
    for (std::int64_t c = 0; c < x.c; ++c) out[c * plane_out] /= static_cast<float>(samples);
  }
}

}  // namespace

Error roi_align(const float* x, Shape4 x_shape, const float* rois,
                const std::int64_t* batch_indices, std::int64_t num_rois,
                const RoiAlignParams& params, float* y) {
  if (params.output_height < 1 || params.output_width < 1 || params.sampling_ratio < 0 ||
      !std::isfinite(params.spatial_scale) || num_rois < 0 || x_shape.n < 0 || x_shape.c < 0 ||
      x_shape.h < 0 || x_shape.w < 0) {
    return Error::kInvalidArgument;
  }
  if (num_rois == 0 || x_shape.c == 0) return Error::kOk;
  if (x_shape.h == 0 || x_shape.w == 0) return Error::kInvalidArgument;
  if (x == nullptr || rois == nullptr || batch_indices == nullptr || y == nullptr) {
    return Error::kInvalidArgument;
  }
  const std::int64_t plane_out = params.output_height * params.output_width;
  for (std::int64_t n = 0; n < num_rois; ++n) {
    const std::int64_t b = batch_indices[n];
    Region r;
    if (b < 0 || b >= x_shape.n || !region_of(rois + 4 * n, params, &r)) {
      return Error::kInvalidArgument;
    }
    const float* image = x + b * x_shape.c * x_shape.h * x_shape.w;
    float* out = y + n * x_shape.c * plane_out;
    for (std::int64_t ph = 0; ph < params.output_height; ++ph) {
      for (std::int64_t pw = 0; pw < params.output_width; ++pw) {
        pool_bin(image, x_shape, r, ph, pw, params, plane_out, out + ph * params.output_width + pw);
      }
    }
  }
  return Error::kOk;
}

}  // namespace glassbox::runtime::kernels

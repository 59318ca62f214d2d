#pragma once
/// @file
/// Float max pooling over NHWC with AVX-512, for pools without padding or
/// dilation (every window inside the image: squeezenet's three 3x3
/// stride-2 pools, ceil mode included when its last window fits).
/// XNNPACK 2022's f32 max pool on x86 is an SSE kernel, four channels per
/// step, over an indirection buffer: squeezenet1_1's pools took 110, 39
/// and 17 us on XNNPACK against ONNX Runtime's 123 together
/// (docs/benchmarks.md, issue 33). This one takes 64 channels per step in
/// four independent maxima, the window walked by pointer steps. Other
/// pools, CPUs without AVX-512F and runs on more than one thread stay on
/// XNNPACK's: on two threads XNNPACK's splits the pool between them and
/// reads each half where the convolution before it wrote it, and
/// squeezenet's last pool took 39-44 us on this kernel alone against
/// XNNPACK's 15-19.
///
/// The same results as XNNPACK's to the bit: a maximum is exact in any
/// order, and the fused clamp is applied after it the same way.

#include <cstdint>

namespace glassbox::backends::xnnpack {

struct MaxPoolShape {
  std::int64_t n = 0, h = 0, w = 0, c = 0;  ///< input, NHWC, dense
  std::int64_t out_h = 0, out_w = 0;        ///< output, NHWC, dense
  std::int64_t pool_h = 1, pool_w = 1, stride_h = 1, stride_w = 1;
  float output_min = 0, output_max = 0;  ///< the fused clamp (-inf, +inf: none)
};

/// Whether max_pool_nhwc runs the pool with format kMaxPooling's
/// parameters `params` (pad top, right, bottom, left, pool h, w, stride h,
/// w, dilation h, w) on this CPU: x86-64 with AVX-512F, no padding, no
/// dilation.
bool max_pool_nhwc_takes(const std::uint32_t* params);

/// Output rows [first_row, end_row) of the n * out_h rows of `out`. Only
/// for a pool max_pool_nhwc_takes.
void max_pool_nhwc(const float* in, float* out, const MaxPoolShape& s, std::int64_t first_row,
                   std::int64_t end_row);

}  // namespace glassbox::backends::xnnpack

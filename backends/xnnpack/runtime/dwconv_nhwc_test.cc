#include "backends/xnnpack/runtime/dwconv_nhwc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::backends::xnnpack {
namespace {

// A direct depthwise convolution in double precision.
std::vector<double> naive_dwconv(const DwConvGeometry& g, const std::vector<float>& in,
                                 const std::vector<float>& kernel, const std::vector<float>& bias) {
  std::vector<double> out(g.batch * g.out_h * g.out_w * g.channels);
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oy = 0; oy < g.out_h; ++oy) {
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        for (std::size_t c = 0; c < g.channels; ++c) {
          double sum = bias[c];
          for (std::size_t ky = 0; ky < g.kernel_h; ++ky) {
            for (std::size_t kx = 0; kx < g.kernel_w; ++kx) {
              const long iy = static_cast<long>(oy * g.stride_h + ky * g.dilation_h) -
                              static_cast<long>(g.pad_top);
              const long ix = static_cast<long>(ox * g.stride_w + kx * g.dilation_w) -
                              static_cast<long>(g.pad_left);
              if (iy < 0 || ix < 0 || iy >= static_cast<long>(g.in_h) ||
                  ix >= static_cast<long>(g.in_w)) {
                continue;
              }
              const std::size_t pixel = (n * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                        static_cast<std::size_t>(ix);
              sum += static_cast<double>(in[pixel * g.channels + c]) *
                     kernel[(c * g.kernel_h + ky) * g.kernel_w + kx];
            }
          }
          out[((n * g.out_h + oy) * g.out_w + ox) * g.channels + c] =
              std::clamp<double>(sum, g.output_min, g.output_max);
        }
      }
    }
  }
  return out;
}

// Runs the kernel in two row ranges (as two threads would) and compares
// every output with the naive one; channels past `channels` in a wider
// pixel stride must be left as they were.
void expect_matches_naive(DwConvGeometry g, unsigned seed) {
  if (!dwconv_nhwc_available()) GTEST_SKIP() << "no AVX-512F on this CPU";
  if (g.out_pixel_stride == 0) g.out_pixel_stride = g.channels;
  const auto in = runtime::kernels::testing::random_floats(g.batch * g.in_h * g.in_w * g.channels,
                                                           seed, -0.5f, 0.5f);
  const auto kernel = runtime::kernels::testing::random_floats(g.channels * g.kernel_h * g.kernel_w,
                                                               seed + 1, -0.5f, 0.5f);
  const auto bias = runtime::kernels::testing::random_floats(g.channels, seed + 2, -0.5f, 0.5f);
  std::vector<float> packed(dwconv_nhwc_packed_floats(g));
  dwconv_nhwc_pack(g, kernel.data(), bias.data(), packed.data());
  const std::size_t rows = g.batch * g.out_h;
  std::vector<float> out(rows * g.out_w * g.out_pixel_stride, 1234.0f);
  dwconv_nhwc_run(g, packed.data(), in.data(), out.data(), 0, rows / 2);
  dwconv_nhwc_run(g, packed.data(), in.data(), out.data(), rows / 2, rows);
  const auto expected = naive_dwconv(g, in, kernel, bias);
  for (std::size_t p = 0; p < rows * g.out_w; ++p) {
    for (std::size_t c = 0; c < g.out_pixel_stride; ++c) {
      const float got = out[p * g.out_pixel_stride + c];
      if (c >= g.channels) {
        ASSERT_EQ(got, 1234.0f) << "pixel " << p << " channel " << c << " past the output's";
      } else {
        ASSERT_NEAR(got, expected[p * g.channels + c], 1e-5) << "pixel " << p << " channel " << c;
      }
    }
  }
}

DwConvGeometry dw_geometry(std::size_t hw, std::size_t channels, std::size_t k, std::size_t stride,
                           std::size_t pad) {
  DwConvGeometry g;
  g.in_h = g.in_w = hw;
  g.channels = channels;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = pad;
  g.out_h = g.out_w = (hw + 2 * pad - k) / stride + 1;
  return g;
}

// mobilenet_v2's shapes, smaller: 32 channels (blocks of two vectors),
// 144 (three blocks of three), 96 with stride 2, over two images.
TEST(DwConvNhwcTest, MobilenetShapes) {
  DwConvGeometry g = dw_geometry(13, 32, 3, 1, 1);
  g.batch = 2;
  expect_matches_naive(g, 1);
  expect_matches_naive(dw_geometry(11, 144, 3, 1, 1), 2);
  expect_matches_naive(dw_geometry(12, 96, 3, 2, 1), 3);
}

// 20 and 70 channels: whole vectors, then a masked one; ReLU6 fused, into a
// wider pixel stride.
TEST(DwConvNhwcTest, MaskedLastVectorClampAndPixelStride) {
  expect_matches_naive(dw_geometry(9, 20, 3, 1, 1), 4);
  DwConvGeometry g = dw_geometry(10, 70, 3, 2, 1);
  g.output_min = 0.0f;
  g.output_max = 0.25f;
  g.out_pixel_stride = 80;
  expect_matches_naive(g, 5);
}

// 5x5 with padding 2 and dilation 2, an image narrower than four outputs
// and a rectangular kernel with asymmetric padding: windows crossing every
// edge.
TEST(DwConvNhwcTest, WideDilatedAndNarrowWindows) {
  DwConvGeometry g = dw_geometry(14, 48, 5, 1, 2);
  g.dilation_h = g.dilation_w = 2;
  g.out_h = g.out_w = 10;
  expect_matches_naive(g, 6);
  expect_matches_naive(dw_geometry(3, 16, 3, 1, 1), 7);
  DwConvGeometry r;
  r.in_h = 7;
  r.in_w = 9;
  r.channels = 33;
  r.kernel_h = 3;
  r.kernel_w = 2;
  r.pad_top = 1;
  r.pad_left = 0;
  r.out_h = 7;
  r.out_w = 8;
  expect_matches_naive(r, 8);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

#include "backends/xnnpack/runtime/conv_igemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "src/runtime/kernels/kernels_test_util.h"

namespace glassbox::backends::xnnpack {
namespace {

// A direct convolution in double precision: for every output pixel and
// channel, the bias plus every tap inside the image.
std::vector<double> naive_conv(const ConvGeometry& g, const std::vector<float>& in,
                               const std::vector<float>& kernel, const std::vector<float>& bias) {
  std::vector<double> out(g.batch * g.out_h * g.out_w * g.out_c);
  for (std::size_t n = 0; n < g.batch; ++n) {
    for (std::size_t oy = 0; oy < g.out_h; ++oy) {
      for (std::size_t ox = 0; ox < g.out_w; ++ox) {
        for (std::size_t oc = 0; oc < g.out_c; ++oc) {
          double sum = bias[oc];
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
              for (std::size_t ic = 0; ic < g.in_c; ++ic) {
                sum +=
                    static_cast<double>(in[((n * g.in_h + static_cast<std::size_t>(iy)) * g.in_w +
                                            static_cast<std::size_t>(ix)) *
                                               g.in_c +
                                           ic]) *
                    kernel[((oc * g.kernel_h + ky) * g.kernel_w + kx) * g.in_c + ic];
              }
            }
          }
          out[((n * g.out_h + oy) * g.out_w + ox) * g.out_c + oc] =
              std::clamp<double>(sum, g.output_min, g.output_max);
        }
      }
    }
  }
  return out;
}

struct Buffers {
  std::vector<float> packed, zeros, out;
  std::vector<const float*> indirection;
};

// Runs conv_igemm on random data and compares every output with the naive
// convolution; the channels past out_c of each output pixel (a wider
// pixel stride, as inside a concatenation) must be left as they were.
void expect_matches_naive(ConvGeometry g, unsigned seed) {
  if (!conv_igemm_available()) GTEST_SKIP() << "no AVX-512F on this CPU";
  if (g.out_pixel_stride == 0) g.out_pixel_stride = g.out_c;
  const auto in = runtime::kernels::testing::random_floats(g.batch * g.in_h * g.in_w * g.in_c, seed,
                                                           -0.5f, 0.5f);
  const auto kernel = runtime::kernels::testing::random_floats(
      g.out_c * g.kernel_h * g.kernel_w * g.in_c, seed + 1, -0.5f, 0.5f);
  const auto bias = runtime::kernels::testing::random_floats(g.out_c, seed + 2, -0.5f, 0.5f);
  Buffers b;
  b.packed.resize(conv_igemm_packed_floats(g) + 16);
  float* packed = b.packed.data();
  while (reinterpret_cast<std::uintptr_t>(packed) % 64 != 0) ++packed;
  conv_igemm_pack(g, kernel.data(), bias.data(), packed);
  b.indirection.resize(conv_igemm_indirection_size(g));
  b.zeros.assign(g.in_c, 0.0f);
  if (!b.indirection.empty())
    conv_igemm_indirect(g, in.data(), b.zeros.data(), b.indirection.data());
  const std::size_t pixels = g.batch * g.out_h * g.out_w;
  b.out.assign(pixels * g.out_pixel_stride, 1234.0f);
  conv_igemm_run(ConvIgemm{g, packed, b.indirection.empty() ? nullptr : b.indirection.data(),
                           in.data(), b.out.data()});
  const auto expected = naive_conv(g, in, kernel, bias);
  const double tolerance = 1e-5 * static_cast<double>(g.kernel_h * g.kernel_w * g.in_c);
  for (std::size_t p = 0; p < pixels; ++p) {
    for (std::size_t c = 0; c < g.out_pixel_stride; ++c) {
      const float got = b.out[p * g.out_pixel_stride + c];
      if (c >= g.out_c) {
        ASSERT_EQ(got, 1234.0f) << "pixel " << p << " channel " << c << " past the output's";
      } else {
        ASSERT_NEAR(got, expected[p * g.out_c + c], tolerance) << "pixel " << p << " channel " << c;
      }
    }
  }
}

ConvGeometry geometry(std::size_t in_hw, std::size_t in_c, std::size_t out_c, std::size_t k,
                      std::size_t stride, std::size_t pad) {
  ConvGeometry g;
  g.in_h = g.in_w = in_hw;
  g.in_c = in_c;
  g.out_c = out_c;
  g.kernel_h = g.kernel_w = k;
  g.stride_h = g.stride_w = stride;
  g.pad_top = g.pad_left = pad;
  g.out_h = g.out_w = (in_hw + 2 * pad - k) / stride + 1;
  return g;
}

// 13x13 = 169 pixels: tiles of 11 and 12; 40 channels: a full block and a
// block of 8 (masked stores).
TEST(ConvIgemmTest, OneByOneGemmWithAPartialChannelBlock) {
  const ConvGeometry g = geometry(13, 64, 40, 1, 1, 0);
  EXPECT_TRUE(conv_igemm_is_gemm(g));
  EXPECT_EQ(conv_igemm_indirection_size(g), 0u);
  expect_matches_naive(g, 1);
}

// 16 output channels and fewer: blocks of one vector (squeezenet's
// squeeze convolutions), 10 of them masked.
TEST(ConvIgemmTest, NarrowOutputsInBlocksOfSixteen) {
  expect_matches_naive(geometry(13, 48, 16, 1, 1, 0), 10);
  ConvGeometry g = geometry(7, 20, 10, 3, 1, 1);
  g.out_pixel_stride = 24;
  expect_matches_naive(g, 11);
}

TEST(ConvIgemmTest, ThreeByThreePaddedOverTwoImages) {
  ConvGeometry g = geometry(9, 16, 64, 3, 1, 1);
  g.batch = 2;
  EXPECT_FALSE(conv_igemm_is_gemm(g));
  expect_matches_naive(g, 2);
}

// A first convolution: 3 input channels, stride 2, and fewer pixels than
// one tile (3x3 outputs).
TEST(ConvIgemmTest, StridedFirstConvolutionAndATileSmallerThanTwelve) {
  expect_matches_naive(geometry(7, 3, 32, 3, 2, 1), 3);
  expect_matches_naive(geometry(224 / 16, 3, 64, 3, 2, 0), 4);
}

// Dilation 2, asymmetric padding (the geometry pads top/left by 2 and
// computes as many outputs as fit) and a rectangular kernel.
TEST(ConvIgemmTest, DilatedRectangularKernel) {
  ConvGeometry g;
  g.in_h = 11;
  g.in_w = 8;
  g.in_c = 5;
  g.out_c = 33;
  g.kernel_h = 3;
  g.kernel_w = 2;
  g.dilation_h = g.dilation_w = 2;
  g.pad_top = 2;
  g.pad_left = 1;
  g.out_h = 11;
  g.out_w = 7;
  expect_matches_naive(g, 5);
}

// ReLU6 fused, written into the first 56 of 80 channels of each pixel (its
// slice of a concatenation).
TEST(ConvIgemmTest, ClampAndAWiderOutputPixelStride) {
  ConvGeometry g = geometry(6, 40, 56, 1, 1, 0);
  g.output_min = 0.0f;
  g.output_max = 0.25f;
  g.out_pixel_stride = 80;
  expect_matches_naive(g, 6);
}

// Shares for 2 and 3 threads, split by tiles (13x13 pixels: 15 tiles) and
// by channel blocks (3x3 pixels: 1 tile), run one after the other: the
// same bytes as one whole run, every output written.
TEST(ConvIgemmTest, SharesCoverTheOutputOnceWithTheSameResults) {
  if (!conv_igemm_available()) GTEST_SKIP() << "no AVX-512F on this CPU";
  for (const std::size_t hw : {13u, 3u}) {
    const ConvGeometry g = geometry(hw, 64, 200, 1, 1, 0);
    const auto in = runtime::kernels::testing::random_floats(hw * hw * 64, 7, -0.5f, 0.5f);
    const auto kernel = runtime::kernels::testing::random_floats(200 * 64, 8, -0.5f, 0.5f);
    const auto bias = runtime::kernels::testing::random_floats(200, 9, -0.5f, 0.5f);
    std::vector<float> packed(conv_igemm_packed_floats(g) + 16);
    float* aligned = packed.data();
    while (reinterpret_cast<std::uintptr_t>(aligned) % 64 != 0) ++aligned;
    conv_igemm_pack(g, kernel.data(), bias.data(), aligned);
    std::vector<float> whole(hw * hw * 200, -1.0f);
    conv_igemm_run(ConvIgemm{g, aligned, nullptr, in.data(), whole.data()});
    for (const std::size_t parts : {2u, 3u}) {
      std::vector<float> split(whole.size(), -1.0f);
      for (std::size_t p = 0; p < parts; ++p) {
        const ConvIgemmPart part = conv_igemm_part(g, p, parts);
        if (hw == 13) {
          EXPECT_EQ(part.end_block - part.first_block, conv_igemm_block_count(g));
        } else {
          EXPECT_EQ(part.end_tile - part.first_tile, conv_igemm_tile_count(g));
        }
        conv_igemm_run(ConvIgemm{g, aligned, nullptr, in.data(), split.data()}, part);
      }
      EXPECT_EQ(split, whole) << hw << "x" << hw << " in " << parts << " parts";
    }
  }
}

TEST(ConvIgemmTest, TakesWideEnoughConvolutionsOnly) {
  if (!conv_igemm_available()) GTEST_SKIP() << "no AVX-512F on this CPU";
  EXPECT_TRUE(conv_igemm_takes(geometry(13, 512, 1000, 1, 1, 0)));
  EXPECT_TRUE(conv_igemm_takes(geometry(224, 3, 64, 3, 2, 0)));
  EXPECT_TRUE(conv_igemm_takes(geometry(55, 128, 16, 1, 1, 0)));
  EXPECT_TRUE(conv_igemm_takes(geometry(112, 16, 96, 1, 1, 0)));
  EXPECT_FALSE(conv_igemm_takes(geometry(56, 8, 144, 1, 1, 0)));  // 1x1 over 8 channels
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

#pragma once
/// @file
/// A float convolution of one group over NHWC pixels with AVX-512, for the
/// delegate's convolutions. XNNPACK 2022's f32 GEMM/IGEMM
/// microkernel on AVX-512 is a 7x16 tile: seven pixels by sixteen output
/// channels, seven accumulators, fewer than the two 512-bit FMA pipes of a
/// Zen 4/5 core need in flight to hide the FMA latency; it was 86% of
/// squeezenet1_1's time there, which ran 1.13-1.18x of ONNX Runtime on one
/// thread (docs/benchmarks.md, issue 33). This one keeps up to twelve
/// pixels by thirty-two output channels, 24 accumulators (twelve by
/// sixteen for convolutions of 16 output channels or fewer).
///
/// It is an indirect GEMM: each output pixel has, per kernel tap, a pointer
/// to the input pixel that tap reads (or to a row of zeros in the padding),
/// computed once at init since the delegate's buffers are fixed; the
/// weights are packed per block of 32 output channels (the bias, then per
/// tap and input channel 32 weights), so a tile streams them in order.
/// Blocks of output channels are the outer loop: a block's weights (taps x
/// input channels x 128 bytes) stay in cache while every tile of pixels
/// reads them.
///
/// Results differ from XNNPACK's in the last bits: the sums are taken in
/// another order (taps, then input channels, as the portable kernel does).

#include <cstddef>
#include <cstdint>

namespace glassbox::backends::xnnpack {

/// A convolution's sizes; input and output are NHWC, the input dense.
struct ConvGeometry {
  std::size_t batch = 1;
  std::size_t in_h = 0, in_w = 0, in_c = 0;
  std::size_t out_h = 0, out_w = 0, out_c = 0;
  std::size_t kernel_h = 1, kernel_w = 1;
  std::size_t stride_h = 1, stride_w = 1;
  std::size_t dilation_h = 1, dilation_w = 1;
  std::size_t pad_top = 0, pad_left = 0;
  std::size_t out_pixel_stride = 0;  ///< floats between output pixels (>= out_c)
  float output_min = -__builtin_inff(), output_max = __builtin_inff();  ///< the fused clamp
};

/// Output channels per packed block, at most (two AVX-512 vectors; one,
/// 16 channels, when the convolution has no more).
inline constexpr std::size_t kConvIgemmBlock = 32;
/// Pixels per tile, at most.
inline constexpr std::size_t kConvIgemmTile = 12;

/// Whether this CPU runs conv_igemm (x86-64 with AVX-512F).
bool conv_igemm_available();

/// Whether conv_igemm runs `g` here: x86-64 with AVX-512F, and a kernel
/// wider than 1x1 or at least 16 input channels (below that a tile's fixed
/// costs outweigh its multiply-adds).
bool conv_igemm_takes(const ConvGeometry& g);

/// Whether `g` is a 1x1 convolution reading every pixel in order (stride
/// 1, no padding): its pixels need no indirection buffer.
bool conv_igemm_is_gemm(const ConvGeometry& g);

/// Floats of packed weights for `g`.
std::size_t conv_igemm_packed_floats(const ConvGeometry& g);
/// Pointers in `g`'s indirection buffer (0 for a GEMM).
std::size_t conv_igemm_indirection_size(const ConvGeometry& g);

/// Packs `kernel` ([out_c][kernel_h][kernel_w][in_c], XNNPACK's layout) and
/// `bias` ([out_c]) into `packed` (conv_igemm_packed_floats floats, 64-byte
/// aligned: the kernel loads its weights with aligned loads).
void conv_igemm_pack(const ConvGeometry& g, const float* kernel, const float* bias, float* packed);

/// Fills `indirection` (conv_igemm_indirection_size pointers) with, per
/// tile, tap and pixel of the tile, the input pixel it reads in `input`, or
/// `zeros` (in_c zero floats) where the tap falls in the padding.
void conv_igemm_indirect(const ConvGeometry& g, const float* input, const float* zeros,
                         const float** indirection);

/// A convolution bound to its buffers at init.
struct ConvIgemm {
  ConvGeometry geometry;
  const float* packed = nullptr;
  const float* const* indirection = nullptr;  ///< null for a GEMM
  const float* input = nullptr;
  float* output = nullptr;  ///< pixels geometry.out_pixel_stride floats apart
};

/// A share of a run: tiles of pixels [first_tile, end_tile) against blocks
/// of output channels [first_block, end_block).
struct ConvIgemmPart {
  std::size_t first_tile = 0, end_tile = SIZE_MAX;
  std::size_t first_block = 0, end_block = SIZE_MAX;
};

/// Tiles of pixels and blocks of output channels in `g`.
std::size_t conv_igemm_tile_count(const ConvGeometry& g);
std::size_t conv_igemm_block_count(const ConvGeometry& g);

/// Share `part` of `parts` (threads): whole rows of tiles when there are at
/// least four tiles a part, else blocks of output channels. The shares of
/// 0..parts-1 cover the output once.
ConvIgemmPart conv_igemm_part(const ConvGeometry& g, std::size_t part, std::size_t parts);

/// Computes the output pixels of `part` (default: all of them). Only for a
/// convolution conv_igemm_takes. Each output is computed the same way
/// whatever the split: results do not depend on the thread count.
void conv_igemm_run(const ConvIgemm& conv, ConvIgemmPart part = {});

}  // namespace glassbox::backends::xnnpack

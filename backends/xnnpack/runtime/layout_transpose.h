#pragma once
/// @file
/// NCHW <-> NHWC copies for the delegate's layout-conversion operators
/// (XNNPACK 2022's operator API has no transpose operator).

#include <cstdint>

namespace glassbox::backends::xnnpack {

/// out[n][h][w][c] = in[n][c][h][w]; `hw` = H * W. Buffers must not overlap.
void nchw_to_nhwc(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw);
/// out[n][c][h][w] = in[n][h][w][c], where in's pixels are `pixel_stride`
/// floats apart (0: `c`, dense; more: a slice of a wider tensor's
/// channels, see concat_in_place.h).
void nhwc_to_nchw(const float* in, float* out, std::int64_t n, std::int64_t c, std::int64_t hw,
                  std::int64_t pixel_stride = 0);
/// The same for format 1.6's int8 slots (dense).
void nchw_to_nhwc(const std::int8_t* in, std::int8_t* out, std::int64_t n, std::int64_t c,
                  std::int64_t hw);
void nhwc_to_nchw(const std::int8_t* in, std::int8_t* out, std::int64_t n, std::int64_t c,
                  std::int64_t hw);

}  // namespace glassbox::backends::xnnpack

#pragma once
/// @file
/// Format 1.8's kConvolution3d (xnnpack_format.h): a 3-D convolution over
/// 5-D NDHWC slots. XNNPACK 2022 has no 3-D convolution, but a 3-D one is
/// the sum over its temporal taps dt of 2-D convolutions over frames: output
/// frame t adds tap dt's 2-D convolution (its weight slice) of input frame
/// t * stride_d + dt * dilation_d - pad_front. In NDHWC each frame is an
/// [H, W, C] image and a batch element's frames are contiguous, so for a
/// temporal stride of 1 the frames one tap reads for its range of output
/// frames are a contiguous batch of images: one 2-D convolution per tap
/// (and batch element) does them all. Temporal padding only shortens a
/// tap's range. With a temporal stride s > 1 the input's frames are first
/// gathered into s phases (frames r, r + s, r + 2s, ...), in which every
/// tap's frames are contiguous again. A tap of one group that conv_igemm.h
/// takes runs on that kernel (r3d_18 on one thread: 174-198 ms against
/// 210-214 with XNNPACK's operators), the others on XNNPACK's.
///
/// One tap whose range covers every output frame writes the output with
/// the bias; the others write a scratch buffer that an XNNPACK add sums
/// into the output, the last full-range one with the fused activation
/// (else a clamp runs at the end). The whole convolution is one delegate
/// operator: one event under its identifier.
///
/// Every buffer (the phases, the scratch) is taken from the delegate's
/// allocator at init: nothing allocates while running.

#include <pthreadpool.h>

#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

struct Conv3dLayer;

/// Creates the layer for op `index` of `program` (kConvolution3d,
/// validated) reading and writing `buffers`; its XNNPACK operators are set
/// up on `pool` (may be null). On error nothing is left to delete.
ErrorInfo compile_conv3d_layer(const ParsedProgram& program, std::uint32_t index,
                               float* const* buffers, pthreadpool_t pool,
                               runtime::MemoryAllocator* memory, Conv3dLayer** out);

/// Runs every tap. kInternal if XNNPACK fails.
Error run_conv3d_layer(const Conv3dLayer& layer, pthreadpool_t pool);

/// Deletes its XNNPACK operators (idempotent).
void delete_conv3d_layer(Conv3dLayer* layer);

}  // namespace glassbox::backends::xnnpack

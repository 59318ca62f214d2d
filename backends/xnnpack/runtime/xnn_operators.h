#pragma once
/// @file
/// Turns one validated operator (program_parser.h) into XNNPACK operator
/// API objects, created and set up once at init: weights are packed by
/// xnn_create_* then, and xnn_setup_* binds the slot buffers and thread
/// pool, so running is one xnn_run_operator per XNNPACK operator. The
/// operators XNNPACK has none for are bound the same way to our own code
/// (own_kernels.h).

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/runtime/conv3d_layer.h"
#include "backends/xnnpack/runtime/conv_igemm.h"
#include "backends/xnnpack/runtime/dwconv_nhwc.h"
#include "backends/xnnpack/runtime/own_kernels.h"
#include "backends/xnnpack/runtime/program_parser.h"
#include "backends/xnnpack/runtime/recurrent_layer.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/memory_allocator.h"

struct xnn_operator;
struct pthreadpool;

namespace glassbox::backends::xnnpack {

/// A delegate operator ready to run: XNNPACK operators run in order (one,
/// or one copy per input of a concatenation), or one of our own
/// (own_kernels.h).
struct CompiledOp {
  xnn_operator** operators = nullptr;
  std::uint32_t num_operators = 0;
  const OwnKernel* own = nullptr;
  /// Format 1.7's recurrent layer (recurrent_layer.h), which owns its
  /// XNNPACK operators.
  RecurrentLayer* recurrent = nullptr;
  /// Format 1.8's 3-D convolution (conv3d_layer.h), which owns its
  /// XNNPACK operators.
  Conv3dLayer* conv3d = nullptr;
  /// A convolution run by conv_igemm.h's kernel instead of XNNPACK's.
  const ConvIgemm* conv = nullptr;
  /// A depthwise convolution run by dwconv_nhwc.h's kernel.
  const DwConv* dwconv = nullptr;
};

/// Creates and sets up `op` (op index `index` of `program`) reading and
/// writing `buffers` (one per slot, each with XNN_EXTRA_BYTES of slack;
/// they must outlive `out`). `pool` may be null (single thread). A
/// convolution writes pixels `output_pixel_stride` floats apart (0: its
/// own channels), as it does into its slice of a concatenation
/// (concat_in_place.h); a concatenation copies only the inputs whose
/// buffer is not already its slice of the output. On error nothing is
/// left to delete. Errors: kNotSupported / kInvalidArgument /
/// kMemoryAllocationFailed with XNNPACK's reason.
ErrorInfo compile_operator(const ParsedProgram& program, std::uint32_t index, float* const* buffers,
                           pthreadpool* pool, runtime::MemoryAllocator* memory, CompiledOp* out,
                           std::size_t output_pixel_stride = 0);

/// Runs `conv` (conv_igemm.h) in one share per thread of `pool` (null: on
/// the calling thread); 3-D convolutions' taps run this way too
/// (conv3d_layer.h).
void run_conv_igemm(const ConvIgemm& conv, pthreadpool* pool);

/// Runs a compiled operator on `pool` (the one it was set up with; may be
/// null). kInternal if XNNPACK fails.
Error run_compiled(const CompiledOp& op, pthreadpool* pool);

/// Deletes `op`'s XNNPACK operators (idempotent).
void delete_compiled(CompiledOp* op);

}  // namespace glassbox::backends::xnnpack

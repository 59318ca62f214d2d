#pragma once
/// @file
/// The delegate operators XNNPACK 2022's operator API has no operator for,
/// run by Glassbox's own code inside the delegate, bound at init to their
/// slot buffers:
/// - the NCHW <-> NHWC layout conversions and the channel shuffle
///   (layout_transpose.h);
/// - format 1.6's int8 quantize (ONNX's division, exact like the portable
///   kernel), average pooling (NHWC, qlinear_avg_pool2d's arithmetic: XNNPACK
///   2022 has qu8 only), lookup tables (sigmoid, hardswish, hardsigmoid, ...
///   computed at AOT time from the float kernels) and concatenation with
///   requantization (qlinear_concat), and the layout conversions of int8
///   slots;
/// - float max pooling without padding or dilation on one thread on CPUs
///   with AVX-512F (max_pool_nhwc.h: XNNPACK 2022's is SSE there);
/// - format 1.4's transpose, batch matmul, layer norm and erf, and 1.5's
///   strided slice, on the portable kernels (glassbox/runtime/kernels), so that a transformer
///   stays in one delegate: no partition border, no framework events, no
///   portable kernel call per operator.
/// Erf, layer norm and batch matmul split their work over the delegate's
/// thread pool when it is large enough to pay for the hand-off (each part
/// a portable kernel call on its rows, batches or elements); the others
/// run on the calling thread.

#include <pthreadpool.h>

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/runtime/max_pool_nhwc.h"
#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/kernels/quantized.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

/// The most parts an own kernel's run splits into (the pool's threads,
/// capped).
inline constexpr std::uint32_t kMaxOwnKernelParts = 64;

/// One such operator. The slot descriptors are the parsed program's, which
/// lives as long as the delegate.
struct OwnKernel {
  XnnOpKind kind = XnnOpKind::kErf;
  const SlotDesc* a_desc = nullptr;
  const SlotDesc* b_desc = nullptr;  ///< kBatchMatMul's second operand
  const SlotDesc* out_desc = nullptr;
  const float* a = nullptr;
  const float* b = nullptr;
  float* out = nullptr;
  /// Layout conversions and channel shuffle: an [n][c][hw] <-> [n][hw][c]
  /// copy (the shuffle: pixels as n, [groups][C / groups] transposed).
  std::int64_t n = 0, c = 0, hw = 0;
  bool to_nhwc = false;
  std::int64_t perm[kXnnMaxRank] = {};  ///< kTranspose
  /// kStridedSlice: per dim, the first input index and the step.
  std::int64_t start[kXnnMaxRank] = {};
  std::int64_t step[kXnnMaxRank] = {};
  /// kMaxPooling, when max_pool_nhwc_takes it (compile_operator decides).
  MaxPoolShape pool;
  /// kLayerNorm: aligned copies of the blob's scale and bias.
  const float* scale = nullptr;
  const float* bias = nullptr;
  float epsilon = 0;
  /// kBatchMatMul: the GEMM's packing buffers, scratch_floats for each
  /// of `parts`.
  float* scratch = nullptr;
  std::size_t scratch_floats = 0;
  /// 1.6's quantized kinds: the operator (params, operands) and the slots'
  /// descriptors and buffers (the delegate's, which outlive the kernel).
  const ParsedOp* op = nullptr;
  const SlotDesc* slots = nullptr;
  float* const* buffers = nullptr;
  /// kQLookupTable: its 256 bytes.
  const std::uint8_t* table = nullptr;
  /// kQConcatenate: the portable kernel's inputs (physical dims).
  runtime::kernels::QuantConcatInput* concat = nullptr;
  std::int64_t* concat_dims = nullptr;
  /// How many parts a run splits into over the pool (1: one call on the
  /// calling thread), fixed at compile time from the pool's threads and
  /// the work's size. kBatchMatMul splits its batches when there are at
  /// least `parts` of them, otherwise every batch's rows.
  std::uint32_t parts = 1;
};

/// Whether `kind` is one of these operators.
bool is_own_kernel(XnnOpKind kind);

/// Binds op `index` of `program` (validated by the parser) to `buffers`,
/// taking weights and scratch from `memory`; `threads` is the pool's
/// thread count (1 without a pool). kMemoryAllocationFailed when `memory`
/// runs out.
ErrorInfo compile_own_kernel(const ParsedProgram& program, std::uint32_t index,
                             float* const* buffers, std::uint32_t threads,
                             runtime::MemoryAllocator* memory, OwnKernel** out);

/// Runs it, on `pool` (null: the calling thread); the kernel's error if it
/// refuses (it should not: the shapes were checked at parse time).
Error run_own_kernel(const OwnKernel& kernel, pthreadpool_t pool);

}  // namespace glassbox::backends::xnnpack

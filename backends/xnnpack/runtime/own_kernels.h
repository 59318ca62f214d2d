#pragma once
/// @file
/// The operators of format 1.4 that XNNPACK 2022 lacks (transpose, batch
/// matmul, layer norm, erf), run inside the delegate by Glassbox's portable
/// kernels (glassbox/runtime/kernels), so that a transformer stays in one
/// delegate: no partition border, no framework events, no portable kernel
/// call per operator. Single-threaded, as the portable kernels are.

#include <cstddef>
#include <cstdint>

#include "backends/xnnpack/runtime/program_parser.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends::xnnpack {

/// One such operator, bound at init to its slot buffers.
struct OwnKernel {
  XnnOpKind kind = XnnOpKind::kErf;
  const float* a = nullptr;
  const float* b = nullptr;  ///< kBatchMatMul's second operand
  float* out = nullptr;
  std::uint8_t rank = 0;
  std::int64_t a_dims[kXnnMaxRank] = {};
  std::int64_t b_dims[kXnnMaxRank] = {};
  std::int64_t perm[kXnnMaxRank] = {};  ///< kTranspose
  std::int64_t numel = 0;               ///< of `a`
  /// kLayerNorm: aligned copies of the blob's scale and bias.
  const float* scale = nullptr;
  const float* bias = nullptr;
  float epsilon = 0;
  /// kBatchMatMul: the GEMM's packing buffers.
  float* scratch = nullptr;
  std::size_t scratch_floats = 0;
};

/// Whether `kind` is one of these operators.
bool is_own_kernel(XnnOpKind kind);

/// Binds op `index` of `program` (validated by the parser) to `buffers`,
/// taking weights and scratch from `memory`. kMemoryAllocationFailed when
/// that runs out.
ErrorInfo compile_own_kernel(const ParsedProgram& program, std::uint32_t index,
                             float* const* buffers, runtime::MemoryAllocator* memory,
                             OwnKernel** out);

/// Runs it; the kernel's error if it refuses (it should not: the shapes
/// were checked at parse time).
Error run_own_kernel(const OwnKernel& kernel);

}  // namespace glassbox::backends::xnnpack

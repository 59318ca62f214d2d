#pragma once
// The portable kernels' prepare/run pairs, one per op, defined in
// portable_ops_<family>.cc and tabled by op name in kernel_registry.cc, plus
// the checks they share (portable_ops_common.cc). Every prepare writes
// "<op>: <problem>" into the diagnostics when it rejects a call.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/diagnostics.h"
#include "glassbox/runtime/kernel_registry.h"
#include "glassbox/runtime/kernels/elementwise.h"
#include "glassbox/runtime/kernels/shape.h"
#include "glassbox/runtime/tensor.h"

namespace glassbox::runtime::portable {

// Function types: `PrepareFn prepare_relu;` declares the function, so each
// op's signature is spelled once, here.
using PrepareFn = Result<std::size_t>(const KernelArgs&, Diagnostics*);
using RunFn = Error(const KernelArgs&, Span<std::uint8_t>);

// portable_ops_conv_pool.cc
PrepareFn prepare_conv2d, prepare_max_pool2d, prepare_avg_pool2d,
    prepare_global_avg_pool2d;
RunFn run_conv2d, run_max_pool2d, run_avg_pool2d, run_global_avg_pool2d;

// portable_ops_gemm.cc
PrepareFn prepare_linear, prepare_matmul;
RunFn run_linear, run_matmul;

// portable_ops_elementwise.cc: ops with attributes have their own pair; the
// plain one-input ops and the broadcasting binary ops share one checker
// each and are instances of the templates below (see kernel_registry.cc).
PrepareFn prepare_clamp, prepare_hardsigmoid;
RunFn run_clamp, run_hardsigmoid;

using UnaryKernel = Error (*)(const float*, float*, std::int64_t);
Result<std::size_t> prepare_unary(const char* op, const KernelArgs& args,
                                  Diagnostics* d);
Error run_unary(UnaryKernel kernel, const KernelArgs& args);
Result<std::size_t> prepare_binary(const char* op, const KernelArgs& args,
                                   Diagnostics* d);
Error run_binary(kernels::BinaryOp op, const KernelArgs& args);

template <const char* kOp>
Result<std::size_t> prepare_unary_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary(kOp, args, d);
}
template <UnaryKernel kKernel>
Error run_unary_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kKernel, args);
}
template <const char* kOp>
Result<std::size_t> prepare_binary_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_binary(kOp, args, d);
}
template <kernels::BinaryOp kOp>
Error run_binary_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_binary(kOp, args);
}

// portable_ops_normalization.cc
PrepareFn prepare_batch_norm, prepare_softmax;
RunFn run_batch_norm, run_softmax;

// portable_ops_shape.cc
PrepareFn prepare_flatten, prepare_reshape, prepare_concat, prepare_transpose;
RunFn run_flatten, run_reshape, run_concat, run_transpose;

// ---- Shared checks (portable_ops_common.cc). Each returns false after
// reporting "<op>: ..." into `d` (which may be null).

/// What a prepare returns once it has reported the details.
inline constexpr ErrorInfo kRejected{Error::kInvalidArgument,
                                     "kernel call rejected (see diagnostics)"};

/// A shape as "[1,16,32,32]" (truncated with "..." if very long).
struct ShapeText {
  char text[96];
};
ShapeText shape_text(Span<const std::int64_t> shape);

/// Input count in [min_inputs, max_inputs], exactly one output, and every
/// tensor float32 with sizes >= 0, data for every element and no sizes
/// whose product overflows.
bool check_signature(const char* op, const KernelArgs& args,
                     std::size_t min_inputs, std::size_t max_inputs,
                     Diagnostics* d);

/// The output's sizes equal `expected`.
bool check_output_shape(const char* op, const KernelArgs& args,
                        Span<const std::int64_t> expected, Diagnostics* d);

/// Input `index` has `rank` dimensions; `what` names it ("weight").
bool check_rank(const char* op, const KernelArgs& args, std::size_t index,
                const char* what, std::size_t rank, Diagnostics* d);

/// Input `index` has exactly the sizes `expected`.
bool check_input_shape(const char* op, const KernelArgs& args,
                       std::size_t index, const char* what,
                       Span<const std::int64_t> expected, Diagnostics* d);

/// Which inputs may share the output's buffer (start at the same byte);
/// any other overlap of output and input bytes is rejected.
enum class InPlace : std::uint8_t {
  kNever,
  kSameShape,  ///< An input of the output's exact shape (element-wise ops).
  kAlways,     ///< Any input (reshape/flatten, where it means "no copy").
};
bool check_no_overlap(const char* op, const KernelArgs& args, InPlace in_place,
                      Diagnostics* d);

/// The four attribute readers below report a wrong kind or range.
bool read_int(const char* op, const KernelArgs& args, const char* name,
              std::int64_t fallback, std::int64_t* value, Diagnostics* d);
/// Reads a Float (or Int) and converts it to float, saturating to +-inf.
bool read_float(const char* op, const KernelArgs& args, const char* name,
                double fallback, float* value, Diagnostics* d);
bool read_ints(const char* op, const KernelArgs& args, const char* name,
               Span<const std::int64_t>* value, Diagnostics* d);
/// An int[2] ({h, w}) attribute, {fallback, fallback} when absent, each
/// entry in [min, INT32_MAX].
bool read_pair(const char* op, const KernelArgs& args, const char* name,
               std::int64_t fallback, std::int64_t min, std::int64_t* h,
               std::int64_t* w, Diagnostics* d);

/// Zero padding from "padding": absent = 0; [h, w] pads both sides
/// symmetrically (the AOT emitter); [top, left, bottom, right] is ONNX's
/// "pads" order. Entries in [0, INT32_MAX].
struct Padding {
  std::int64_t top = 0;
  std::int64_t left = 0;
  std::int64_t bottom = 0;
  std::int64_t right = 0;
};
bool read_padding(const char* op, const KernelArgs& args, Padding* padding,
                  Diagnostics* d);

/// Sizes of a rank-4 tensor.
kernels::Shape4 shape4(const Tensor& t);

/// Scratch handed to `run` (64-byte aligned), viewed as floats.
inline Span<float> float_scratch(Span<std::uint8_t> scratch) {
  return {reinterpret_cast<float*>(scratch.data()),
          scratch.size() / sizeof(float)};
}

}  // namespace glassbox::runtime::portable

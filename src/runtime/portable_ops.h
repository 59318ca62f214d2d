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
#include "glassbox/runtime/kernels/elementwise_ext.h"
#include "glassbox/runtime/kernels/reduce.h"
#include "glassbox/runtime/kernels/shape.h"
#include "glassbox/runtime/tensor.h"

namespace glassbox::runtime::portable {

// Function types: `PrepareFn prepare_relu;` declares the function, so each
// op's signature is spelled once, here.
using PrepareFn = Result<std::size_t>(const KernelArgs&, Diagnostics*);
using RunFn = Error(const KernelArgs&, Span<std::uint8_t>);

// portable_ops_conv_pool.cc
PrepareFn prepare_conv2d, prepare_max_pool2d, prepare_avg_pool2d, prepare_global_avg_pool2d;
RunFn run_conv2d, run_max_pool2d, run_avg_pool2d, run_global_avg_pool2d;

// portable_ops_conv_pool_nd.cc: the 1-D and 3-D forms.
PrepareFn prepare_conv1d, prepare_conv3d, prepare_conv_transpose3d, prepare_max_pool1d,
    prepare_max_pool3d, prepare_avg_pool1d, prepare_avg_pool3d;
RunFn run_conv1d, run_conv3d, run_conv_transpose3d, run_max_pool1d, run_max_pool3d, run_avg_pool1d,
    run_avg_pool3d;

// portable_ops_gemm.cc
PrepareFn prepare_linear, prepare_matmul;
RunFn run_linear, run_matmul;

// portable_ops_elementwise.cc: ops with attributes have their own pair; the
// plain one-input float ops share one checker and are instances of the
// templates below (see kernel_registry.cc).
PrepareFn prepare_clamp, prepare_hardsigmoid;
RunFn run_clamp, run_hardsigmoid;

using UnaryKernel = Error (*)(const float*, float*, std::int64_t);
Result<std::size_t> prepare_unary(const char* op, const KernelArgs& args, Diagnostics* d);
Error run_unary(UnaryKernel kernel, const KernelArgs& args);

template <const char* kOp>
Result<std::size_t> prepare_unary_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_unary(kOp, args, d);
}
template <UnaryKernel kKernel>
Error run_unary_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_unary(kKernel, args);
}

// portable_ops_math.cc
PrepareFn prepare_gelu, prepare_logical_not, prepare_where, prepare_cast;
RunFn run_gelu, run_logical_not, run_where, run_cast;

/// leaky_relu, elu and selu (alpha, and gamma for selu), by op name.
Result<std::size_t> prepare_activation(const char* op, const KernelArgs& args, Diagnostics* d);
Error run_activation(const char* op, const KernelArgs& args);
template <const char* kOp>
Result<std::size_t> prepare_activation_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_activation(kOp, args, d);
}
template <const char* kOp>
Error run_activation_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_activation(kOp, args);
}

/// Which dtypes a broadcasting two-input op takes and gives.
enum class Operands : std::uint8_t {
  kArithmetic,  ///< float or int64, the output alike
  kFloat,       ///< float only
  kCompare,     ///< float or int64; the output bool
  kLogical,     ///< bool; the output bool
};
struct BroadcastOp {
  const char* name;
  kernels::ElementwiseOp op;  ///< kMod reads attribute fmod (1: kFmod).
  Operands operands;
};
Result<std::size_t> prepare_broadcast(const BroadcastOp& op, const KernelArgs& args,
                                      Diagnostics* d);
Error run_broadcast(const BroadcastOp& op, const KernelArgs& args);
template <const BroadcastOp& kOp>
Result<std::size_t> prepare_broadcast_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_broadcast(kOp, args, d);
}
template <const BroadcastOp& kOp>
Error run_broadcast_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_broadcast(kOp, args);
}

// portable_ops_normalization.cc
PrepareFn prepare_batch_norm, prepare_softmax;
RunFn run_batch_norm, run_softmax;

// portable_ops_reduce.cc: reduce_* by op name and kernel op; argmax/argmin;
// layer_norm; instance_norm and group_norm by op name.
Result<std::size_t> prepare_reduce(const char* op, const KernelArgs& args, Diagnostics* d);
Error run_reduce(kernels::ReduceOp op, const char* name, const KernelArgs& args);
template <const char* kOp>
Result<std::size_t> prepare_reduce_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_reduce(kOp, args, d);
}
template <const char* kOp, kernels::ReduceOp kReduce>
Error run_reduce_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_reduce(kReduce, kOp, args);
}
Result<std::size_t> prepare_arg_reduce(const char* op, const KernelArgs& args, Diagnostics* d);
Error run_arg_reduce(bool is_max, const char* name, const KernelArgs& args);
template <const char* kOp>
Result<std::size_t> prepare_arg_reduce_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_arg_reduce(kOp, args, d);
}
template <const char* kOp, bool kIsMax>
Error run_arg_reduce_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_arg_reduce(kIsMax, kOp, args);
}
PrepareFn prepare_layer_norm;
RunFn run_layer_norm;
Result<std::size_t> prepare_channel_norm(const char* op, const KernelArgs& args, Diagnostics* d);
Error run_channel_norm(const char* op, const KernelArgs& args);
template <const char* kOp>
Result<std::size_t> prepare_channel_norm_op(const KernelArgs& args, Diagnostics* d) {
  return prepare_channel_norm(kOp, args, d);
}
template <const char* kOp>
Error run_channel_norm_op(const KernelArgs& args, Span<std::uint8_t>) {
  return run_channel_norm(kOp, args);
}

// portable_ops_data.cc
PrepareFn prepare_pad, prepare_expand, prepare_tile, prepare_slice, prepare_gather,
    prepare_gather_elements, prepare_scatter_nd, prepare_resize, prepare_depth_to_space,
    prepare_space_to_depth, prepare_conv_transpose2d;
RunFn run_pad, run_expand, run_tile, run_slice, run_gather, run_gather_elements, run_scatter_nd,
    run_resize, run_depth_to_space, run_space_to_depth, run_conv_transpose2d;

// portable_ops_quantized.cc
PrepareFn prepare_quantize_linear, prepare_dequantize_linear;
RunFn run_quantize_linear, run_dequantize_linear;

// portable_ops_recurrent.cc: the several-output recurrent layers.
PrepareFn prepare_lstm, prepare_gru, prepare_rnn;
RunFn run_lstm, run_gru, run_rnn;

// portable_ops_scan.cc: cumsum (float or int64).
PrepareFn prepare_cumsum;
RunFn run_cumsum;

// portable_ops_roi_align.cc: roi_align (ONNX RoiAlign).
PrepareFn prepare_roi_align;
RunFn run_roi_align;

// portable_ops_unique.cc: unique (ONNX Unique; three outputs sized by data).
PrepareFn prepare_unique;
RunFn run_unique;

// portable_ops_dynamic.cc: outputs sized by data (Tensor::resize).
PrepareFn prepare_non_zero, prepare_top_k, prepare_non_max_suppression;
RunFn run_non_zero, run_top_k, run_non_max_suppression;

// portable_ops_shape_of.cc: shape arithmetic on values sized by data.
PrepareFn prepare_shape, prepare_full_like;
RunFn run_shape, run_full_like;

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
bool check_signature(const char* op, const KernelArgs& args, std::size_t min_inputs,
                     std::size_t max_inputs, Diagnostics* d);

/// check_signature for ops that move or compare tensors of other dtypes:
/// each tensor is FLOAT, LONG, INT, CHAR (int8), BYTE (uint8) or BOOL with bytes for its elements.
/// The op checks which dtype goes where (check_dtype).
bool check_typed_signature(const char* op, const KernelArgs& args, std::size_t min_inputs,
                           std::size_t max_inputs, Diagnostics* d);

/// `t` (named `what`: "input 1", "output") has dtype `expected`.
bool check_dtype(const char* op, const Tensor& t, const char* what, ScalarType expected,
                 Diagnostics* d);

/// Every input and the output have rank <= kernels::kMaxDims.
bool check_rank_limit(const char* op, const KernelArgs& args, Diagnostics* d);

/// The output's sizes equal `expected`.
bool check_output_shape(const char* op, const KernelArgs& args, Span<const std::int64_t> expected,
                        Diagnostics* d);

/// Input `index` has `rank` dimensions; `what` names it ("weight").
bool check_rank(const char* op, const KernelArgs& args, std::size_t index, const char* what,
                std::size_t rank, Diagnostics* d);

/// Input `index` has exactly the sizes `expected`.
bool check_input_shape(const char* op, const KernelArgs& args, std::size_t index, const char* what,
                       Span<const std::int64_t> expected, Diagnostics* d);

/// Which inputs may share the output's buffer (start at the same byte);
/// any other overlap of output and input bytes is rejected.
enum class InPlace : std::uint8_t {
  kNever,
  kSameShape,  ///< An input of the output's exact shape (element-wise ops).
  kAlways,     ///< Any input (reshape/flatten, where it means "no copy").
};
bool check_no_overlap(const char* op, const KernelArgs& args, InPlace in_place, Diagnostics* d);

/// The four attribute readers below report a wrong kind or range.
bool read_int(const char* op, const KernelArgs& args, const char* name, std::int64_t fallback,
              std::int64_t* value, Diagnostics* d);
/// Reads a Float (or Int) and converts it to float, saturating to +-inf.
bool read_float(const char* op, const KernelArgs& args, const char* name, double fallback,
                float* value, Diagnostics* d);
bool read_ints(const char* op, const KernelArgs& args, const char* name,
               Span<const std::int64_t>* value, Diagnostics* d);
/// A string attribute that must be one of `choices` (the first is the
/// default when absent); `*index` is its position.
bool read_choice(const char* op, const KernelArgs& args, const char* name,
                 Span<const char* const> choices, std::size_t* index, Diagnostics* d);
/// An int[2] ({h, w}) attribute, {fallback, fallback} when absent, each
/// entry in [min, INT32_MAX].
bool read_pair(const char* op, const KernelArgs& args, const char* name, std::int64_t fallback,
               std::int64_t min, std::int64_t* h, std::int64_t* w, Diagnostics* d);

/// An int[n] attribute (n spatial dims) into out[0..n): all `fallback`
/// when absent, else each entry in [min, INT32_MAX].
bool read_spatial(const char* op, const KernelArgs& args, const char* name, std::size_t n,
                  std::int64_t fallback, std::int64_t min, std::int64_t* out, Diagnostics* d);
/// "padding" of n spatial dims into begin[0..n) and end[0..n): absent = 0,
/// n entries pad both sides alike, 2n are the begins then the ends.
bool read_spatial_padding(const char* op, const KernelArgs& args, std::size_t n,
                          std::int64_t* begin, std::int64_t* end, Diagnostics* d);

/// Zero padding from "padding": absent = 0; [h, w] pads both sides
/// symmetrically (the AOT emitter); [top, left, bottom, right] is ONNX's
/// "pads" order. Entries in [0, INT32_MAX].
struct Padding {
  std::int64_t top = 0;
  std::int64_t left = 0;
  std::int64_t bottom = 0;
  std::int64_t right = 0;
};
bool read_padding(const char* op, const KernelArgs& args, Padding* padding, Diagnostics* d);

/// Sizes of a rank-4 tensor.
kernels::Shape4 shape4(const Tensor& t);

/// Scratch handed to `run` (64-byte aligned), viewed as floats.
inline Span<float> float_scratch(Span<std::uint8_t> scratch) {
  return {reinterpret_cast<float*>(scratch.data()), scratch.size() / sizeof(float)};
}

}  // namespace glassbox::runtime::portable

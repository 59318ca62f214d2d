#pragma once
/// @file
/// The operator set of the graph IR: names, attributes and type inference.
/// Layout is NCHW. Every op has exactly one output; all tensor inputs of an
/// op share one dtype, which is also the output's.
///
/// | op                 | inputs                          | attributes                                   |
/// |--------------------|---------------------------------|----------------------------------------------|
/// | conv2d             | x[N,C,H,W], w[O,C/g,kH,kW], b[O]? | stride, dilation (int[2]), padding (int[2], or int[4] top,left,bottom,right), groups |
/// | relu sigmoid hardswish tan sin cos | x               | -                                            |
/// | clamp              | x                               | min?, max? (float, min <= max; absent = unbounded) |
/// | hardsigmoid        | x                               | alpha, beta (float): max(0, min(1, alpha*x+beta)) |
/// | add sub mul div    | a, b (broadcast, numpy rules)   | -                                            |
/// | linear             | x[...,in], w[out,in], b[out]?   | -                                            |
/// | matmul             | a[...,m,k], b[...,k,n]          | - (batch dims broadcast)                     |
/// | max_pool2d avg_pool2d | x[N,C,H,W]                   | kernel, stride (int[2]), padding (int[2] with PyTorch's "at most half the kernel", or int[4] top,left,bottom,right, each smaller than the window); optional ceil_mode (0/1, default 0: round down); max only: optional dilation (int[2]); avg only: optional count_include_pad (0/1, default 1 as PyTorch; ONNX's default is 0) |
/// | global_avg_pool2d  | x[N,C,H,W] -> [N,C,1,1]         | -                                            |
/// | batch_norm         | x[N,C,...], mean, var, weight, bias (all [C]) | eps (float)                    |
/// | flatten            | x                               | start_dim, end_dim (int, may be negative)    |
/// | reshape            | x                               | shape (int list, at most one -1)             |
/// | concat             | x0, x1, ... (at least one)      | axis (int, may be negative)                  |
/// | softmax            | x                               | axis (int, may be negative)                  |
/// | transpose          | x                               | perm (int list, a permutation of the dims)   |
///
/// `delegate_call` is not in this table: its output types are whatever the
/// lowered subgraph produced, so they are declared, not inferred.

#include <span>
#include <string_view>
#include <vector>

#include "glassbox/aot/graph.h"

namespace glassbox::aot {

/// Op names, so that code never spells them twice.
namespace op {
inline constexpr std::string_view kConv2d = "conv2d";
inline constexpr std::string_view kRelu = "relu";
inline constexpr std::string_view kClamp = "clamp";
inline constexpr std::string_view kSigmoid = "sigmoid";
inline constexpr std::string_view kHardswish = "hardswish";
inline constexpr std::string_view kTan = "tan";
inline constexpr std::string_view kSin = "sin";
inline constexpr std::string_view kCos = "cos";
inline constexpr std::string_view kAdd = "add";
inline constexpr std::string_view kSub = "sub";
inline constexpr std::string_view kMul = "mul";
inline constexpr std::string_view kDiv = "div";
inline constexpr std::string_view kLinear = "linear";
inline constexpr std::string_view kMatmul = "matmul";
inline constexpr std::string_view kMaxPool2d = "max_pool2d";
inline constexpr std::string_view kAvgPool2d = "avg_pool2d";
inline constexpr std::string_view kGlobalAvgPool2d = "global_avg_pool2d";
inline constexpr std::string_view kBatchNorm = "batch_norm";
inline constexpr std::string_view kFlatten = "flatten";
inline constexpr std::string_view kReshape = "reshape";
inline constexpr std::string_view kConcat = "concat";
inline constexpr std::string_view kSoftmax = "softmax";
inline constexpr std::string_view kHardsigmoid = "hardsigmoid";
inline constexpr std::string_view kTranspose = "transpose";
inline constexpr std::string_view kDelegateCall = "delegate_call";
}  // namespace op

/// A value's type: element type and static shape.
struct TensorType {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<std::int64_t> shape;
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

/// Whether `name` is an op of the table above (delegate_call is not).
bool is_known_op(std::string_view name);

/// The output type of `op_name` applied to inputs of `input_types` with
/// `attributes`. Errors (kInvalidArgument) say what is wrong without naming
/// the node; callers add that context.
StatusOr<TensorType> infer_output_type(std::string_view op_name,
                                       std::span<const TensorType> input_types,
                                       const AttributeMap& attributes);

}  // namespace glassbox::aot

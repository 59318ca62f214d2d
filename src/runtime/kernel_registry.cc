#include "glassbox/runtime/kernel_registry.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "program_generated.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime {
namespace {

// Op names that also instantiate the shared prepare/run templates (a
// template argument needs an object with a name).
constexpr char kOpRelu[] = "relu";
constexpr char kOpSigmoid[] = "sigmoid";
constexpr char kOpHardswish[] = "hardswish";
constexpr char kOpTan[] = "tan";
constexpr char kOpSin[] = "sin";
constexpr char kOpCos[] = "cos";
constexpr char kOpErf[] = "erf";
constexpr char kOpTanh[] = "tanh";
constexpr char kOpExp[] = "exp";
constexpr char kOpLog[] = "log";
constexpr char kOpNeg[] = "neg";
constexpr char kOpAbs[] = "abs";
constexpr char kOpSqrt[] = "sqrt";
constexpr char kOpReciprocal[] = "reciprocal";
constexpr char kOpSign[] = "sign";
constexpr char kOpFloor[] = "floor";
constexpr char kOpCeil[] = "ceil";
constexpr char kOpRound[] = "round";
constexpr char kOpSoftplus[] = "softplus";
constexpr char kOpSoftsign[] = "softsign";
constexpr char kOpLeakyRelu[] = "leaky_relu";
constexpr char kOpElu[] = "elu";
constexpr char kOpSelu[] = "selu";
constexpr char kOpReduceMean[] = "reduce_mean";
constexpr char kOpReduceSum[] = "reduce_sum";
constexpr char kOpReduceMax[] = "reduce_max";
constexpr char kOpReduceMin[] = "reduce_min";
constexpr char kOpReduceProd[] = "reduce_prod";
constexpr char kOpReduceL1[] = "reduce_l1";
constexpr char kOpReduceL2[] = "reduce_l2";
constexpr char kOpReduceSumSquare[] = "reduce_sum_square";
constexpr char kOpReduceLogSumExp[] = "reduce_log_sum_exp";
constexpr char kOpArgmax[] = "argmax";
constexpr char kOpArgmin[] = "argmin";
constexpr char kOpInstanceNorm[] = "instance_norm";
constexpr char kOpGroupNorm[] = "group_norm";

// The broadcasting ops: name, kernel op and the dtypes they take.
constexpr portable::BroadcastOp kAddOp{"add", kernels::ElementwiseOp::kAdd,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kSubOp{"sub", kernels::ElementwiseOp::kSub,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kMulOp{"mul", kernels::ElementwiseOp::kMul,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kDivOp{"div", kernels::ElementwiseOp::kDiv,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kMinOp{"min", kernels::ElementwiseOp::kMin,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kMaxOp{"max", kernels::ElementwiseOp::kMax,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kModOp{"mod", kernels::ElementwiseOp::kMod,
                                       portable::Operands::kArithmetic};
constexpr portable::BroadcastOp kPowOp{"pow", kernels::ElementwiseOp::kPow,
                                       portable::Operands::kFloat};
constexpr portable::BroadcastOp kPreluOp{"prelu", kernels::ElementwiseOp::kPrelu,
                                         portable::Operands::kFloat};
constexpr portable::BroadcastOp kEqualOp{"equal", kernels::ElementwiseOp::kEqual,
                                         portable::Operands::kCompare};
constexpr portable::BroadcastOp kLessOp{"less", kernels::ElementwiseOp::kLess,
                                        portable::Operands::kCompare};
constexpr portable::BroadcastOp kGreaterOp{"greater", kernels::ElementwiseOp::kGreater,
                                           portable::Operands::kCompare};
constexpr portable::BroadcastOp kLessEqualOp{"less_equal", kernels::ElementwiseOp::kLessOrEqual,
                                             portable::Operands::kCompare};
constexpr portable::BroadcastOp kGreaterEqualOp{
    "greater_equal", kernels::ElementwiseOp::kGreaterOrEqual, portable::Operands::kCompare};
constexpr portable::BroadcastOp kLogicalAndOp{"logical_and", kernels::ElementwiseOp::kAnd,
                                              portable::Operands::kLogical};
constexpr portable::BroadcastOp kLogicalOrOp{"logical_or", kernels::ElementwiseOp::kOr,
                                             portable::Operands::kLogical};
constexpr portable::BroadcastOp kLogicalXorOp{"logical_xor", kernels::ElementwiseOp::kXor,
                                              portable::Operands::kLogical};

// Sorted by op name (checked below) for the binary search in find_kernel.
constexpr std::array kKernels = {
    Kernel{kOpAbs, portable::prepare_unary_op<kOpAbs>, portable::run_unary_op<kernels::abs>},
    Kernel{"add", portable::prepare_broadcast_op<kAddOp>, portable::run_broadcast_op<kAddOp>},
    Kernel{kOpArgmax, portable::prepare_arg_reduce_op<kOpArgmax>,
           portable::run_arg_reduce_op<kOpArgmax, true>},
    Kernel{kOpArgmin, portable::prepare_arg_reduce_op<kOpArgmin>,
           portable::run_arg_reduce_op<kOpArgmin, false>},
    Kernel{"avg_pool1d", portable::prepare_avg_pool1d, portable::run_avg_pool1d},
    Kernel{"avg_pool2d", portable::prepare_avg_pool2d, portable::run_avg_pool2d},
    Kernel{"avg_pool3d", portable::prepare_avg_pool3d, portable::run_avg_pool3d},
    Kernel{"batch_norm", portable::prepare_batch_norm, portable::run_batch_norm},
    Kernel{"cast", portable::prepare_cast, portable::run_cast},
    Kernel{kOpCeil, portable::prepare_unary_op<kOpCeil>, portable::run_unary_op<kernels::ceil>},
    Kernel{"clamp", portable::prepare_clamp, portable::run_clamp},
    Kernel{"concat", portable::prepare_concat, portable::run_concat},
    Kernel{"conv1d", portable::prepare_conv1d, portable::run_conv1d},
    Kernel{"conv2d", portable::prepare_conv2d, portable::run_conv2d},
    Kernel{"conv3d", portable::prepare_conv3d, portable::run_conv3d},
    Kernel{"conv_transpose2d", portable::prepare_conv_transpose2d, portable::run_conv_transpose2d},
    Kernel{"conv_transpose3d", portable::prepare_conv_transpose3d, portable::run_conv_transpose3d},
    Kernel{kOpCos, portable::prepare_unary_op<kOpCos>, portable::run_unary_op<kernels::cos>},
    Kernel{"cumsum", portable::prepare_cumsum, portable::run_cumsum},
    Kernel{"depth_to_space", portable::prepare_depth_to_space, portable::run_depth_to_space},
    Kernel{"dequantize_linear", portable::prepare_dequantize_linear,
           portable::run_dequantize_linear},
    Kernel{"div", portable::prepare_broadcast_op<kDivOp>, portable::run_broadcast_op<kDivOp>},
    Kernel{kOpElu, portable::prepare_activation_op<kOpElu>, portable::run_activation_op<kOpElu>},
    Kernel{"equal", portable::prepare_broadcast_op<kEqualOp>, portable::run_broadcast_op<kEqualOp>},
    Kernel{kOpErf, portable::prepare_unary_op<kOpErf>, portable::run_unary_op<kernels::erf>},
    Kernel{kOpExp, portable::prepare_unary_op<kOpExp>, portable::run_unary_op<kernels::exp>},
    Kernel{"expand", portable::prepare_expand, portable::run_expand},
    Kernel{"flatten", portable::prepare_flatten, portable::run_flatten},
    Kernel{kOpFloor, portable::prepare_unary_op<kOpFloor>, portable::run_unary_op<kernels::floor>},
    Kernel{"full_like", portable::prepare_full_like, portable::run_full_like},
    Kernel{"gather", portable::prepare_gather, portable::run_gather},
    Kernel{"gather_elements", portable::prepare_gather_elements, portable::run_gather_elements},
    Kernel{"gelu", portable::prepare_gelu, portable::run_gelu},
    Kernel{"global_avg_pool2d", portable::prepare_global_avg_pool2d,
           portable::run_global_avg_pool2d},
    Kernel{"greater", portable::prepare_broadcast_op<kGreaterOp>,
           portable::run_broadcast_op<kGreaterOp>},
    Kernel{"greater_equal", portable::prepare_broadcast_op<kGreaterEqualOp>,
           portable::run_broadcast_op<kGreaterEqualOp>},
    Kernel{kOpGroupNorm, portable::prepare_channel_norm_op<kOpGroupNorm>,
           portable::run_channel_norm_op<kOpGroupNorm>},
    Kernel{"gru", portable::prepare_gru, portable::run_gru},
    Kernel{"hardsigmoid", portable::prepare_hardsigmoid, portable::run_hardsigmoid},
    Kernel{kOpHardswish, portable::prepare_unary_op<kOpHardswish>,
           portable::run_unary_op<kernels::hardswish>},
    Kernel{kOpInstanceNorm, portable::prepare_channel_norm_op<kOpInstanceNorm>,
           portable::run_channel_norm_op<kOpInstanceNorm>},
    Kernel{"layer_norm", portable::prepare_layer_norm, portable::run_layer_norm},
    Kernel{kOpLeakyRelu, portable::prepare_activation_op<kOpLeakyRelu>,
           portable::run_activation_op<kOpLeakyRelu>},
    Kernel{"less", portable::prepare_broadcast_op<kLessOp>, portable::run_broadcast_op<kLessOp>},
    Kernel{"less_equal", portable::prepare_broadcast_op<kLessEqualOp>,
           portable::run_broadcast_op<kLessEqualOp>},
    Kernel{"linear", portable::prepare_linear, portable::run_linear},
    Kernel{kOpLog, portable::prepare_unary_op<kOpLog>, portable::run_unary_op<kernels::log>},
    Kernel{"logical_and", portable::prepare_broadcast_op<kLogicalAndOp>,
           portable::run_broadcast_op<kLogicalAndOp>},
    Kernel{"logical_not", portable::prepare_logical_not, portable::run_logical_not},
    Kernel{"logical_or", portable::prepare_broadcast_op<kLogicalOrOp>,
           portable::run_broadcast_op<kLogicalOrOp>},
    Kernel{"logical_xor", portable::prepare_broadcast_op<kLogicalXorOp>,
           portable::run_broadcast_op<kLogicalXorOp>},
    Kernel{"lstm", portable::prepare_lstm, portable::run_lstm},
    Kernel{"matmul", portable::prepare_matmul, portable::run_matmul},
    Kernel{"max", portable::prepare_broadcast_op<kMaxOp>, portable::run_broadcast_op<kMaxOp>},
    Kernel{"max_pool1d", portable::prepare_max_pool1d, portable::run_max_pool1d},
    Kernel{"max_pool2d", portable::prepare_max_pool2d, portable::run_max_pool2d},
    Kernel{"max_pool3d", portable::prepare_max_pool3d, portable::run_max_pool3d},
    Kernel{"min", portable::prepare_broadcast_op<kMinOp>, portable::run_broadcast_op<kMinOp>},
    Kernel{"mod", portable::prepare_broadcast_op<kModOp>, portable::run_broadcast_op<kModOp>},
    Kernel{"mul", portable::prepare_broadcast_op<kMulOp>, portable::run_broadcast_op<kMulOp>},
    Kernel{kOpNeg, portable::prepare_unary_op<kOpNeg>, portable::run_unary_op<kernels::neg>},
    Kernel{"non_max_suppression", portable::prepare_non_max_suppression,
           portable::run_non_max_suppression},
    Kernel{"non_zero", portable::prepare_non_zero, portable::run_non_zero},
    Kernel{"pad", portable::prepare_pad, portable::run_pad},
    Kernel{"pow", portable::prepare_broadcast_op<kPowOp>, portable::run_broadcast_op<kPowOp>},
    Kernel{"prelu", portable::prepare_broadcast_op<kPreluOp>, portable::run_broadcast_op<kPreluOp>},
    Kernel{"quantize_linear", portable::prepare_quantize_linear, portable::run_quantize_linear},
    Kernel{kOpReciprocal, portable::prepare_unary_op<kOpReciprocal>,
           portable::run_unary_op<kernels::reciprocal>},
    Kernel{kOpReduceL1, portable::prepare_reduce_op<kOpReduceL1>,
           portable::run_reduce_op<kOpReduceL1, kernels::ReduceOp::kL1>},
    Kernel{kOpReduceL2, portable::prepare_reduce_op<kOpReduceL2>,
           portable::run_reduce_op<kOpReduceL2, kernels::ReduceOp::kL2>},
    Kernel{kOpReduceLogSumExp, portable::prepare_reduce_op<kOpReduceLogSumExp>,
           portable::run_reduce_op<kOpReduceLogSumExp, kernels::ReduceOp::kLogSumExp>},
    Kernel{kOpReduceMax, portable::prepare_reduce_op<kOpReduceMax>,
           portable::run_reduce_op<kOpReduceMax, kernels::ReduceOp::kMax>},
    Kernel{kOpReduceMean, portable::prepare_reduce_op<kOpReduceMean>,
           portable::run_reduce_op<kOpReduceMean, kernels::ReduceOp::kMean>},
    Kernel{kOpReduceMin, portable::prepare_reduce_op<kOpReduceMin>,
           portable::run_reduce_op<kOpReduceMin, kernels::ReduceOp::kMin>},
    Kernel{kOpReduceProd, portable::prepare_reduce_op<kOpReduceProd>,
           portable::run_reduce_op<kOpReduceProd, kernels::ReduceOp::kProd>},
    Kernel{kOpReduceSum, portable::prepare_reduce_op<kOpReduceSum>,
           portable::run_reduce_op<kOpReduceSum, kernels::ReduceOp::kSum>},
    Kernel{kOpReduceSumSquare, portable::prepare_reduce_op<kOpReduceSumSquare>,
           portable::run_reduce_op<kOpReduceSumSquare, kernels::ReduceOp::kSumSquare>},
    Kernel{kOpRelu, portable::prepare_unary_op<kOpRelu>, portable::run_unary_op<kernels::relu>},
    Kernel{"reshape", portable::prepare_reshape, portable::run_reshape},
    Kernel{"resize", portable::prepare_resize, portable::run_resize},
    Kernel{"rnn", portable::prepare_rnn, portable::run_rnn},
    Kernel{"roi_align", portable::prepare_roi_align, portable::run_roi_align},
    Kernel{kOpRound, portable::prepare_unary_op<kOpRound>, portable::run_unary_op<kernels::round>},
    Kernel{"scatter_nd", portable::prepare_scatter_nd, portable::run_scatter_nd},
    Kernel{kOpSelu, portable::prepare_activation_op<kOpSelu>, portable::run_activation_op<kOpSelu>},
    Kernel{"shape", portable::prepare_shape, portable::run_shape},
    Kernel{kOpSigmoid, portable::prepare_unary_op<kOpSigmoid>,
           portable::run_unary_op<kernels::sigmoid>},
    Kernel{kOpSign, portable::prepare_unary_op<kOpSign>, portable::run_unary_op<kernels::sign>},
    Kernel{kOpSin, portable::prepare_unary_op<kOpSin>, portable::run_unary_op<kernels::sin>},
    Kernel{"slice", portable::prepare_slice, portable::run_slice},
    Kernel{"softmax", portable::prepare_softmax, portable::run_softmax},
    Kernel{kOpSoftplus, portable::prepare_unary_op<kOpSoftplus>,
           portable::run_unary_op<kernels::softplus>},
    Kernel{kOpSoftsign, portable::prepare_unary_op<kOpSoftsign>,
           portable::run_unary_op<kernels::softsign>},
    Kernel{"space_to_depth", portable::prepare_space_to_depth, portable::run_space_to_depth},
    Kernel{kOpSqrt, portable::prepare_unary_op<kOpSqrt>, portable::run_unary_op<kernels::sqrt>},
    Kernel{"sub", portable::prepare_broadcast_op<kSubOp>, portable::run_broadcast_op<kSubOp>},
    Kernel{kOpTan, portable::prepare_unary_op<kOpTan>, portable::run_unary_op<kernels::tan>},
    Kernel{kOpTanh, portable::prepare_unary_op<kOpTanh>, portable::run_unary_op<kernels::tanh>},
    Kernel{"tile", portable::prepare_tile, portable::run_tile},
    Kernel{"top_k", portable::prepare_top_k, portable::run_top_k},
    Kernel{"transpose", portable::prepare_transpose, portable::run_transpose},
    Kernel{"unique", portable::prepare_unique, portable::run_unique},
    Kernel{"where", portable::prepare_where, portable::run_where},
};

constexpr bool less_op(const Kernel& a, const Kernel& b) {
  return std::string_view(a.op) < std::string_view(b.op);
}
static_assert(std::is_sorted(kKernels.begin(), kKernels.end(), less_op) &&
                  std::adjacent_find(kKernels.begin(), kKernels.end(),
                                     [](const Kernel& a, const Kernel& b) {
                                       return !less_op(a, b);
                                     }) == kKernels.end(),
              "kKernels must be sorted by op name, without duplicates");

}  // namespace

const Kernel* find_kernel(const char* op) {
  if (op == nullptr) return nullptr;
  const std::string_view name(op);
  const auto* it = std::lower_bound(
      kKernels.begin(), kKernels.end(), name,
      [](const Kernel& k, std::string_view n) { return std::string_view(k.op) < n; });
  return it != kKernels.end() && name == it->op ? &*it : nullptr;
}

}  // namespace glassbox::runtime

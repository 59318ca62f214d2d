#include "glassbox/runtime/kernel_registry.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "program_generated.h"
#include "src/runtime/portable_ops.h"

namespace glassbox::runtime {
namespace {

using AttributeVector =
    flatbuffers::Vector<flatbuffers::Offset<gbx::Attribute>>;

// Instructions carry a handful of attributes, so a linear scan beats any
// index we could build without allocating.
const gbx::Attribute* find_attribute(const void* attributes,
                                     std::string_view name) {
  if (attributes == nullptr) return nullptr;
  for (const gbx::Attribute* a :
       *static_cast<const AttributeVector*>(attributes)) {
    if (a != nullptr && a->name() != nullptr &&
        std::string_view(a->name()->c_str(), a->name()->size()) == name) {
      return a;
    }
  }
  return nullptr;
}

constexpr ErrorInfo kWrongKind{Error::kInvalidArgument,
                               "attribute has another kind"};

// Op names that also instantiate the shared elementwise prepare/run
// templates (a template argument needs an object with a name).
constexpr char kOpAdd[] = "add";
constexpr char kOpSub[] = "sub";
constexpr char kOpMul[] = "mul";
constexpr char kOpDiv[] = "div";
constexpr char kOpRelu[] = "relu";
constexpr char kOpSigmoid[] = "sigmoid";
constexpr char kOpHardswish[] = "hardswish";
constexpr char kOpTan[] = "tan";
constexpr char kOpSin[] = "sin";
constexpr char kOpCos[] = "cos";

// Sorted by op name (checked below) for the binary search in find_kernel.
constexpr std::array kKernels = {
    Kernel{kOpAdd, portable::prepare_binary_op<kOpAdd>,
           portable::run_binary_op<kernels::BinaryOp::kAdd>},
    Kernel{"avg_pool2d", portable::prepare_avg_pool2d,
           portable::run_avg_pool2d},
    Kernel{"batch_norm", portable::prepare_batch_norm,
           portable::run_batch_norm},
    Kernel{"clamp", portable::prepare_clamp, portable::run_clamp},
    Kernel{"concat", portable::prepare_concat, portable::run_concat},
    Kernel{"conv2d", portable::prepare_conv2d, portable::run_conv2d},
    Kernel{kOpCos, portable::prepare_unary_op<kOpCos>,
           portable::run_unary_op<kernels::cos>},
    Kernel{kOpDiv, portable::prepare_binary_op<kOpDiv>,
           portable::run_binary_op<kernels::BinaryOp::kDiv>},
    Kernel{"flatten", portable::prepare_flatten, portable::run_flatten},
    Kernel{"global_avg_pool2d", portable::prepare_global_avg_pool2d,
           portable::run_global_avg_pool2d},
    Kernel{"hardsigmoid", portable::prepare_hardsigmoid,
           portable::run_hardsigmoid},
    Kernel{kOpHardswish, portable::prepare_unary_op<kOpHardswish>,
           portable::run_unary_op<kernels::hardswish>},
    Kernel{"linear", portable::prepare_linear, portable::run_linear},
    Kernel{"matmul", portable::prepare_matmul, portable::run_matmul},
    Kernel{"max_pool2d", portable::prepare_max_pool2d,
           portable::run_max_pool2d},
    Kernel{kOpMul, portable::prepare_binary_op<kOpMul>,
           portable::run_binary_op<kernels::BinaryOp::kMul>},
    Kernel{kOpRelu, portable::prepare_unary_op<kOpRelu>,
           portable::run_unary_op<kernels::relu>},
    Kernel{"reshape", portable::prepare_reshape, portable::run_reshape},
    Kernel{kOpSigmoid, portable::prepare_unary_op<kOpSigmoid>,
           portable::run_unary_op<kernels::sigmoid>},
    Kernel{kOpSin, portable::prepare_unary_op<kOpSin>,
           portable::run_unary_op<kernels::sin>},
    Kernel{"softmax", portable::prepare_softmax, portable::run_softmax},
    Kernel{kOpSub, portable::prepare_binary_op<kOpSub>,
           portable::run_binary_op<kernels::BinaryOp::kSub>},
    Kernel{kOpTan, portable::prepare_unary_op<kOpTan>,
           portable::run_unary_op<kernels::tan>},
    Kernel{"transpose", portable::prepare_transpose, portable::run_transpose},
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

Result<std::int64_t> KernelAttributes::get_int(const char* name,
                                               std::int64_t fallback) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return fallback;
  if (a->kind() != gbx::AttributeKind::Int) return kWrongKind;
  return a->int_value();
}

Result<double> KernelAttributes::get_float(const char* name,
                                           double fallback) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return fallback;
  // Exporters write whole-number floats (clamp(min=0)) as ints.
  if (a->kind() == gbx::AttributeKind::Int) {
    return static_cast<double>(a->int_value());
  }
  if (a->kind() != gbx::AttributeKind::Float) return kWrongKind;
  return a->float_value();
}

Result<Span<const std::int64_t>> KernelAttributes::get_ints(
    const char* name) const {
  const gbx::Attribute* a = find_attribute(attributes_, name);
  if (a == nullptr) return Span<const std::int64_t>();
  if (a->kind() != gbx::AttributeKind::Ints) return kWrongKind;
  if (a->ints() == nullptr) return Span<const std::int64_t>();
  return Span<const std::int64_t>(a->ints()->data(), a->ints()->size());
}

const Kernel* find_kernel(const char* op) {
  if (op == nullptr) return nullptr;
  const std::string_view name(op);
  const auto* it = std::lower_bound(kKernels.begin(), kKernels.end(), name,
                                    [](const Kernel& k, std::string_view n) {
                                      return std::string_view(k.op) < n;
                                    });
  return it != kKernels.end() && name == it->op ? &*it : nullptr;
}

}  // namespace glassbox::runtime

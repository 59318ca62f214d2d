#include "frontends/onnx/kernel_folding.h"

#include <cstring>

#include "glassbox/aot/emitter.h"
#include "glassbox/runtime/memory_allocator.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace glassbox::frontends::onnx {
namespace {

Status kernel_error(std::string_view op, const std::string& detail) {
  return Status(Error::kInvalidArgument,
                "folding " + std::string(op) + " on constants failed: " + detail);
}

HostTensor read_output(const runtime::Tensor& t, std::vector<std::int64_t> shape) {
  const auto n = static_cast<std::size_t>(t.numel());
  if (t.dtype == ScalarType::kFloat) {
    std::vector<float> data(n);
    if (n != 0) std::memcpy(data.data(), t.data, n * sizeof(float));
    return HostTensor::of_floats(std::move(shape), std::move(data));
  }
  std::vector<std::int64_t> data(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (t.dtype) {
      case ScalarType::kLong:
        std::memcpy(&data[i], static_cast<const char*>(t.data) + 8 * i, 8);
        break;
      case ScalarType::kInt: {
        std::int32_t v = 0;
        std::memcpy(&v, static_cast<const char*>(t.data) + 4 * i, 4);
        data[i] = v;
        break;
      }
      case ScalarType::kChar: data[i] = static_cast<const std::int8_t*>(t.data)[i]; break;
      case ScalarType::kByte: data[i] = static_cast<const std::uint8_t*>(t.data)[i]; break;
      default: data[i] = static_cast<const std::uint8_t*>(t.data)[i] != 0 ? 1 : 0; break;
    }
  }
  HostTensor out = HostTensor::of_ints(std::move(shape), std::move(data));
  out.is_bool = t.dtype == ScalarType::kBool;
  out.declared_int_type = t.dtype;
  return out;
}

}  // namespace

HostTensor host_tensor_of(const aot::Value& constant) {
  if (constant.dtype == ScalarType::kFloat)
    return HostTensor::of_floats(constant.shape, constant.data);
  HostTensor out = HostTensor::of_ints(constant.shape, constant.int_data);
  out.is_bool = constant.dtype == ScalarType::kBool;
  out.declared_int_type = constant.dtype;
  return out;
}

StatusOr<HostTensor> evaluate_with_kernels(std::string_view op,
                                           std::span<const aot::Value* const> inputs,
                                           const aot::AttributeMap& attributes,
                                           const aot::TensorType& out) {
  // A one-node program: the constants, the node, its output.
  aot::Graph graph;
  aot::Node node;
  node.name = "fold";
  node.op = std::string(op);
  node.attributes = attributes;
  for (const aot::Value* input : inputs) {
    aot::Value v = *input;
    v.id = aot::ValueId(static_cast<std::int32_t>(graph.values.size()));
    v.name = "in" + std::to_string(graph.values.size());
    node.inputs.push_back(v.id);
    graph.values.push_back(std::move(v));
  }
  aot::Value result;
  result.id = aot::ValueId(static_cast<std::int32_t>(graph.values.size()));
  result.name = "out";
  result.dtype = out.dtype;
  result.shape = out.shape;
  result.dynamic = out.dynamic;
  node.outputs.push_back(result.id);
  graph.outputs.push_back(result.id);
  graph.values.push_back(std::move(result));
  graph.nodes.push_back(std::move(node));

  StatusOr<aot::EmitResult> emitted = aot::emit(graph);
  if (!emitted.ok()) return kernel_error(op, emitted.message());
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(emitted->program, &diag);
  if (!program.ok()) return kernel_error(op, diag.message);
  runtime::MemoryAllocator memory;
  runtime::MemoryAllocator temp;
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &memory, &temp, nullptr, &diag);
  if (!method.ok()) return kernel_error(op, diag.message);
  if (method->execute(&diag) != Error::kOk) return kernel_error(op, diag.message);
  // A dynamic output (non_zero of a constant) has its actual sizes now.
  const runtime::Tensor& output = method->output(0);
  return read_output(output, std::vector<std::int64_t>(output.sizes.begin(), output.sizes.end()));
}

}  // namespace glassbox::frontends::onnx

#include "frontends/onnx/import_context.h"

#include <onnx/onnx_pb.h>

#include "frontends/onnx/kernel_folding.h"

namespace glassbox::frontends::onnx {

using aot::ValueId;

const Operand* ImportContext::lookup(const std::string& name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : &it->second;
}

void ImportContext::begin_node(const ::onnx::NodeProto& node, int index) {
  node_ = &node;
  label_ = source_ + ": " + describe_node(node, index);
  const std::string name =
      node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  writer_->begin_source(name, node.op_type());
  value_prefix_ = node.output_size() > 0 && !node.output(0).empty() ? node.output(0) : name;
}

std::size_t ImportContext::num_inputs() const {
  return static_cast<std::size_t>(node_->input_size());
}

bool ImportContext::has_input(std::size_t i) const {
  return i < num_inputs() && !node_->input(static_cast<int>(i)).empty();
}

bool ImportContext::has_output(std::size_t i) const {
  return static_cast<int>(i) < node_->output_size() && !node_->output(static_cast<int>(i)).empty();
}

StatusOr<const Operand*> ImportContext::input(std::size_t i) const {
  if (!has_input(i)) return invalid("input " + std::to_string(i) + " is missing");
  const std::string& name = node_->input(static_cast<int>(i));
  const Operand* operand = lookup(name);
  // Unreachable for a topologically sorted model (checked before import).
  if (operand == nullptr) return invalid("input '" + name + "' is not defined before use");
  return operand;
}

bool ImportContext::is_host(std::size_t i) const {
  StatusOr<const Operand*> operand = input(i);
  return operand.ok() && std::holds_alternative<HostTensor>(**operand);
}

StatusOr<const HostTensor*> ImportContext::host_input(std::size_t i,
                                                      const std::string& what) const {
  GLASSBOX_ASSIGN_OR_RETURN(const Operand* operand, input(i));
  if (const auto* host = std::get_if<HostTensor>(operand)) return host;
  return unsupported(what + " (input '" + node_->input(static_cast<int>(i)) +
                     "') must be a constant known at import, but it is computed at run time");
}

StatusOr<ValueId> ImportContext::value_input(std::size_t i) {
  GLASSBOX_ASSIGN_OR_RETURN(const Operand* operand, input(i));
  if (const auto* id = std::get_if<ValueId>(operand)) return *id;
  const HostTensor& host = std::get<HostTensor>(*operand);
  const std::string& name = node_->input(static_cast<int>(i));
  auto it = materialized_.find(name);
  if (it != materialized_.end()) return it->second;
  const ValueId id = writer_->add_constant(name, host);
  materialized_.emplace(name, id);
  return id;
}

std::string ImportContext::quantized_input_hint() const {
  for (const std::string& name : node_->input()) {
    auto it = declared_types_.find(name);
    if (it == declared_types_.end() || it->second == ScalarType::kInt) continue;
    return " ('" + name + "' is " + (it->second == ScalarType::kChar ? "int8" : "uint8") +
           " with no scale: dequantize it first)";
  }
  return "";
}

StatusOr<ScalarType> ImportContext::declared_type(std::size_t i) {
  GLASSBOX_ASSIGN_OR_RETURN(const Operand* operand, input(i));
  if (const auto* host = std::get_if<HostTensor>(operand)) {
    return host->is_float ? ScalarType::kFloat : host->declared_int_type;
  }
  auto it = declared_types_.find(node_->input(static_cast<int>(i)));
  if (it != declared_types_.end()) return it->second;
  return writer_->type_of(std::get<ValueId>(*operand)).dtype;
}

StatusOr<ValueId> ImportContext::int_value_input(std::size_t i, ScalarType dtype) {
  GLASSBOX_ASSIGN_OR_RETURN(const Operand* operand, input(i));
  if (const auto* id = std::get_if<ValueId>(operand)) return *id;
  const HostTensor& host = std::get<HostTensor>(*operand);
  if (host.is_float) return value_input(i);
  // Keyed by dtype too: one initializer may be read as LONG elsewhere.
  const std::string& name = node_->input(static_cast<int>(i));
  const std::string key = name + "#" + std::string(to_string(dtype));
  auto it = materialized_.find(key);
  if (it != materialized_.end()) return it->second;
  const ValueId id = writer_->add_int_constant(name, host, dtype);
  materialized_.emplace(key, id);
  return id;
}

StatusOr<std::vector<std::int64_t>> ImportContext::input_shape(std::size_t i) const {
  GLASSBOX_ASSIGN_OR_RETURN(const Operand* operand, input(i));
  if (const auto* id = std::get_if<ValueId>(operand)) return writer_->type_of(*id).shape;
  return std::get<HostTensor>(*operand).shape;
}

ValueId ImportContext::add_constant(const std::string& suffix, std::vector<std::int64_t> shape,
                                    std::vector<float> data) {
  return writer_->add_constant(value_prefix_ + "/" + suffix, std::move(shape), std::move(data));
}

ValueId ImportContext::add_constant(const std::string& suffix, const HostTensor& tensor) {
  return writer_->add_constant(value_prefix_ + "/" + suffix, tensor);
}

StatusOr<ValueId> ImportContext::emit(std::string_view op, std::vector<ValueId> inputs,
                                      aot::AttributeMap attributes, std::string_view step) {
  const std::string value_name =
      step.empty() ? value_prefix_ : value_prefix_ + "/" + std::string(step);
  // All inputs known at import: compute the value now, with the kernels.
  std::vector<const aot::Value*> constants;
  for (ValueId id : inputs) {
    const aot::Value& v = writer_->value(id);
    if (v.kind != aot::ValueKind::kConstant) break;
    constants.push_back(&v);
  }
  if (!inputs.empty() && constants.size() == inputs.size()) {
    std::vector<aot::TensorType> types;
    for (const aot::Value* v : constants) types.push_back({v->dtype, v->shape});
    StatusOr<aot::TensorType> type = aot::infer_output_type(op, types, attributes);
    if (!type.ok()) return invalid(type.message());
    std::int64_t numel = 1;
    for (std::int64_t d : type->shape) numel *= d;  // bounded by infer_output_type
    // Folding computes the value at import: a result this large (1 GiB of
    // float) is better left to the runtime than held in the importer.
    constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 28;
    if (numel > kMaxFoldedElements) {
      return invalid("the constant result of " + std::string(op) + " has " + std::to_string(numel) +
                     " elements, too many to compute at import");
    }
    StatusOr<HostTensor> folded = evaluate_with_kernels(op, constants, attributes, *type);
    if (!folded.ok()) return invalid(folded.message());
    ++folded_nodes_;
    return writer_->add_constant(value_name, *folded);
  }
  return emit_unfolded(op, std::move(inputs), std::move(attributes), step);
}

StatusOr<ValueId> ImportContext::emit_unfolded(std::string_view op, std::vector<ValueId> inputs,
                                               aot::AttributeMap attributes,
                                               std::string_view step) {
  const std::string value_name =
      step.empty() ? value_prefix_ : value_prefix_ + "/" + std::string(step);
  if (op == aot::op::kReshape && inputs.size() == 1 && varying_.of(inputs[0]) != nullptr) {
    // Every converter's fixed target, computed from the bound: the dim that
    // follows the data is left for the runtime to size.
    auto shape = attributes.find("shape");
    if (shape != attributes.end()) {
      if (auto* to = std::get_if<std::vector<std::int64_t>>(&shape->second)) {
        StatusOr<std::vector<std::int64_t>> freed =
            varying_.free_reshape_dim(inputs[0], writer_->type_of(inputs[0]).shape, *to);
        if (!freed.ok()) return unsupported(freed.message());
        *to = *std::move(freed);
      }
    }
  }
  // Kept only for a node whose outputs may vary: the writer takes both.
  const bool varies = may_vary(op, inputs);
  const std::vector<ValueId> input_ids = varies ? inputs : std::vector<ValueId>{};
  const aot::AttributeMap attribute_copy = varies ? attributes : aot::AttributeMap{};
  StatusOr<ValueId> out =
      writer_->add_node(op, std::move(inputs), std::move(attributes), step, value_name);
  if (!out.ok()) return invalid(out.message() + quantized_input_hint());
  GLASSBOX_RETURN_IF_ERROR(check_runtime_value(op, writer_->value(*out).shape));
  if (varies) GLASSBOX_RETURN_IF_ERROR(record_varying(op, attribute_copy, input_ids, {*out}));
  return out;
}

bool ImportContext::may_vary(std::string_view op, const std::vector<ValueId>& inputs) const {
  if (op == aot::op::kNonZero || op == aot::op::kTopK || op == aot::op::kNonMaxSuppression ||
      op == aot::op::kUnique) {
    return true;
  }
  for (ValueId id : inputs) {
    if (varying_.of(id) != nullptr) return true;
  }
  return false;
}

Status ImportContext::record_varying(std::string_view op, const aot::AttributeMap& attributes,
                                     const std::vector<ValueId>& inputs,
                                     const std::vector<ValueId>& outputs) {
  std::vector<aot::TensorType> in_types, out_types;
  bool dynamic = false;
  for (ValueId id : inputs) in_types.push_back(writer_->type_of(id));
  for (ValueId id : outputs) {
    out_types.push_back(writer_->type_of(id));
    dynamic = dynamic || out_types.back().dynamic;
  }
  if (!dynamic) return Status();  // the common case: nothing varies
  Status recorded = varying_.record(op, attributes, inputs, in_types, outputs, out_types);
  if (!recorded.ok()) return unsupported(recorded.message());
  return Status();
}

StatusOr<std::vector<ValueId>> ImportContext::emit_outputs(
    std::string_view op, std::vector<ValueId> inputs, aot::AttributeMap attributes,
    const std::vector<std::string>& suffixes) {
  std::vector<std::string> names;
  for (const std::string& suffix : suffixes) names.push_back(value_prefix_ + "/" + suffix);
  const bool varies = may_vary(op, inputs);
  const std::vector<ValueId> input_ids = varies ? inputs : std::vector<ValueId>{};
  const aot::AttributeMap attribute_copy = varies ? attributes : aot::AttributeMap{};
  StatusOr<std::vector<ValueId>> outs =
      writer_->add_node_outputs(op, std::move(inputs), std::move(attributes), names);
  if (!outs.ok()) return invalid(outs.message());
  for (ValueId id : *outs) {
    GLASSBOX_RETURN_IF_ERROR(check_runtime_value(op, writer_->value(id).shape));
  }
  if (varies) GLASSBOX_RETURN_IF_ERROR(record_varying(op, attribute_copy, input_ids, *outs));
  return outs;
}

Status ImportContext::check_runtime_value(std::string_view op,
                                          const std::vector<std::int64_t>& shape) const {
  // The runtime holds this value: the same limit as a graph input. (Empty
  // tensors are left to the kernels: reshape, slice, split and where run
  // on them; a kernel that cannot refuses the program at load.)
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 31;
  std::int64_t numel = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (__builtin_mul_overflow(numel, shape[d], &numel) || numel > kMaxElements) {
      return unsupported("the " + std::string(op) + " output's dim " + std::to_string(d) + " (" +
                         std::to_string(shape[d]) + ") makes it larger than 2^31 elements");
    }
  }
  return Status();
}

void ImportContext::set_output(std::size_t i, Operand operand) {
  if (!has_output(i)) return;  // An optional output nobody reads.
  const std::string& name = node_->output(static_cast<int>(i));
  if (const auto* id = std::get_if<ValueId>(&operand); id != nullptr) {
    // A folded value stays known at import, for the shape arithmetic after it.
    const aot::Value& v = writer_->value(*id);
    if (v.kind == aot::ValueKind::kConstant &&
        (!v.data.empty() || !v.int_data.empty() || v.numel() == 0)) {
      symbols_[name] = host_tensor_of(v);
      return;
    }
    if (writer_->made_by_current_source(*id)) writer_->rename_value(*id, name);
  }
  symbols_[name] = std::move(operand);
}

Status ImportContext::invalid(const std::string& message) const {
  return Status(Error::kInvalidArgument, label_ + ": " + message);
}

Status ImportContext::unsupported(const std::string& message) const {
  return Status(Error::kNotSupported, label_ + ": " + message);
}

}  // namespace glassbox::frontends::onnx

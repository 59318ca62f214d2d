#include "frontends/onnx/graph_writer.h"

#include "frontends/onnx/module_path.h"

namespace glassbox::frontends::onnx {

using aot::ValueId;

std::string GraphWriter::unique(std::set<std::string, std::less<>>& used, const std::string& base) {
  std::string name = base;
  for (int i = 1; used.contains(name); ++i) name = base + "_" + std::to_string(i);
  used.insert(name);
  return name;
}

ValueId GraphWriter::add_value(const std::string& name, aot::TensorType type, aot::ValueKind kind,
                               std::vector<float> data) {
  aot::Value v;
  v.id = ValueId(static_cast<std::int32_t>(graph_.values.size()));
  v.name = unique(value_names_, name);
  v.dtype = type.dtype;
  v.shape = std::move(type.shape);
  v.dynamic = type.dynamic;
  v.kind = kind;
  v.data = std::move(data);
  graph_.values.push_back(std::move(v));
  return graph_.values.back().id;
}

ValueId GraphWriter::add_input(const std::string& name, std::vector<std::int64_t> shape,
                               ScalarType dtype) {
  ValueId id = add_value(name, {dtype, std::move(shape)}, aot::ValueKind::kInput, {});
  graph_.inputs.push_back(id);
  return id;
}

ValueId GraphWriter::add_constant(const std::string& name, std::vector<std::int64_t> shape,
                                  std::vector<float> data) {
  return add_value(name, {ScalarType::kFloat, std::move(shape)}, aot::ValueKind::kConstant,
                   std::move(data));
}

ValueId GraphWriter::add_constant(const std::string& name, const HostTensor& tensor) {
  if (tensor.is_float) return add_constant(name, tensor.shape, tensor.floats);
  return add_int_constant(name, tensor, tensor.dtype());
}

ValueId GraphWriter::add_int_constant(const std::string& name, const HostTensor& tensor,
                                      ScalarType dtype) {
  const ValueId id = add_value(name, {dtype, tensor.shape}, aot::ValueKind::kConstant, {});
  graph_.values.back().int_data = tensor.ints;
  return id;
}

void GraphWriter::begin_source(std::string name, std::string op_type) {
  source_frames_ = module_hierarchy_of(name);
  source_name_ = std::move(name);
  source_op_ = std::move(op_type);
  source_handle_ = DebugHandle();  // Taken on the first IR node.
  source_first_value_ = graph_.values.size();
}

bool GraphWriter::made_by_current_source(ValueId id) const {
  // Value ids are dense indices here: values are only ever appended.
  return id.value >= 0 && static_cast<std::size_t>(id.value) >= source_first_value_ &&
         static_cast<std::size_t>(id.value) < graph_.values.size() &&
         graph_.values[static_cast<std::size_t>(id.value)].kind == aot::ValueKind::kNodeOutput;
}

StatusOr<ValueId> GraphWriter::add_node(std::string_view op, std::vector<ValueId> inputs,
                                        aot::AttributeMap attributes, std::string_view step,
                                        const std::string& value_name) {
  std::vector<aot::TensorType> types;
  for (ValueId id : inputs) types.push_back(type_of(id));
  GLASSBOX_ASSIGN_OR_RETURN(aot::TensorType out, aot::infer_output_type(op, types, attributes));
  std::vector<aot::TensorType> outs{std::move(out)};
  return push_node(op, std::move(inputs), std::move(attributes), step, {value_name},
                   std::move(outs))
      .front();
}

std::vector<ValueId> GraphWriter::push_node(std::string_view op, std::vector<ValueId> inputs,
                                            aot::AttributeMap attributes, std::string_view step,
                                            const std::vector<std::string>& value_names,
                                            std::vector<aot::TensorType> types) {
  if (!source_handle_.is_set()) source_handle_ = DebugHandle(++handles_used_);
  aot::Node node;
  node.name =
      unique(node_names_, step.empty() ? source_name_ : source_name_ + "/" + std::string(step));
  node.op = std::string(op);
  node.inputs = std::move(inputs);
  node.attributes = std::move(attributes);
  node.debug_handle = source_handle_;
  node.module_hierarchy = source_frames_;
  // ONNX has no source lines: the model file and the ONNX op type say
  // where the node came from.
  node.source_location = aot::SourceLocation{source_file_, 0, source_op_};
  for (std::size_t o = 0; o < types.size(); ++o) {
    node.outputs.push_back(
        add_value(value_names[o], std::move(types[o]), aot::ValueKind::kNodeOutput, {}));
  }
  graph_.nodes.push_back(std::move(node));
  return graph_.nodes.back().outputs;
}

StatusOr<std::vector<ValueId>> GraphWriter::add_node_outputs(
    std::string_view op, std::vector<ValueId> inputs, aot::AttributeMap attributes,
    const std::vector<std::string>& value_names) {
  std::vector<aot::TensorType> types;
  for (ValueId id : inputs) types.push_back(type_of(id));
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<aot::TensorType> outs,
                            aot::infer_output_types(op, types, attributes));
  if (outs.size() != value_names.size()) {
    return Status(Error::kInternal, std::string(op) + " has " + std::to_string(outs.size()) +
                                        " outputs, " + std::to_string(value_names.size()) +
                                        " names given");
  }
  return push_node(op, std::move(inputs), std::move(attributes), "", value_names, std::move(outs));
}

aot::TensorType GraphWriter::type_of(ValueId id) const {
  const aot::Value* v = graph_.find_value(id);
  return v == nullptr ? aot::TensorType{} : aot::TensorType{v->dtype, v->shape, v->dynamic};
}

aot::ValueKind GraphWriter::kind_of(ValueId id) const { return graph_.find_value(id)->kind; }

void GraphWriter::rename_value(ValueId id, const std::string& name) {
  aot::Value* v = graph_.find_value(id);
  if (v == nullptr || v->name == name || value_names_.contains(name)) return;
  value_names_.erase(v->name);
  value_names_.insert(name);
  v->name = name;
}

StatusOr<aot::Graph> GraphWriter::finish() && {
  std::set<std::int32_t> used;
  for (const aot::Node& node : graph_.nodes) {
    for (ValueId id : node.inputs) used.insert(id.value);
  }
  for (ValueId id : graph_.outputs) used.insert(id.value);
  std::erase_if(graph_.values, [&](const aot::Value& v) {
    return v.kind == aot::ValueKind::kConstant && !used.contains(v.id.value);
  });
  GLASSBOX_RETURN_IF_ERROR(aot::verify(graph_));
  return std::move(graph_);
}

}  // namespace glassbox::frontends::onnx

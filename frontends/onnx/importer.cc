#include "frontends/onnx/importer.h"

#include <onnx/onnx_pb.h>

#include <limits>
#include <set>

#include "frontends/onnx/converters.h"
#include "frontends/onnx/graph_writer.h"
#include "frontends/onnx/import_context.h"
#include "frontends/onnx/model_checks.h"
#include "glassbox/aot/quantization.h"
#include "glassbox/io/file.h"

namespace glassbox::frontends::onnx {
namespace {

using aot::ValueId;

Status define_initializers(const ::onnx::GraphProto& graph, ImportContext* context,
                           const std::string& source) {
  if (graph.sparse_initializer_size() > 0) {
    return Status(Error::kNotSupported, source + ": sparse initializers are not supported");
  }
  for (const ::onnx::TensorProto& init : graph.initializer()) {
    GLASSBOX_ASSIGN_OR_RETURN(HostTensor t,
                              decode_tensor(init, source + ": initializer '" + init.name() + "'"));
    context->define(init.name(), std::move(t));
  }
  return Status();
}

// Graph inputs that are not initializers (old exporters list both).
Status define_inputs(const ::onnx::GraphProto& graph, const ImportOptions& options,
                     GraphWriter* writer, ImportContext* context, const std::string& source) {
  std::set<std::string, std::less<>> names;
  for (const ::onnx::ValueInfoProto& input : graph.input()) {
    names.insert(input.name());
    if (context->lookup(input.name()) != nullptr) continue;
    GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::int64_t> shape,
                              static_input_shape(input, options, source));
    const int type = input.type().tensor_type().elem_type();
    // The runtime's dtypes, as for initializers (tensor_proto.h).
    const ScalarType dtype = type == ::onnx::TensorProto::BOOL ? ScalarType::kBool
                             : is_int_type(type)               ? ScalarType::kLong
                                                               : ScalarType::kFloat;
    context->define(input.name(), writer->add_input(input.name(), std::move(shape), dtype));
    if (type == ::onnx::TensorProto::INT8) context->declare_type(input.name(), ScalarType::kChar);
    if (type == ::onnx::TensorProto::UINT8) context->declare_type(input.name(), ScalarType::kByte);
    if (type == ::onnx::TensorProto::INT32) context->declare_type(input.name(), ScalarType::kInt);
  }
  for (const auto& [name, shape] : options.input_shapes) {
    if (!names.contains(name)) {
      return Status(Error::kInvalidArgument, source + ": an input shape was given for '" + name +
                                                 "', which is not an input of the model");
    }
  }
  return Status();
}

Status convert_nodes(const ::onnx::GraphProto& graph, ImportContext* context) {
  const ConverterTable& table = converters();
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    context->begin_node(node, i);
    for (const std::string& input : node.input()) {
      if (!input.empty() && context->lookup(input) == nullptr) {
        return Status(Error::kInvalidArgument,
                      context->label() + ": input '" + input +
                          "' is not defined by an earlier node, an initializer or a graph input "
                          "(nodes must be in topological order)");
      }
    }
    GLASSBOX_ASSIGN_OR_RETURN(bool done, context->shape_values().before_node(*context));
    if (!done) {
      GLASSBOX_RETURN_IF_ERROR(table.at(node.op_type())(*context));
      context->shape_values().after_node(*context);
    }
    for (const std::string& output : node.output()) {
      if (!output.empty() && context->lookup(output) == nullptr) {
        return Status(Error::kInternal,
                      context->label() + ": output '" + output + "' was not produced");
      }
    }
  }
  return Status();
}

// A graph output must be a node's output; one that is an input, a constant
// or another output again gets a copy (a reshape to its own shape).
Status bind_outputs(const ::onnx::GraphProto& graph, GraphWriter* writer, ImportContext* context,
                    const std::string& source) {
  if (graph.output_size() == 0)
    return Status(Error::kInvalidArgument, source + ": the graph has no outputs");
  std::set<std::int32_t> bound;
  for (const ::onnx::ValueInfoProto& output : graph.output()) {
    const Operand* operand = context->lookup(output.name());
    if (operand == nullptr) {
      return Status(Error::kInvalidArgument,
                    source + ": graph output '" + output.name() + "' is never produced");
    }
    ValueId id;
    if (const auto* host = std::get_if<HostTensor>(operand)) {
      id = writer->add_constant(output.name() + "/constant", *host);
    } else {
      id = std::get<ValueId>(*operand);
    }
    if (writer->kind_of(id) != aot::ValueKind::kNodeOutput || bound.contains(id.value)) {
      writer->begin_source(output.name() + "/copy", "Identity");
      StatusOr<ValueId> copy = writer->add_node(
          aot::op::kReshape, {id}, {{"shape", writer->type_of(id).shape}}, "", output.name());
      if (!copy.ok())
        return copy.status().with_context(source + ": graph output '" + output.name() + "'");
      id = *copy;
    }
    bound.insert(id.value);
    writer->add_output(id);
  }
  return Status();
}

}  // namespace

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    add_elementwise_converters(&t);
    add_nn_converters(&t);
    add_shape_converters(&t);
    add_folding_converters(&t);
    add_math_converters(&t);
    add_reduce_converters(&t);
    add_data_converters(&t);
    add_quantization_converters(&t);
    add_recurrent_converters(&t);
    add_sequence_converters(&t);
    add_detection_converters(&t);
    add_dynamic_converters(&t);
    return t;
  }();
  return table;
}

std::vector<std::string> supported_op_types() {
  std::vector<std::string> out;
  for (const auto& [name, converter] : converters()) out.push_back(name);
  return out;
}

StatusOr<aot::Graph> import_onnx_from_memory(std::span<const std::uint8_t> bytes,
                                             const ImportOptions& options,
                                             const std::string& source) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return Status(Error::kNotSupported, source + ": models of 2 GiB or more are not supported");
  }
  ::onnx::ModelProto model;
  // Protobuf reports failure instead of throwing; it also accepts many
  // non-ONNX byte strings, hence the checks after it.
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status(
        Error::kCorruptData,
        source + ": not an ONNX model (protobuf parsing failed: truncated or another format)");
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    return Status(Error::kCorruptData, source + ": not an ONNX model (no ir_version or no graph)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t opset, default_opset(model, source));
  const ::onnx::GraphProto& graph = model.graph();
  GLASSBOX_RETURN_IF_ERROR(check_supported_ops(graph, converters(), source));

  GraphWriter writer(source);
  ImportContext context(&writer, source, opset);
  GLASSBOX_RETURN_IF_ERROR(define_initializers(graph, &context, source));
  GLASSBOX_RETURN_IF_ERROR(define_inputs(graph, options, &writer, &context, source));
  GLASSBOX_RETURN_IF_ERROR(convert_nodes(graph, &context));
  GLASSBOX_RETURN_IF_ERROR(bind_outputs(graph, &writer, &context, source));
  if (options.stats != nullptr) options.stats->folded_nodes = context.folded_nodes();
  StatusOr<aot::Graph> result = std::move(writer).finish();
  if (!result.ok()) return result.status().with_context(source + ": the imported graph is invalid");
  aot::group_quantization_nodes(&*result);
  return result;
}

StatusOr<aot::Graph> import_onnx(const std::string& path, const ImportOptions& options) {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, io::read_file(path));
  return import_onnx_from_memory(bytes, options, path);
}

}  // namespace glassbox::frontends::onnx

#include "frontends/onnx/model_checks.h"

#include <onnx/onnx_pb.h>

#include <map>

#include "frontends/onnx/tensor_proto.h"

namespace glassbox::frontends::onnx {
namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// At most this many node names per op type; the count says the rest.
constexpr std::size_t kNamesPerOp = 5;

}  // namespace

StatusOr<std::int64_t> default_opset(const ::onnx::ModelProto& model, const std::string& source) {
  for (const ::onnx::OperatorSetIdProto& set : model.opset_import()) {
    if (!is_default_domain(set.domain())) continue;
    const std::int64_t v = set.version();
    if (v < kMinOpset || v > kMaxOpset) {
      return Status(Error::kNotSupported,
                    source + ": opset " + std::to_string(v) + " is not supported (" +
                        std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                        "); export again with e.g. torch.onnx.export(..., opset_version=13)");
    }
    return v;
  }
  return Status(Error::kCorruptData,
                source + ": the model imports no default-domain (ai.onnx) opset");
}

Status check_supported_ops(const ::onnx::GraphProto& graph, const ConverterTable& table,
                           const std::string& source) {
  std::map<std::string, std::vector<std::string>> unsupported;
  for (int i = 0; i < graph.node_size(); ++i) {
    const ::onnx::NodeProto& node = graph.node(i);
    const bool known = is_default_domain(node.domain()) && table.contains(node.op_type());
    if (known) continue;
    const std::string type =
        is_default_domain(node.domain()) ? node.op_type() : node.domain() + "::" + node.op_type();
    unsupported[type].push_back(node.name().empty() ? "#" + std::to_string(i)
                                                    : "'" + node.name() + "'");
  }
  if (unsupported.empty()) return Status();
  std::string message = source + ": " + std::to_string(unsupported.size()) +
                        " unsupported op type" + (unsupported.size() == 1 ? "" : "s") + ": ";
  bool first = true;
  for (const auto& [type, nodes] : unsupported) {
    message += (first ? "" : "; ") + type + " (" + std::to_string(nodes.size()) + " node" +
               (nodes.size() == 1 ? "" : "s") + ": ";
    first = false;
    for (std::size_t i = 0; i < nodes.size() && i < kNamesPerOp; ++i) {
      message += (i ? ", " : "") + nodes[i];
    }
    if (nodes.size() > kNamesPerOp) message += ", ...";
    message += ")";
  }
  return Status(Error::kNotSupported, message);
}

namespace {

// Inputs the runtime can hold: rank <= 6 (the kernels' limit) and at most
// 2^31 elements (8 GiB of float32), so a damaged or mistyped shape is
// refused here, naming the input and dim, rather than after a huge
// allocation. Empty dims are fine (ONNX's empty axes lists).
Status check_input_size(const std::string& label, const std::vector<std::int64_t>& shape) {
  constexpr std::size_t kMaxRank = 6;
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 31;
  if (shape.size() > kMaxRank) {
    return Status(Error::kNotSupported, label + " has rank " + std::to_string(shape.size()) +
                                            "; at most " + std::to_string(kMaxRank) +
                                            " is supported");
  }
  std::int64_t numel = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (__builtin_mul_overflow(numel, shape[d], &numel) || numel > kMaxElements) {
      return Status(Error::kNotSupported, label + ": dim " + std::to_string(d) + " (" +
                                              std::to_string(shape[d]) +
                                              ") makes the input larger than 2^31 elements");
    }
  }
  return Status();
}

}  // namespace

StatusOr<std::vector<std::int64_t>> static_input_shape(const ::onnx::ValueInfoProto& input,
                                                       const ImportOptions& options,
                                                       const std::string& source) {
  const std::string label = source + ": input '" + input.name() + "'";
  if (!input.type().has_tensor_type()) {
    return Status(Error::kNotSupported, label + " is not a tensor");
  }
  const ::onnx::TypeProto::Tensor& tensor = input.type().tensor_type();
  const int type = tensor.elem_type();
  if (!is_float_type(type) && !is_int_type(type)) {
    return Status(Error::kNotSupported,
                  label + " has element type " + data_type_name(type) +
                      "; inputs must be floating point (read as FLOAT), integer (read as "
                      "INT64) or BOOL");
  }
  auto override_it = options.input_shapes.find(input.name());
  if (override_it != options.input_shapes.end()) {
    const std::vector<std::int64_t>& shape = override_it->second;
    if (tensor.has_shape() && tensor.shape().dim_size() != static_cast<int>(shape.size())) {
      return Status(Error::kInvalidArgument,
                    label + ": the shape given has rank " + std::to_string(shape.size()) +
                        ", the model's has rank " + std::to_string(tensor.shape().dim_size()));
    }
    for (std::int64_t d : shape) {
      if (d < 0)
        return Status(Error::kInvalidArgument, label + ": the shape given has a negative dim");
    }
    GLASSBOX_RETURN_IF_ERROR(check_input_size(label, shape));
    return shape;
  }
  if (!tensor.has_shape()) {
    return Status(Error::kNotSupported,
                  label + " has no shape; pin one with `glassbox lower --input-shape " +
                      input.name() + "=D0xD1x...` (ImportOptions::input_shapes)");
  }
  std::vector<std::int64_t> shape;
  for (int d = 0; d < tensor.shape().dim_size(); ++d) {
    const ::onnx::TensorShapeProto::Dimension& dim = tensor.shape().dim(d);
    if (!dim.has_dim_value() || dim.dim_value() < 0) {
      const std::string what =
          dim.has_dim_param() ? "is symbolic ('" + dim.dim_param() + "')" : "is unknown";
      return Status(Error::kNotSupported,
                    label + ": dim " + std::to_string(d) + " " + what +
                        "; only static shapes are supported: pin it with `glassbox lower "
                        "--input-shape " +
                        input.name() +
                        "=D0xD1x...` "
                        "(ImportOptions::input_shapes), or export without dynamic_axes");
    }
    shape.push_back(dim.dim_value());
  }
  GLASSBOX_RETURN_IF_ERROR(check_input_size(label, shape));
  return shape;
}

}  // namespace glassbox::frontends::onnx

#include "glassbox/aot/graph_builder.h"

#include "glassbox/aot/debug_handles.h"

namespace glassbox::aot {
namespace {

AttributeValue pair(const std::array<std::int64_t, 2>& v) {
  return std::vector<std::int64_t>{v[0], v[1]};
}

SourceLocation to_source_location(const CallSite& loc) {
  return SourceLocation{loc.file_name(), loc.line(), loc.function_name()};
}

}  // namespace

GraphBuilder::ModuleScope::~ModuleScope() { builder_->scopes_.pop_back(); }

GraphBuilder::ModuleScope GraphBuilder::module(std::string path, std::string type) {
  scopes_.push_back(ModuleFrame{std::move(path), std::move(type)});
  return ModuleScope(this);
}

void GraphBuilder::fail(Status status) {
  if (first_error_.ok()) first_error_ = std::move(status);
}

std::string GraphBuilder::unique_node_name(std::string_view op_name) {
  // "relu", "relu_1", "relu_2", ... as torch.fx names nodes, skipping names
  // already taken by inputs and constants (node outputs share node names).
  int& next = next_suffix_[std::string(op_name)];
  for (;; ++next) {
    std::string name(op_name);
    if (next > 0) name += "_" + std::to_string(next);
    if (used_names_.insert(name).second) {
      ++next;
      return name;
    }
  }
}

ValueId GraphBuilder::add_value(std::string name, TensorType type, ValueKind kind,
                                std::vector<float> data) {
  Value value;
  value.id = ValueId(static_cast<std::int32_t>(graph_.values.size()));
  value.name = std::move(name);
  value.dtype = type.dtype;
  value.shape = std::move(type.shape);
  value.dynamic = type.dynamic;
  value.kind = kind;
  value.data = std::move(data);
  graph_.values.push_back(std::move(value));
  return graph_.values.back().id;
}

ValueId GraphBuilder::input(std::string name, ScalarType dtype, std::vector<std::int64_t> shape) {
  if (!used_names_.insert(name).second) {
    fail(Status(Error::kInvalidArgument, "input '" + name + "': name already used"));
    return kInvalidValueId;
  }
  ValueId id =
      add_value(std::move(name), TensorType{dtype, std::move(shape)}, ValueKind::kInput, {});
  graph_.inputs.push_back(id);
  return id;
}

ValueId GraphBuilder::constant(std::string name, std::vector<std::int64_t> shape,
                               std::vector<float> data) {
  if (used_names_.contains(name)) {
    fail(Status(Error::kInvalidArgument, "constant '" + name + "': name already used"));
    return kInvalidValueId;
  }
  std::int64_t numel = 1;
  for (std::int64_t d : shape) numel *= d;
  if (static_cast<std::int64_t>(data.size()) != numel) {
    fail(Status(Error::kInvalidArgument, "constant '" + name + "': " + std::to_string(data.size()) +
                                             " elements of data for " + std::to_string(numel) +
                                             " elements of shape"));
    return kInvalidValueId;
  }
  used_names_.insert(name);
  return add_value(std::move(name), TensorType{ScalarType::kFloat, std::move(shape)},
                   ValueKind::kConstant, std::move(data));
}

ValueId GraphBuilder::op(std::string_view op_name, std::vector<ValueId> inputs,
                         AttributeMap attributes, Loc loc) {
  if (!first_error_.ok()) return kInvalidValueId;  // Report only the first error.
  const std::string where =
      std::string(op_name) + " at " + loc.file_name() + ":" + std::to_string(loc.line());
  std::vector<TensorType> types;
  for (ValueId id : inputs) {
    const Value* v = graph_.find_value(id);
    if (v == nullptr) {
      fail(Status(Error::kInvalidArgument, where + ": unknown value " + std::to_string(id.value)));
      return kInvalidValueId;
    }
    types.push_back(TensorType{v->dtype, v->shape, v->dynamic});
  }
  StatusOr<TensorType> out = infer_output_type(op_name, types, attributes);
  if (!out.ok()) {
    fail(Status(out.error(), where + ": " + out.message()));
    return kInvalidValueId;
  }
  Node node;
  node.name = unique_node_name(op_name);
  node.op = std::string(op_name);
  node.inputs = std::move(inputs);
  node.attributes = std::move(attributes);
  node.module_hierarchy = scopes_;
  node.source_location = to_source_location(loc);
  node.outputs.push_back(add_value(node.name, std::move(out).value(), ValueKind::kNodeOutput, {}));
  graph_.nodes.push_back(std::move(node));
  return graph_.nodes.back().outputs[0];
}

ValueId GraphBuilder::conv2d(ValueId x, ValueId weight, std::optional<ValueId> bias,
                             const Conv2dOptions& o, Loc loc) {
  std::vector<ValueId> inputs{x, weight};
  if (bias) inputs.push_back(*bias);
  return op(op::kConv2d, std::move(inputs),
            {{"stride", pair(o.stride)},
             {"padding", pair(o.padding)},
             {"dilation", pair(o.dilation)},
             {"groups", o.groups}},
            loc);
}

ValueId GraphBuilder::relu(ValueId x, Loc loc) { return op(op::kRelu, {x}, {}, loc); }
ValueId GraphBuilder::clamp(ValueId x, double min, double max, Loc loc) {
  return op(op::kClamp, {x}, {{"min", min}, {"max", max}}, loc);
}
ValueId GraphBuilder::relu6(ValueId x, Loc loc) {
  static constexpr double kRelu6Max = 6.0;
  return clamp(x, 0.0, kRelu6Max, loc);
}
ValueId GraphBuilder::sigmoid(ValueId x, Loc loc) { return op(op::kSigmoid, {x}, {}, loc); }
ValueId GraphBuilder::hardswish(ValueId x, Loc loc) { return op(op::kHardswish, {x}, {}, loc); }
ValueId GraphBuilder::hardsigmoid(ValueId x, double alpha, double beta, Loc loc) {
  return op(op::kHardsigmoid, {x}, {{"alpha", alpha}, {"beta", beta}}, loc);
}
ValueId GraphBuilder::tan(ValueId x, Loc loc) { return op(op::kTan, {x}, {}, loc); }
ValueId GraphBuilder::sin(ValueId x, Loc loc) { return op(op::kSin, {x}, {}, loc); }
ValueId GraphBuilder::cos(ValueId x, Loc loc) { return op(op::kCos, {x}, {}, loc); }
ValueId GraphBuilder::add(ValueId a, ValueId b, Loc loc) { return op(op::kAdd, {a, b}, {}, loc); }
ValueId GraphBuilder::sub(ValueId a, ValueId b, Loc loc) { return op(op::kSub, {a, b}, {}, loc); }
ValueId GraphBuilder::mul(ValueId a, ValueId b, Loc loc) { return op(op::kMul, {a, b}, {}, loc); }
ValueId GraphBuilder::div(ValueId a, ValueId b, Loc loc) { return op(op::kDiv, {a, b}, {}, loc); }

ValueId GraphBuilder::linear(ValueId x, ValueId weight, std::optional<ValueId> bias, Loc loc) {
  std::vector<ValueId> inputs{x, weight};
  if (bias) inputs.push_back(*bias);
  return op(op::kLinear, std::move(inputs), {}, loc);
}

ValueId GraphBuilder::matmul(ValueId a, ValueId b, Loc loc) {
  return op(op::kMatmul, {a, b}, {}, loc);
}

namespace {
// Defaults are left out, so graphs built before these options existed
// serialise (and fingerprint) exactly as they did.
AttributeMap pool_attributes(const Pool2dOptions& o) {
  AttributeMap attrs = {{"kernel", pair(o.kernel)},
                        {"stride", pair(o.stride.value_or(o.kernel))},
                        {"padding", pair(o.padding)}};
  if (o.ceil_mode) attrs["ceil_mode"] = std::int64_t{1};
  return attrs;
}
}  // namespace

ValueId GraphBuilder::max_pool2d(ValueId x, const Pool2dOptions& options, Loc loc) {
  return op(op::kMaxPool2d, {x}, pool_attributes(options), loc);
}
ValueId GraphBuilder::avg_pool2d(ValueId x, const Pool2dOptions& options, Loc loc) {
  AttributeMap attrs = pool_attributes(options);
  if (!options.count_include_pad) attrs["count_include_pad"] = std::int64_t{0};
  return op(op::kAvgPool2d, {x}, std::move(attrs), loc);
}
ValueId GraphBuilder::global_avg_pool2d(ValueId x, Loc loc) {
  return op(op::kGlobalAvgPool2d, {x}, {}, loc);
}
ValueId GraphBuilder::batch_norm(ValueId x, ValueId mean, ValueId var, ValueId weight, ValueId bias,
                                 double eps, Loc loc) {
  return op(op::kBatchNorm, {x, mean, var, weight, bias}, {{"eps", eps}}, loc);
}
ValueId GraphBuilder::flatten(ValueId x, std::int64_t start_dim, std::int64_t end_dim, Loc loc) {
  return op(op::kFlatten, {x}, {{"start_dim", start_dim}, {"end_dim", end_dim}}, loc);
}
ValueId GraphBuilder::reshape(ValueId x, std::vector<std::int64_t> shape, Loc loc) {
  return op(op::kReshape, {x}, {{"shape", std::move(shape)}}, loc);
}
ValueId GraphBuilder::concat(std::vector<ValueId> xs, std::int64_t axis, Loc loc) {
  return op(op::kConcat, std::move(xs), {{"axis", axis}}, loc);
}
ValueId GraphBuilder::softmax(ValueId x, std::int64_t axis, Loc loc) {
  return op(op::kSoftmax, {x}, {{"axis", axis}}, loc);
}

ValueId GraphBuilder::transpose(ValueId x, std::vector<std::int64_t> perm, Loc loc) {
  return op(op::kTranspose, {x}, {{"perm", std::move(perm)}}, loc);
}

void GraphBuilder::output(ValueId value) {
  if (!first_error_.ok()) return;
  if (graph_.find_value(value) == nullptr) {
    fail(Status(Error::kInvalidArgument, "output: unknown value " + std::to_string(value.value)));
    return;
  }
  graph_.outputs.push_back(value);
}

StatusOr<Graph> GraphBuilder::build() const {
  GLASSBOX_RETURN_IF_ERROR(first_error_);
  Graph graph = graph_;
  GLASSBOX_RETURN_IF_ERROR(verify(graph));
  assign_debug_handles(&graph);
  return graph;
}

}  // namespace glassbox::aot

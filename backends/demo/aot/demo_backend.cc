#include "backends/demo/aot/demo_backend.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "backends/common/compile_specs.h"
#include "backends/demo/aot/demo_program.h"
#include "glassbox/aot/delegate_mapping_builder.h"
#include "glassbox/aot/ops.h"

namespace glassbox::backends::demo {
namespace {

using aot::DelegateDebugIdentifier;
using aot::Node;
using aot::ValueId;

using backends::IdentifierMode;

// One preprocess call: walks the subgraph once, emitting ops and map entries.
class Lowering {
 public:
  Lowering(const aot::Graph& graph, IdentifierMode mode)
      : graph_(graph), mode_(mode), builder_(mode == IdentifierMode::kGenerated) {}

  StatusOr<aot::PreprocessResult> run() {
    program_.input_count = static_cast<std::uint32_t>(graph_.inputs.size());
    for (std::size_t i = 0; i < graph_.inputs.size(); ++i) {
      slots_[graph_.inputs[i].value] = static_cast<std::uint32_t>(i);
    }
    for (const Node& node : graph_.nodes) {
      for (ValueId in : node.inputs) ++uses_[in.value];
    }
    for (ValueId out : graph_.outputs)
      ++uses_[out.value];  // An output is a use we cannot fuse away.

    for (const Node& node : graph_.nodes) {
      if (fused_.contains(&node)) continue;
      if (node.op == aot::op::kConv2d) {
        GLASSBOX_RETURN_IF_ERROR(lower_conv(node));
      } else if (node.op == aot::op::kRelu) {
        GLASSBOX_RETURN_IF_ERROR(
            emit(DemoOpKind::kRelu, {&node}, node.inputs, node.outputs[0], {}, {}));
      } else if (node.op == aot::op::kTan) {
        GLASSBOX_RETURN_IF_ERROR(lower_tan(node));
      } else {
        return Status(Error::kNotSupported,
                      "demo backend cannot lower op '" + node.op + "' (node '" + node.name + "')");
      }
    }
    for (ValueId out : graph_.outputs) program_.output_slots.push_back(slots_.at(out.value));
    return aot::PreprocessResult{encode_demo_program(program_), builder_.get_delegate_mapping()};
  }

 private:
  // The relu that is the only user of `conv`'s output, if any.
  const Node* fusable_relu(const Node& conv) const {
    const ValueId out = conv.outputs[0];
    auto uses = uses_.find(out.value);
    if (uses == uses_.end() || uses->second != 1) return nullptr;
    for (const Node& node : graph_.nodes) {
      if (node.op == aot::op::kRelu && node.inputs[0] == out) return &node;
    }
    return nullptr;
  }

  Status lower_conv(const Node& conv) {
    DemoConvParams params;
    auto pair = [&](const char* name) {
      const auto& v = std::get<std::vector<std::int64_t>>(conv.attributes.at(name));
      return std::array<std::int64_t, 2>{v[0], v[1]};
    };
    params.stride = pair("stride");
    params.padding = pair("padding");
    params.dilation = pair("dilation");
    params.groups = std::get<std::int64_t>(conv.attributes.at("groups"));
    GLASSBOX_ASSIGN_OR_RETURN(const aot::Value* weight, constant_data(conv, conv.inputs[1]));
    for (std::size_t i = 0; i < params.weight_shape.size(); ++i)
      params.weight_shape[i] = weight->shape[i];
    params.weight = weight->data;
    if (conv.inputs.size() == 3) {
      GLASSBOX_ASSIGN_OR_RETURN(const aot::Value* bias, constant_data(conv, conv.inputs[2]));
      params.bias = bias->data;
    }
    if (const Node* relu = fusable_relu(conv)) {
      fused_.insert(relu);
      return emit(DemoOpKind::kConvRelu, {&conv, relu}, {conv.inputs[0]}, relu->outputs[0],
                  std::move(params), {});
    }
    return emit(DemoOpKind::kConv, {&conv}, {conv.inputs[0]}, conv.outputs[0], std::move(params),
                {});
  }

  Status lower_tan(const Node& tan) {
    // sin and cos get slots of their own; div reads them and writes tan's output.
    const ValueId x = tan.inputs[0];
    GLASSBOX_RETURN_IF_ERROR(
        emit(DemoOpKind::kSin, {&tan}, {x}, aot::kInvalidValueId, {}, tan.name + ".sin"));
    const std::uint32_t sin_slot = last_slot();
    GLASSBOX_RETURN_IF_ERROR(
        emit(DemoOpKind::kCos, {&tan}, {x}, aot::kInvalidValueId, {}, tan.name + ".cos"));
    const std::uint32_t cos_slot = last_slot();
    return emit(DemoOpKind::kDiv, {&tan}, {}, tan.outputs[0], {}, tan.name + ".div",
                {sin_slot, cos_slot});
  }

  StatusOr<const aot::Value*> constant_data(const Node& conv, ValueId id) const {
    const aot::Value* value = graph_.find_value(id);
    if (value == nullptr || value->kind != aot::ValueKind::kConstant || value->data.empty()) {
      return Status(Error::kNotSupported, "demo backend: conv2d '" + conv.name +
                                              "' needs its weight and bias as constants with data");
    }
    return value;
  }

  std::uint32_t last_slot() const {
    return program_.input_count + static_cast<std::uint32_t>(program_.ops.size()) - 1;
  }

  // Appends one op reading `inputs` (values) or `operand_slots` (given
  // directly), writing `output` (if valid), registered for `sources`.
  Status emit(DemoOpKind kind, std::vector<const Node*> sources, const std::vector<ValueId>& inputs,
              ValueId output, DemoConvParams params, std::string string_id,
              std::vector<std::uint32_t> operand_slots = {}) {
    for (ValueId in : inputs) {
      auto slot = slots_.find(in.value);
      if (slot == slots_.end()) {
        return Status(Error::kNotSupported,
                      "demo backend: node '" + sources[0]->name +
                          "' reads a constant; only conv weights may be constant");
      }
      operand_slots.push_back(slot->second);
    }
    std::optional<DelegateDebugIdentifier> identifier;
    if (mode_ == IdentifierMode::kInt) {
      identifier = next_int_++;
    } else if (mode_ == IdentifierMode::kString) {
      const int n = ++kind_counts_[kind];
      identifier = string_id.empty()
                       ? std::string(demo_op_kind_name(kind)) + "_" + std::to_string(n)
                       : string_id;
    }
    GLASSBOX_ASSIGN_OR_RETURN(DelegateDebugIdentifier id, builder_.insert_delegate_mapping_entry(
                                                              sources, std::move(identifier)));
    DemoOp op;
    op.kind = kind;
    op.identifier = std::move(id);
    op.operand_slots = std::move(operand_slots);
    op.conv = std::move(params);
    program_.ops.push_back(std::move(op));
    if (output.is_set()) slots_[output.value] = last_slot();
    return Status();
  }

  const aot::Graph& graph_;
  IdentifierMode mode_;
  aot::DelegateMappingBuilder builder_;
  DemoProgram program_;
  std::unordered_map<std::int32_t, std::uint32_t> slots_;  // value id -> slot
  std::unordered_map<std::int32_t, int> uses_;             // value id -> users
  std::unordered_set<const Node*> fused_;
  std::map<DemoOpKind, int> kind_counts_;
  std::int64_t next_int_ = kFirstManualIntIdentifier;
};

}  // namespace

StatusOr<aot::PreprocessResult> DemoBackend::preprocess(
    const aot::Graph& subgraph, std::span<const aot::CompileSpec> compile_specs) {
  GLASSBOX_ASSIGN_OR_RETURN(IdentifierMode mode, backends::parse_aot_compile_specs(compile_specs));
  return Lowering(subgraph, mode).run();
}

aot::Partitioner make_demo_partitioner(DemoBackend& backend) {
  auto constant_params = [](const aot::Graph& graph, const Node& node) {
    if (node.op != aot::op::kConv2d) return true;
    // The demo format stores symmetric padding only ([h, w]); a 4-entry
    // (possibly asymmetric) ONNX padding stays on the portable kernels.
    const auto padding = node.attributes.find("padding");
    if (padding != node.attributes.end()) {
      const auto* pads = std::get_if<std::vector<std::int64_t>>(&padding->second);
      if (pads == nullptr || pads->size() != 2) return false;
    }
    for (std::size_t i = 1; i < node.inputs.size(); ++i) {
      const aot::Value* v = graph.find_value(node.inputs[i]);
      if (v == nullptr || v->kind != aot::ValueKind::kConstant || v->data.empty()) return false;
    }
    return true;
  };
  return aot::Partitioner(
      backend,
      {std::string(aot::op::kConv2d), std::string(aot::op::kRelu), std::string(aot::op::kTan)},
      constant_params);
}

Status register_demo_backend(aot::BackendRegistry& registry) {
  return registry.register_backend(std::make_unique<DemoBackend>());
}

}  // namespace glassbox::backends::demo

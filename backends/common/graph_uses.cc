#include "backends/common/graph_uses.h"

#include "backends/common/node_attributes.h"

namespace glassbox::backends {

bool is_computed(const aot::Graph& graph, aot::ValueId id) {
  const aot::Value* v = graph.find_value(id);
  return v != nullptr && v->kind != aot::ValueKind::kConstant;
}

bool is_float_constant(const aot::Graph& graph, aot::ValueId id) {
  const aot::Value* v = graph.find_value(id);
  return v != nullptr && v->kind == aot::ValueKind::kConstant && !v->data.empty() &&
         v->dtype == ScalarType::kFloat && static_cast<std::int64_t>(v->data.size()) == v->numel();
}

std::variant<ConstantGather, std::string> constant_gather(const aot::Graph& graph,
                                                          const aot::Node& node) {
  const aot::Value* data = graph.find_value(node.inputs[0]);
  const aot::Value* indices = graph.find_value(node.inputs[1]);
  if (data == nullptr || indices == nullptr || indices->dtype != ScalarType::kLong ||
      indices->int_data.size() != 1 || indices->numel() != 1) {
    return std::string("gather of other than one constant index");
  }
  const auto rank = static_cast<std::int64_t>(data->shape.size());
  std::int64_t axis = int_attr(node, "axis", 0);
  if (axis < -rank || axis >= rank) return std::string("gather axis out of range");
  if (axis < 0) axis += rank;
  const std::int64_t dim = data->shape[static_cast<std::size_t>(axis)];
  std::int64_t index = indices->int_data[0];
  if (index < -dim || index >= dim) return std::string("gather index out of range");
  if (index < 0) index += dim;
  return ConstantGather{static_cast<std::size_t>(axis), index};
}

const aot::Node* producer_of(const aot::Graph& graph, aot::ValueId id) {
  for (const aot::Node& n : graph.nodes) {
    for (aot::ValueId out : n.outputs) {
      if (out == id) return &n;
    }
  }
  return nullptr;
}

int count_users(const aot::Graph& graph, aot::ValueId id) {
  int users = 0;
  for (const aot::Node& n : graph.nodes) {
    for (aot::ValueId in : n.inputs) users += in == id ? 1 : 0;
  }
  for (aot::ValueId out : graph.outputs) users += out == id ? 1 : 0;
  return users;
}

GraphUses::GraphUses(const aot::Graph& graph) : graph_(graph) {
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    for (aot::ValueId in : graph.nodes[n].inputs) users_[in.value].push_back(n);
  }
  for (aot::ValueId out : graph.outputs) ++output_uses_[out.value];
  absorbed_.assign(graph.nodes.size(), false);
}

const aot::Node* GraphUses::sole_user(aot::ValueId id) const {
  if (output_uses_.contains(id.value)) return nullptr;
  auto it = users_.find(id.value);
  if (it == users_.end() || it->second.size() != 1) return nullptr;
  return &graph_.nodes[it->second[0]];
}

std::vector<const aot::Node*> GraphUses::users(aot::ValueId id) const {
  std::vector<const aot::Node*> nodes;
  if (auto it = users_.find(id.value); it != users_.end()) {
    for (std::size_t n : it->second) nodes.push_back(&graph_.nodes[n]);
  }
  return nodes;
}

void GraphUses::absorb(const aot::Node& node) {
  absorbed_[static_cast<std::size_t>(&node - graph_.nodes.data())] = true;
}

}  // namespace glassbox::backends

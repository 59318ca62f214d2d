#include "backends/common/graph_uses.h"

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

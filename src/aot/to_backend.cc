#include "glassbox/aot/to_backend.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {
namespace {

Status invalid(std::string message) { return Status(Error::kInvalidArgument, std::move(message)); }

// The module path shared by all nodes of a partition, so the Inspector can
// still attribute a delegate call to the module it lowered.
std::vector<ModuleFrame> common_module_prefix(const Graph& graph, const Partition& partition) {
  std::vector<ModuleFrame> prefix = graph.nodes[partition.node_indices.front()].module_hierarchy;
  for (std::size_t index : partition.node_indices) {
    const auto& frames = graph.nodes[index].module_hierarchy;
    auto mismatch = std::mismatch(prefix.begin(), prefix.end(), frames.begin(), frames.end());
    prefix.erase(mismatch.first, prefix.end());
  }
  return prefix;
}

Status check_map_against_partition(const std::string& backend, const DebugHandleMap& map,
                                   const std::set<DebugHandle>& partition_handles) {
  Status valid = validate_debug_handle_map(map);
  if (!valid.ok()) {
    return invalid("backend '" + backend +
                   "' returned an invalid debug handle map: " + valid.message());
  }
  for (const auto& [id, handles] : map) {
    for (DebugHandle h : handles) {
      if (!partition_handles.contains(h)) {
        return invalid("backend '" + backend + "' maps identifier " + describe(id) +
                       " to debug handle " + std::to_string(h.value) +
                       ", which is not a node of its partition");
      }
    }
  }
  return Status();
}

// Orders `nodes` topologically, keeping each node as close to its key (its
// original position) as the data flow allows, so lowering changes the order
// of untouched nodes only where it must.
StatusOr<std::vector<Node>> stable_topological_order(std::vector<Node> nodes,
                                                     const std::vector<std::size_t>& keys) {
  std::unordered_map<std::int32_t, std::size_t> producer;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (ValueId out : nodes[i].outputs) producer[out.value] = i;
  }
  std::vector<std::vector<std::size_t>> users(nodes.size());
  std::vector<std::size_t> pending(nodes.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::set<std::size_t> deps;
    for (ValueId in : nodes[i].inputs) {
      auto it = producer.find(in.value);
      if (it != producer.end() && it->second != i) deps.insert(it->second);
    }
    pending[i] = deps.size();
    for (std::size_t d : deps) users[d].push_back(i);
  }
  using Entry = std::pair<std::size_t, std::size_t>;  // (key, index)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (pending[i] == 0) ready.emplace(keys[i], i);
  }
  std::vector<Node> ordered;
  while (!ready.empty()) {
    const std::size_t i = ready.top().second;
    ready.pop();
    ordered.push_back(std::move(nodes[i]));
    for (std::size_t u : users[i]) {
      if (--pending[u] == 0) ready.emplace(keys[u], u);
    }
  }
  if (ordered.size() != nodes.size()) {
    return Status(Error::kInternal,
                  "lowering created a cycle; the partitioner should prevent this");
  }
  return ordered;
}

}  // namespace

StatusOr<Graph> extract_subgraph(const Graph& graph, const Partition& partition) {
  if (partition.node_indices.empty()) return invalid("extract_subgraph: empty partition");
  std::unordered_set<std::size_t> members;
  for (std::size_t k = 0; k < partition.node_indices.size(); ++k) {
    const std::size_t index = partition.node_indices[k];
    if (index >= graph.nodes.size() || (k > 0 && partition.node_indices[k - 1] >= index)) {
      return invalid("extract_subgraph: partition node indices must be ascending and in range");
    }
    members.insert(index);
  }

  std::unordered_set<std::int32_t> produced;
  for (std::size_t index : partition.node_indices) {
    for (ValueId out : graph.nodes[index].outputs) produced.insert(out.value);
  }
  std::vector<ValueId> inputs;
  std::unordered_set<std::int32_t> kept;  // Values the subgraph needs.
  std::unordered_set<std::int32_t> used_inside;
  Graph sub;
  for (std::size_t index : partition.node_indices) {
    const Node& node = graph.nodes[index];
    // A delegate's blob has static sizes; a value sized by data at each
    // execution (aot::Value::dynamic) stays with the portable kernels,
    // whatever a partitioner (a plug-in's too) proposed.
    for (const std::vector<ValueId>* ids : {&node.inputs, &node.outputs}) {
      for (ValueId id : *ids) {
        const Value* value = graph.find_value(id);
        if (value != nullptr && value->dynamic) {
          return invalid("extract_subgraph: node '" + node.name + "' uses '" + value->name +
                         "', whose size depends on data (dynamic values run on the portable "
                         "kernels only)");
        }
      }
    }
    for (ValueId in : node.inputs) {
      used_inside.insert(in.value);
      if (produced.contains(in.value) || !kept.insert(in.value).second) continue;
      const Value* value = graph.find_value(in);
      if (value == nullptr)
        return invalid("extract_subgraph: unknown value " + std::to_string(in.value));
      if (value->kind != ValueKind::kConstant) inputs.push_back(in);
    }
    for (ValueId out : node.outputs) kept.insert(out.value);
    sub.nodes.push_back(node);
  }

  std::unordered_set<std::int32_t> used_outside(graph.outputs.size());
  for (ValueId out : graph.outputs) used_outside.insert(out.value);
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (members.contains(i)) continue;
    for (ValueId in : graph.nodes[i].inputs) used_outside.insert(in.value);
  }
  for (const Node& node : sub.nodes) {
    for (ValueId out : node.outputs) {
      // A value nobody uses is still an output, so no result is lost silently.
      if (used_outside.contains(out.value) || !used_inside.contains(out.value)) {
        sub.outputs.push_back(out);
      }
    }
  }

  const std::unordered_set<std::int32_t> input_set = [&] {
    std::unordered_set<std::int32_t> s;
    for (ValueId id : inputs) s.insert(id.value);
    return s;
  }();
  for (const Value& value : graph.values) {
    if (!kept.contains(value.id.value)) continue;
    sub.values.push_back(value);
    if (input_set.contains(value.id.value)) {
      sub.values.back().kind = ValueKind::kInput;
    }
  }
  sub.inputs = std::move(inputs);
  return sub;
}

StatusOr<Graph> to_backend(const Graph& graph, const Partitioner& partitioner,
                           std::span<const CompileSpec> compile_specs) {
  GLASSBOX_RETURN_IF_ERROR(verify(graph));
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<Partition> partitions, partitioner.partition(graph));
  BackendDetails& backend = partitioner.backend();
  const std::string backend_name = backend.name();

  std::set<std::string, std::less<>> node_names;
  for (const Node& node : graph.nodes) node_names.insert(node.name);
  auto fresh_name = [&node_names] {
    std::string name(op::kDelegateCall);
    for (int k = 1; node_names.contains(name); ++k) {
      name = std::string(op::kDelegateCall) + "_" + std::to_string(k);
    }
    node_names.insert(name);
    return name;
  };

  std::vector<Node> nodes;
  std::vector<std::size_t> keys;
  std::vector<bool> lowered(graph.nodes.size(), false);
  std::uint32_t next_handle = graph.max_debug_handle().value + 1;
  for (const Partition& partition : partitions) {
    GLASSBOX_ASSIGN_OR_RETURN(Graph subgraph, extract_subgraph(graph, partition));
    StatusOr<PreprocessResult> result = backend.preprocess(subgraph, compile_specs);
    if (!result.ok())
      return result.status().with_context("backend '" + backend_name + "' preprocess");

    std::set<DebugHandle> handles;
    for (std::size_t index : partition.node_indices) {
      handles.insert(graph.nodes[index].debug_handle);
      lowered[index] = true;
    }
    if (result->debug_handle_map) {
      GLASSBOX_RETURN_IF_ERROR(
          check_map_against_partition(backend_name, *result->debug_handle_map, handles));
    }

    Node call;
    call.name = fresh_name();
    call.op = std::string(op::kDelegateCall);
    call.inputs = subgraph.inputs;
    call.outputs = subgraph.outputs;
    call.debug_handle = DebugHandle(next_handle++);
    call.module_hierarchy = common_module_prefix(graph, partition);
    call.delegate =
        DelegateCall{backend_name, std::move(result->processed_bytes),
                     std::vector<CompileSpec>(compile_specs.begin(), compile_specs.end()),
                     std::move(result->debug_handle_map)};
    nodes.push_back(std::move(call));
    keys.push_back(partition.node_indices.front());
  }
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (lowered[i]) continue;
    nodes.push_back(graph.nodes[i]);
    keys.push_back(i);
  }

  Graph out;
  GLASSBOX_ASSIGN_OR_RETURN(out.nodes, stable_topological_order(std::move(nodes), keys));
  out.inputs = graph.inputs;
  out.outputs = graph.outputs;
  // Drop the values that only lived inside partitions (and constants only
  // they used): they now exist only in the processed bytes.
  std::unordered_set<std::int32_t> referenced;
  for (const Node& node : out.nodes) {
    for (ValueId id : node.inputs) referenced.insert(id.value);
    for (ValueId id : node.outputs) referenced.insert(id.value);
  }
  for (ValueId id : graph.outputs) referenced.insert(id.value);
  for (const Value& value : graph.values) {
    if (value.kind == ValueKind::kInput || referenced.contains(value.id.value)) {
      out.values.push_back(value);
    }
  }
  Status status = verify(out);
  if (!status.ok()) return status.with_context("lowered graph for backend '" + backend_name + "'");
  return out;
}

}  // namespace glassbox::aot

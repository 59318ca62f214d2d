#include "glassbox/aot/partitioner.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {

Partitioner::Partitioner(BackendDetails& backend, std::set<std::string, std::less<>> supported_ops,
                         NodePredicate predicate)
    : backend_(&backend),
      supported_ops_(std::move(supported_ops)),
      predicate_(std::move(predicate)) {}

bool Partitioner::supports(const Graph& graph, const Node& node) const {
  if (node.is_delegate_call() || !supported_ops_.contains(node.op)) return false;
  return !predicate_ || predicate_(graph, node);
}

namespace {

// Groups of nodes under union-find, with the cycle test on the quotient
// graph (every current group contracted to one vertex). That graph stays a
// DAG, so merging groups A and B creates a cycle exactly when one reaches
// the other through some third vertex.
class Grouping {
 public:
  explicit Grouping(std::vector<std::vector<std::size_t>> successors)
      : successors_(std::move(successors)), parent_(successors_.size()) {
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
  }

  std::size_t find(std::size_t n) {
    while (parent_[n] != n) n = parent_[n] = parent_[parent_[n]];
    return n;
  }

  // Merges the groups of `a` and `b` unless that would create a cycle.
  void try_merge(std::size_t a, std::size_t b) {
    const std::size_t ga = find(a);
    const std::size_t gb = find(b);
    if (ga == gb || reaches_indirectly(ga, gb) || reaches_indirectly(gb, ga)) return;
    parent_[std::max(ga, gb)] = std::min(ga, gb);
  }

 private:
  // Whether group `from` reaches group `to` through a vertex of neither:
  // a search over groups, O(nodes + edges).
  bool reaches_indirectly(std::size_t from, std::size_t to) {
    std::vector<std::vector<std::size_t>> members(parent_.size());
    for (std::size_t n = 0; n < parent_.size(); ++n) members[find(n)].push_back(n);
    std::vector<bool> seen(parent_.size(), false);
    std::vector<std::size_t> stack{from};
    seen[from] = true;
    while (!stack.empty()) {
      const std::size_t group = stack.back();
      stack.pop_back();
      for (std::size_t member : members[group]) {
        for (std::size_t successor : successors_[member]) {
          const std::size_t next = find(successor);
          if (next == to) {
            if (group != from) return true;  // A direct edge is fine.
            continue;
          }
          if (!seen[next]) {
            seen[next] = true;
            stack.push_back(next);
          }
        }
      }
    }
    return false;
  }

  std::vector<std::vector<std::size_t>> successors_;
  std::vector<std::size_t> parent_;
};

}  // namespace

StatusOr<std::vector<Partition>> Partitioner::partition(const Graph& graph) const {
  GLASSBOX_RETURN_IF_ERROR(verify(graph));
  const std::size_t n = graph.nodes.size();
  std::unordered_map<std::int32_t, std::size_t> producer;
  for (std::size_t i = 0; i < n; ++i) {
    for (ValueId out : graph.nodes[i].outputs) producer[out.value] = i;
  }
  std::vector<bool> supported(n);
  std::vector<std::vector<std::size_t>> successors(n);
  std::vector<std::pair<std::size_t, std::size_t>> edges;  // producer -> user
  for (std::size_t i = 0; i < n; ++i) {
    supported[i] = supports(graph, graph.nodes[i]);
    for (ValueId in : graph.nodes[i].inputs) {
      auto it = producer.find(in.value);
      if (it == producer.end()) continue;
      successors[it->second].push_back(i);
      edges.emplace_back(it->second, i);
    }
  }

  Grouping grouping(std::move(successors));
  // Edges in topological order of their users, so groups grow along the
  // data flow. A rejected merge can never become valid later: merging only
  // adds paths, so one pass gives maximal groups.
  for (auto [from, to] : edges) {
    if (supported[from] && supported[to]) grouping.try_merge(from, to);
  }

  std::vector<Partition> partitions;
  std::unordered_map<std::size_t, std::size_t> partition_of_group;
  for (std::size_t i = 0; i < n; ++i) {
    if (!supported[i]) continue;
    auto [it, inserted] = partition_of_group.emplace(grouping.find(i), partitions.size());
    if (inserted) partitions.emplace_back();
    partitions[it->second].node_indices.push_back(i);
  }
  return partitions;
}

}  // namespace glassbox::aot

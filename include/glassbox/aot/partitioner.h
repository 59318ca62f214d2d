#pragma once
/// @file
/// `Partitioner`: picks the parts of a graph a backend can run. A backend
/// declares the ops it supports (and optionally a per-node predicate, e.g.
/// "only 3x3 convolutions"); the partitioner groups supported nodes into
/// maximal connected partitions such that collapsing every partition into
/// one delegate-call node leaves the graph acyclic.
///
///   a -> b -> d     a, b, d supported, c not: {a, b, d} would need c's
///   a -> c -> d     output inside and feed c from inside, a cycle; so the
///                   partitions are {a, b} and {d}.

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "glassbox/aot/backend_details.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// Some nodes of a graph that one delegate-call node will replace.
struct Partition {
  /// Indices into `Graph::nodes`, ascending (so in topological order).
  std::vector<std::size_t> node_indices;
  friend bool operator==(const Partition&, const Partition&) = default;
};

class Partitioner {
 public:
  /// Refines the op set for single nodes (the graph gives access to values).
  using NodePredicate = std::function<bool(const Graph&, const Node&)>;

  /// `backend` is not owned and must outlive the partitioner.
  Partitioner(BackendDetails& backend, std::set<std::string, std::less<>> supported_ops,
              NodePredicate predicate = {});

  BackendDetails& backend() const { return *backend_; }

  /// Whether the backend can run `node` (never a delegate call).
  bool supports(const Graph& graph, const Node& node) const;

  /// The partitions of `graph` (verified first), ordered by first node.
  /// Greedy merging along data edges: two groups are merged when no path
  /// leaves one and re-enters the other; every pair of adjacent groups left
  /// apart would create a cycle, so the result is maximal.
  StatusOr<std::vector<Partition>> partition(const Graph& graph) const;

 private:
  BackendDetails* backend_;
  std::set<std::string, std::less<>> supported_ops_;
  NodePredicate predicate_;
};

}  // namespace glassbox::aot

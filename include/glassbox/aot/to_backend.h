#pragma once
/// @file
/// `to_backend()`: lowers the partitions a Partitioner finds into
/// delegate-call nodes.
///
///   for each partition:
///     extract_subgraph -> backend.preprocess(subgraph, specs)
///       -> check the debug handle map only names handles of the partition
///       -> one "delegate_call" node {backend, processed bytes, specs, map}
///          with a fresh debug handle (max handle of the graph + 1, + 2, ...)
///
/// The input graph is never modified; the lowered graph is returned.

#include <span>

#include "glassbox/aot/compile_spec.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/partitioner.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

/// The subgraph of `partition`'s nodes, keeping their value ids, names and
/// provenance. Its inputs are the non-constant values the nodes use but do
/// not produce (in order of first use); constants they use are copied in;
/// its outputs are the values they produce that are used by other nodes or
/// are graph outputs (in production order).
StatusOr<Graph> extract_subgraph(const Graph& graph, const Partition& partition);

/// Lowers every partition of `graph` found by `partitioner` with its backend.
/// `compile_specs` are passed to each preprocess call and stored on each
/// delegate-call node. Errors: `graph` fails verify(); preprocess fails
/// (its error, with the backend's name); the returned map is invalid or names
/// a debug handle outside its partition (kInvalidArgument naming the backend
/// and the identifier). Constants only used inside partitions are dropped
/// from the lowered graph; they live on in the processed bytes.
StatusOr<Graph> to_backend(const Graph& graph, const Partitioner& partitioner,
                           std::span<const CompileSpec> compile_specs = {});

}  // namespace glassbox::aot

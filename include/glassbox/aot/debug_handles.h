#pragma once
/// @file
/// Debug handles: a positive integer per source operator, assigned once on
/// the edge graph and kept by every later transformation. Inputs, outputs and
/// constants are values, not nodes, so they never have one.

#include <string>

#include "glassbox/aot/graph.h"

namespace glassbox::aot {

/// Gives the nodes of `graph` the handles 1, 2, ..., N in node order (which
/// is topological), replacing any handle they had. `graph` must not be null.
void assign_debug_handles(Graph* graph);

/// A new node with the provenance of `source`: its debug handle, module
/// hierarchy and source location. Passes that decompose or replace an op
/// build the replacement nodes with this, so that the replacements still map
/// back to the source operator (as ExecuTorch's preserved node meta does).
/// Inputs, outputs and attributes are left empty for the caller.
Node make_derived_node(const Node& source, std::string name, std::string op);

}  // namespace glassbox::aot

#pragma once
/// @file
/// Deterministic, versioned JSON for a Graph (the ETRecord stores the edge
/// graph this way). Format, version 1:
///
///   {"version": 1,
///    "values": [{"id": 0, "name": "x", "kind": "input" | "constant" |
///                "node_output", "dtype": "FLOAT", "shape": [1, 3, 8, 8],
///                "data": [0.5, ...]}],        // constants, only if written
///    "nodes": [{"name": "conv2d", "op": "conv2d", "inputs": [0, 1],
///               "outputs": [2], "attributes": {"groups": 1,
///               "stride": [1, 1], "min": 0.0, "mode": "x"},
///               "debug_handle": 1,
///               "module_hierarchy": [{"path": "conv", "type": "Conv2d"}],
///               "source_location": {"file": "m.cc", "line": 12,
///                                   "function": "build"},
///               "delegate": {...}}],           // delegate_call nodes only
///    "inputs": [0], "outputs": [3]}
///
///   "delegate": {"backend": "demo", "processed_bytes": "<hex>",
///                "compile_specs": [{"key": "k", "value": "<hex>"}],
///                "debug_handle_map": null | <debug_handle_map.h JSON>}
///
/// Attribute types follow JSON number kinds: an integer is an int attribute,
/// a number with a fraction or exponent ("0.0") is a float attribute, an
/// array of integers is an int list. Keys appear in the order above, values
/// and nodes in graph order, so equal graphs give identical text. Floats are
/// written with enough digits to read back exactly; non-finite floats cannot
/// be written (JSON has no NaN/Inf) and are an error.

#include <string>
#include <string_view>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

inline constexpr int kGraphJsonVersion = 1;

struct GraphJsonOptions {
  /// Whether to write constants' data. Off by default: the ETRecord needs the
  /// graph's structure, not a second copy of the weights.
  bool include_constant_data = false;
  /// Spaces per indent level; negative writes one line.
  int indent = -1;
};

/// Serialises `graph` (which should pass verify(); an invalid debug handle
/// map or a non-finite float is an error).
StatusOr<std::string> graph_to_json(const Graph& graph, const GraphJsonOptions& options = {});

/// Parses JSON written by graph_to_json and verifies the graph. Errors:
/// kCorruptData for malformed JSON or a missing / mistyped field (naming its
/// path, e.g. "nodes[2].inputs[0]"), kVersionMismatch for another version,
/// and verify()'s errors.
StatusOr<Graph> graph_from_json(std::string_view json);

}  // namespace glassbox::aot

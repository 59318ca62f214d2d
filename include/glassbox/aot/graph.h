#pragma once
/// @file
/// The AOT graph IR: a list of operator nodes over typed values, in
/// topological order. This is the "edge graph" of the pipeline: debug handles
/// are assigned on it, partitions are cut from it, and the ETRecord stores it.
///
///   x (input) ---.
///   w (constant) -+-> [conv2d h=1] -> conv2d -> [relu h=2] -> relu (output)
///   b (constant) -'
///
/// Values have stable ids: transformations (lowering, decomposition) keep the
/// ids of the values they keep, so a value can be followed across graphs.
/// A Graph is a plain value type; copying it copies everything (constants
/// included), and no API mutates a graph it was given by const reference.
///
/// Build graphs with `GraphBuilder` (graph_builder.h); check hand-made or
/// parsed ones with `verify()`.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "glassbox/aot/compile_spec.h"
#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/scalar_type.h"
#include "glassbox/core/status.h"

namespace glassbox::aot {

struct ValueIdTag {};
/// Names one value of a Graph. -1 means "no value".
using ValueId = StrongId<ValueIdTag, std::int32_t, -1>;
inline constexpr ValueId kInvalidValueId = ValueId::unset();

/// Where a value comes from.
enum class ValueKind : std::uint8_t {
  kInput,       ///< A graph input, listed in `Graph::inputs`.
  kConstant,    ///< A weight or other constant tensor.
  kNodeOutput,  ///< Produced by exactly one node.
};

/// "input", "constant" or "node_output".
std::string_view to_string(ValueKind kind);

/// A tensor value with a static shape.
struct Value {
  ValueId id;
  std::string name;
  ScalarType dtype = ScalarType::kFloat;
  std::vector<std::int64_t> shape;
  ValueKind kind = ValueKind::kNodeOutput;
  /// The size depends on data: `shape` is its upper bound (ops.h
  /// TensorType::dynamic). Only node outputs are dynamic.
  bool dynamic = false;
  /// Float constants only: the elements, row-major. Empty when the data was
  /// not recorded (e.g. a graph loaded from JSON written without constant
  /// data).
  std::vector<float> data;
  /// Integer and bool constants (LONG, INT, CHAR = int8, BYTE = uint8,
  /// BOOL) only: the elements as int64, row-major, each within its dtype's
  /// range (bools are 0 or 1); empty when not recorded.
  std::vector<std::int64_t> int_data;

  /// Number of elements (1 for a 0-d value).
  std::int64_t numel() const;

  friend bool operator==(const Value&, const Value&) = default;
};

/// One attribute of a node: an int, a float, a list of ints or a string.
using AttributeValue = std::variant<std::int64_t, double, std::vector<std::int64_t>, std::string>;
/// Attributes by name, sorted so that serialisation is deterministic.
using AttributeMap = std::map<std::string, AttributeValue, std::less<>>;

/// One level of the module hierarchy a node was created in.
struct ModuleFrame {
  std::string path;  ///< Dotted path from the root, e.g. "conv_layer.conv1".
  std::string type;  ///< The module's type, e.g. "Conv2d".
  friend bool operator==(const ModuleFrame&, const ModuleFrame&) = default;
};

/// The source line that created a node (for the Inspector's reports).
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;  ///< 0 when unknown.
  std::string function;
  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

/// The payload of a delegate-call node: a subgraph lowered by a backend.
struct DelegateCall {
  std::string backend;  ///< `BackendDetails::name()`.
  std::vector<std::uint8_t> processed_bytes;
  std::vector<CompileSpec> compile_specs;
  /// As returned by the backend; nullopt when it returned none.
  std::optional<DebugHandleMap> debug_handle_map;
  friend bool operator==(const DelegateCall&, const DelegateCall&) = default;
};

/// One operator call.
struct Node {
  std::string name;  ///< Unique within the graph, e.g. "conv2d_1".
  std::string op;    ///< An op of ops.h, e.g. "conv2d", or "delegate_call".
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  AttributeMap attributes;
  /// The source operator this node came from; unset (0) until assigned.
  /// Nodes decomposed from one source operator share its handle.
  DebugHandle debug_handle;
  /// Outermost module first; empty for nodes created at the top level.
  std::vector<ModuleFrame> module_hierarchy;
  SourceLocation source_location;
  /// Set exactly when `op == "delegate_call"`.
  std::optional<DelegateCall> delegate;

  bool is_delegate_call() const { return delegate.has_value(); }

  friend bool operator==(const Node&, const Node&) = default;
};

/// Values, nodes in topological order, and the graph's inputs and outputs.
struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;

  /// The value with `id`, or null. Pointers are invalidated when `values`
  /// changes size.
  const Value* find_value(ValueId id) const;
  Value* find_value(ValueId id);
  /// The node named `name`, or null.
  const Node* find_node(std::string_view name) const;
  /// The largest debug handle of any node (unset when there is none).
  DebugHandle max_debug_handle() const;
  /// An id not used by any value (one past the largest).
  ValueId next_value_id() const;

  friend bool operator==(const Graph&, const Graph&) = default;
};

/// Checks that `graph` is well formed. Errors (kInvalidArgument) name the
/// node or value and the problem. It checks: unique value ids and names,
/// unique node names; graph inputs are exactly the kInput values; constants'
/// data, when present, matches their shape; every node input is defined
/// before use (a graph input, a constant, or an output of an earlier node);
/// every node output is a kNodeOutput value produced exactly once; each op is
/// known and its inputs' dtypes, shapes and attributes give exactly its
/// declared output type (ops.h); delegate-call nodes carry a payload with a
/// valid debug handle map; graph outputs are defined.
Status verify(const Graph& graph);

}  // namespace glassbox::aot

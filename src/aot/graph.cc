#include "glassbox/aot/graph.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "glassbox/aot/ops.h"

namespace glassbox::aot {

std::string_view to_string(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInput: return "input";
    case ValueKind::kConstant: return "constant";
    case ValueKind::kNodeOutput: return "node_output";
  }
  return "";
}

std::int64_t Value::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

const Value* Graph::find_value(ValueId id) const {
  // Ids are usually dense indices, so try that slot before searching.
  if (id.value >= 0 && static_cast<std::size_t>(id.value) < values.size() &&
      values[static_cast<std::size_t>(id.value)].id == id) {
    return &values[static_cast<std::size_t>(id.value)];
  }
  for (const Value& v : values) {
    if (v.id == id) return &v;
  }
  return nullptr;
}

Value* Graph::find_value(ValueId id) {
  return const_cast<Value*>(std::as_const(*this).find_value(id));
}

const Node* Graph::find_node(std::string_view name) const {
  for (const Node& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

DebugHandle Graph::max_debug_handle() const {
  DebugHandle max;
  for (const Node& n : nodes) max = std::max(max, n.debug_handle);
  return max;
}

ValueId Graph::next_value_id() const {
  std::int32_t next = 0;
  for (const Value& v : values) next = std::max(next, v.id.value + 1);
  return ValueId(next);
}

namespace {

Status invalid(std::string message) { return Status(Error::kInvalidArgument, std::move(message)); }

// The representable range of a narrow integer dtype; nullopt for others.
std::optional<std::pair<std::int64_t, std::int64_t>> integer_range(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::kChar: return std::pair<std::int64_t, std::int64_t>{-128, 127};
    case ScalarType::kByte: return std::pair<std::int64_t, std::int64_t>{0, 255};
    case ScalarType::kInt: return std::pair<std::int64_t, std::int64_t>{INT32_MIN, INT32_MAX};
    default: return std::nullopt;
  }
}

std::string value_label(ValueId id) { return "value " + std::to_string(id.value); }

Status verify_values(const Graph& graph, std::unordered_map<std::int32_t, const Value*>* by_id) {
  std::unordered_set<std::string_view> names;
  for (const Value& v : graph.values) {
    const std::string label = value_label(v.id) + " '" + v.name + "'";
    if (!v.id.is_set()) return invalid(label + ": invalid id");
    if (!by_id->emplace(v.id.value, &v).second) return invalid(label + ": duplicate value id");
    if (!names.insert(v.name).second) return invalid(label + ": duplicate value name");
    for (std::int64_t d : v.shape) {
      if (d < 0) return invalid(label + ": negative dimension");
    }
    if (v.dynamic && v.kind != ValueKind::kNodeOutput) {
      return invalid(label + ": only a node's output can be dynamic (sized by data)");
    }
    if (v.kind == ValueKind::kConstant) {
      const bool is_float = v.dtype == ScalarType::kFloat;
      if (!is_float && v.dtype != ScalarType::kLong && v.dtype != ScalarType::kInt &&
          v.dtype != ScalarType::kBool && v.dtype != ScalarType::kChar &&
          v.dtype != ScalarType::kByte) {
        return invalid(label + ": constants must be FLOAT, LONG, INT, CHAR, BYTE or BOOL");
      }
      if (is_float ? !v.int_data.empty() : !v.data.empty()) {
        return invalid(label + ": carries data of another dtype than its " +
                       std::string(to_string(v.dtype)));
      }
      const std::size_t count = is_float ? v.data.size() : v.int_data.size();
      if (count != 0 && static_cast<std::int64_t>(count) != v.numel()) {
        return invalid(label + ": has " + std::to_string(count) +
                       " elements of data, shape needs " + std::to_string(v.numel()));
      }
      if (v.dtype == ScalarType::kBool) {
        for (std::int64_t b : v.int_data) {
          if (b != 0 && b != 1) return invalid(label + ": bool data must be 0 or 1");
        }
      }
      // Narrow integer constants (int8/uint8 weights and zero points, int32
      // biases) must hold values their dtype can represent.
      if (const auto range = integer_range(v.dtype)) {
        for (std::int64_t x : v.int_data) {
          if (x < range->first || x > range->second) {
            return invalid(label + ": " + std::string(to_string(v.dtype)) + " data holds " +
                           std::to_string(x) + ", outside [" + std::to_string(range->first) + ", " +
                           std::to_string(range->second) + "]");
          }
        }
      }
    } else if (!v.data.empty() || !v.int_data.empty()) {
      return invalid(label + ": only constants may carry data");
    }
  }
  std::set<std::int32_t> inputs;
  for (ValueId id : graph.inputs) {
    auto it = by_id->find(id.value);
    if (it == by_id->end()) return invalid("graph input " + value_label(id) + " does not exist");
    if (it->second->kind != ValueKind::kInput) {
      return invalid("graph input " + value_label(id) + " is a " +
                     std::string(to_string(it->second->kind)) + " value");
    }
    if (!inputs.insert(id.value).second)
      return invalid("graph input " + value_label(id) + " listed twice");
  }
  for (const Value& v : graph.values) {
    if (v.kind == ValueKind::kInput && !inputs.contains(v.id.value)) {
      return invalid(value_label(v.id) + " '" + v.name +
                     "' is an input but not in the graph's inputs");
    }
  }
  return Status();
}

}  // namespace

Status verify(const Graph& graph) {
  std::unordered_map<std::int32_t, const Value*> by_id;
  GLASSBOX_RETURN_IF_ERROR(verify_values(graph, &by_id));

  // Defined so far: inputs and constants up front, node outputs as we go.
  std::unordered_set<std::int32_t> defined;
  for (const Value& v : graph.values) {
    if (v.kind != ValueKind::kNodeOutput) defined.insert(v.id.value);
  }
  std::unordered_set<std::string_view> node_names;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    const std::string label =
        "node " + std::to_string(i) + " '" + node.name + "' (" + node.op + ")";
    if (node.name.empty()) return invalid(label + ": empty name");
    if (!node_names.insert(node.name).second) return invalid(label + ": duplicate node name");

    std::vector<TensorType> input_types;
    for (ValueId id : node.inputs) {
      auto it = by_id.find(id.value);
      if (it == by_id.end())
        return invalid(label + ": input " + value_label(id) + " does not exist");
      if (!defined.contains(id.value)) {
        return invalid(label + ": input " + value_label(id) + " '" + it->second->name +
                       "' is used before it is defined");
      }
      input_types.push_back(TensorType{it->second->dtype, it->second->shape, it->second->dynamic});
    }
    if (node.outputs.empty()) return invalid(label + ": has no outputs");
    for (ValueId id : node.outputs) {
      auto it = by_id.find(id.value);
      if (it == by_id.end())
        return invalid(label + ": output " + value_label(id) + " does not exist");
      if (it->second->kind != ValueKind::kNodeOutput) {
        return invalid(label + ": output " + value_label(id) + " is a " +
                       std::string(to_string(it->second->kind)) + " value");
      }
      if (!defined.insert(id.value).second) {
        return invalid(label + ": output " + value_label(id) + " '" + it->second->name +
                       "' is assigned twice");
      }
    }

    const bool is_delegate = node.op == op::kDelegateCall;
    if (is_delegate != node.delegate.has_value()) {
      return invalid(label + (is_delegate ? ": delegate_call without a delegate payload"
                                          : ": delegate payload on a non-delegate op"));
    }
    if (is_delegate) {
      if (node.delegate->backend.empty()) return invalid(label + ": empty backend name");
      if (node.delegate->debug_handle_map) {
        Status map_status = validate_debug_handle_map(*node.delegate->debug_handle_map);
        if (!map_status.ok()) return invalid(label + ": " + map_status.message());
      }
      continue;  // A delegate's output types are declared, not inferred.
    }
    if (!is_known_op(node.op)) return invalid(label + ": unknown op");
    StatusOr<std::vector<TensorType>> inferred =
        infer_output_types(node.op, input_types, node.attributes);
    if (!inferred.ok()) return invalid(label + ": " + inferred.message());
    if (node.outputs.size() != inferred->size()) {
      return invalid(label + ": must have exactly " + std::to_string(inferred->size()) +
                     (inferred->size() == 1 ? " output" : " outputs"));
    }
    for (std::size_t o = 0; o < inferred->size(); ++o) {
      const TensorType& want = (*inferred)[o];
      const Value& out = *by_id.at(node.outputs[o].value);
      if (want.dtype != out.dtype || want.shape != out.shape || want.dynamic != out.dynamic) {
        TensorType declared{out.dtype, out.shape, out.dynamic};
        auto describe_type = [](const TensorType& t) {
          std::string s = std::string(to_string(t.dtype)) + (t.dynamic ? " at most [" : "[");
          for (std::size_t d = 0; d < t.shape.size(); ++d) {
            s += (d ? ", " : "") + std::to_string(t.shape[d]);
          }
          return s + "]";
        };
        return invalid(label + ": output '" + out.name + "' is declared " +
                       describe_type(declared) + " but the op produces " + describe_type(want));
      }
    }
  }
  for (const Value& v : graph.values) {
    if (v.kind == ValueKind::kNodeOutput && !defined.contains(v.id.value)) {
      return invalid(value_label(v.id) + " '" + v.name + "' is a node output no node produces");
    }
  }
  for (ValueId id : graph.outputs) {
    if (!by_id.contains(id.value))
      return invalid("graph output " + value_label(id) + " does not exist");
  }
  return Status();
}

}  // namespace glassbox::aot

#include "glassbox/aot/graph_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "json_util.h"

namespace glassbox::aot {
namespace {

using internal::as_int;
using internal::as_string;
using internal::corrupt;
using internal::field;
using internal::Json;

constexpr std::array<ScalarType, 23> kAllScalarTypes = {
    ScalarType::kByte,
    ScalarType::kChar,
    ScalarType::kShort,
    ScalarType::kInt,
    ScalarType::kLong,
    ScalarType::kHalf,
    ScalarType::kFloat,
    ScalarType::kDouble,
    ScalarType::kBool,
    ScalarType::kQInt8,
    ScalarType::kQUInt8,
    ScalarType::kQInt32,
    ScalarType::kBFloat16,
    ScalarType::kQUInt4x2,
    ScalarType::kQUInt2x4,
    ScalarType::kBits16,
    ScalarType::kFloat8_e5m2,
    ScalarType::kFloat8_e4m3fn,
    ScalarType::kFloat8_e5m2fnuz,
    ScalarType::kFloat8_e4m3fnuz,
    ScalarType::kUInt16,
    ScalarType::kUInt32,
    ScalarType::kUInt64,
};

constexpr std::array<ValueKind, 3> kAllValueKinds = {ValueKind::kInput, ValueKind::kConstant,
                                                     ValueKind::kNodeOutput};

// ---------------------------------------------------------------- writing

StatusOr<Json> attribute_to_json(const std::string& where, const AttributeValue& attribute) {
  if (const auto* d = std::get_if<double>(&attribute)) {
    if (!std::isfinite(*d)) return Status(Error::kInvalidArgument, where + ": non-finite float");
    return Json(*d);
  }
  return std::visit([](const auto& v) { return Json(v); }, attribute);
}

StatusOr<Json> node_to_json(const Node& node) {
  Json j = Json::object();
  j["name"] = node.name;
  j["op"] = node.op;
  Json inputs = Json::array();
  for (ValueId id : node.inputs) inputs.push_back(id.value);
  j["inputs"] = std::move(inputs);
  Json outputs = Json::array();
  for (ValueId id : node.outputs) outputs.push_back(id.value);
  j["outputs"] = std::move(outputs);
  Json attributes = Json::object();
  for (const auto& [name, value] : node.attributes) {
    GLASSBOX_ASSIGN_OR_RETURN(
        attributes[name],
        attribute_to_json("node '" + node.name + "' attribute '" + name + "'", value));
  }
  j["attributes"] = std::move(attributes);
  j["debug_handle"] = node.debug_handle.value;
  Json hierarchy = Json::array();
  for (const ModuleFrame& frame : node.module_hierarchy) {
    hierarchy.push_back(Json{{"path", frame.path}, {"type", frame.type}});
  }
  j["module_hierarchy"] = std::move(hierarchy);
  j["source_location"] = Json{{"file", node.source_location.file},
                              {"line", node.source_location.line},
                              {"function", node.source_location.function}};
  if (node.delegate) {
    const DelegateCall& call = *node.delegate;
    Json specs = Json::array();
    for (const CompileSpec& spec : call.compile_specs) {
      specs.push_back(Json{{"key", spec.key}, {"value", internal::to_hex(spec.value)}});
    }
    Json map = nullptr;
    if (call.debug_handle_map) {
      Status valid = validate_debug_handle_map(*call.debug_handle_map);
      if (!valid.ok()) return valid.with_context("node '" + node.name + "'");
      map = internal::debug_handle_map_to_json_value(*call.debug_handle_map);
    }
    j["delegate"] = Json{{"backend", call.backend},
                         {"processed_bytes", internal::to_hex(call.processed_bytes)},
                         {"compile_specs", std::move(specs)},
                         {"debug_handle_map", std::move(map)}};
  }
  return j;
}

// ---------------------------------------------------------------- reading

std::string at(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

StatusOr<const Json*> array_field(const Json& object, const char* key, const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(const Json* j, field(object, key, path));
  if (!j->is_array()) return corrupt(path + "." + key, "expected an array");
  return j;
}

StatusOr<std::string> string_field(const Json& object, const char* key, const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(const Json* j, field(object, key, path));
  return as_string(*j, path + "." + key);
}

StatusOr<std::vector<std::int64_t>> int_list(const Json& j, const std::string& path) {
  if (!j.is_array()) return corrupt(path, "expected an array of integers");
  std::vector<std::int64_t> ints;
  for (std::size_t i = 0; i < j.size(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t v, as_int(j[i], at(path, i)));
    ints.push_back(v);
  }
  return ints;
}

StatusOr<std::vector<ValueId>> value_ids(const Json& object, const char* key,
                                         const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(const Json* j, field(object, key, path));
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::int64_t> ints, int_list(*j, path + "." + key));
  std::vector<ValueId> ids;
  for (std::size_t i = 0; i < ints.size(); ++i) {
    if (ints[i] < 0 || ints[i] > std::numeric_limits<std::int32_t>::max()) {
      return corrupt(at(path + "." + key, i), "value id out of range");
    }
    ids.push_back(ValueId(static_cast<std::int32_t>(ints[i])));
  }
  return ids;
}

StatusOr<std::uint32_t> uint32_field(const Json& object, const char* key, const std::string& path) {
  GLASSBOX_ASSIGN_OR_RETURN(const Json* j, field(object, key, path));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t v, as_int(*j, path + "." + key));
  if (v < 0 || v > std::numeric_limits<std::uint32_t>::max()) {
    return corrupt(path + "." + key, "out of range for uint32");
  }
  return static_cast<std::uint32_t>(v);
}

StatusOr<Value> parse_value(const Json& j, const std::string& path) {
  Value value;
  GLASSBOX_ASSIGN_OR_RETURN(const Json* id, field(j, "id", path));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t raw_id, as_int(*id, path + ".id"));
  if (raw_id < 0 || raw_id > std::numeric_limits<std::int32_t>::max()) {
    return corrupt(path + ".id", "value id out of range");
  }
  value.id = ValueId(static_cast<std::int32_t>(raw_id));
  GLASSBOX_ASSIGN_OR_RETURN(value.name, string_field(j, "name", path));
  GLASSBOX_ASSIGN_OR_RETURN(std::string kind, string_field(j, "kind", path));
  auto kind_it = std::find_if(kAllValueKinds.begin(), kAllValueKinds.end(),
                              [&](ValueKind k) { return to_string(k) == kind; });
  if (kind_it == kAllValueKinds.end())
    return corrupt(path + ".kind", "unknown kind \"" + kind + "\"");
  value.kind = *kind_it;
  GLASSBOX_ASSIGN_OR_RETURN(std::string dtype, string_field(j, "dtype", path));
  auto dtype_it = std::find_if(kAllScalarTypes.begin(), kAllScalarTypes.end(),
                               [&](ScalarType t) { return to_string(t) == dtype; });
  if (dtype_it == kAllScalarTypes.end())
    return corrupt(path + ".dtype", "unknown dtype \"" + dtype + "\"");
  value.dtype = *dtype_it;
  GLASSBOX_ASSIGN_OR_RETURN(const Json* shape, field(j, "shape", path));
  GLASSBOX_ASSIGN_OR_RETURN(value.shape, int_list(*shape, path + ".shape"));
  // Written only when set: graphs without dynamic values read as before.
  if (auto dynamic = j.find("dynamic"); dynamic != j.end()) {
    if (!dynamic->is_boolean()) return corrupt(path + ".dynamic", "expected true or false");
    value.dynamic = dynamic->get<bool>();
  }
  if (auto data = j.find("int_data"); data != j.end()) {
    if (!data->is_array()) return corrupt(path + ".int_data", "expected an array of integers");
    for (std::size_t i = 0; i < data->size(); ++i) {
      GLASSBOX_ASSIGN_OR_RETURN(std::int64_t v, as_int((*data)[i], at(path + ".int_data", i)));
      value.int_data.push_back(v);
    }
  }
  if (auto data = j.find("data"); data != j.end()) {
    if (!data->is_array()) return corrupt(path + ".data", "expected an array of numbers");
    for (std::size_t i = 0; i < data->size(); ++i) {
      if (!(*data)[i].is_number()) return corrupt(at(path + ".data", i), "expected a number");
      const double d = (*data)[i].get<double>();
      if (std::fabs(d) > std::numeric_limits<float>::max()) {
        return corrupt(at(path + ".data", i), "out of range for float");
      }
      value.data.push_back(static_cast<float>(d));
    }
  }
  return value;
}

StatusOr<AttributeValue> parse_attribute(const Json& j, const std::string& path) {
  if (j.is_number_float()) return AttributeValue(j.get<double>());
  if (j.is_number()) {
    GLASSBOX_ASSIGN_OR_RETURN(std::int64_t v, as_int(j, path));
    return AttributeValue(v);
  }
  if (j.is_string()) return AttributeValue(j.get<std::string>());
  if (j.is_array()) {
    GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::int64_t> v, int_list(j, path));
    return AttributeValue(std::move(v));
  }
  return corrupt(
      path, std::string("attributes are ints, floats, int lists or strings, got ") + j.type_name());
}

StatusOr<DelegateCall> parse_delegate(const Json& j, const std::string& path) {
  DelegateCall call;
  GLASSBOX_ASSIGN_OR_RETURN(call.backend, string_field(j, "backend", path));
  GLASSBOX_ASSIGN_OR_RETURN(std::string bytes, string_field(j, "processed_bytes", path));
  GLASSBOX_ASSIGN_OR_RETURN(call.processed_bytes,
                            internal::from_hex(bytes, path + ".processed_bytes"));
  GLASSBOX_ASSIGN_OR_RETURN(const Json* specs, array_field(j, "compile_specs", path));
  for (std::size_t i = 0; i < specs->size(); ++i) {
    const std::string spec_path = at(path + ".compile_specs", i);
    CompileSpec spec;
    GLASSBOX_ASSIGN_OR_RETURN(spec.key, string_field((*specs)[i], "key", spec_path));
    GLASSBOX_ASSIGN_OR_RETURN(std::string hex, string_field((*specs)[i], "value", spec_path));
    GLASSBOX_ASSIGN_OR_RETURN(spec.value, internal::from_hex(hex, spec_path + ".value"));
    call.compile_specs.push_back(std::move(spec));
  }
  GLASSBOX_ASSIGN_OR_RETURN(const Json* map, field(j, "debug_handle_map", path));
  if (!map->is_null()) {
    GLASSBOX_ASSIGN_OR_RETURN(call.debug_handle_map, internal::debug_handle_map_from_json_value(
                                                         *map, path + ".debug_handle_map"));
  }
  return call;
}

StatusOr<Node> parse_node(const Json& j, const std::string& path) {
  Node node;
  GLASSBOX_ASSIGN_OR_RETURN(node.name, string_field(j, "name", path));
  GLASSBOX_ASSIGN_OR_RETURN(node.op, string_field(j, "op", path));
  GLASSBOX_ASSIGN_OR_RETURN(node.inputs, value_ids(j, "inputs", path));
  GLASSBOX_ASSIGN_OR_RETURN(node.outputs, value_ids(j, "outputs", path));
  GLASSBOX_ASSIGN_OR_RETURN(const Json* attributes, field(j, "attributes", path));
  if (!attributes->is_object()) return corrupt(path + ".attributes", "expected an object");
  for (const auto& [name, value] : attributes->items()) {
    GLASSBOX_ASSIGN_OR_RETURN(node.attributes[name],
                              parse_attribute(value, path + ".attributes." + name));
  }
  GLASSBOX_ASSIGN_OR_RETURN(std::uint32_t handle, uint32_field(j, "debug_handle", path));
  node.debug_handle = DebugHandle(handle);
  GLASSBOX_ASSIGN_OR_RETURN(const Json* hierarchy, array_field(j, "module_hierarchy", path));
  for (std::size_t i = 0; i < hierarchy->size(); ++i) {
    ModuleFrame frame;
    const std::string frame_path = at(path + ".module_hierarchy", i);
    GLASSBOX_ASSIGN_OR_RETURN(frame.path, string_field((*hierarchy)[i], "path", frame_path));
    GLASSBOX_ASSIGN_OR_RETURN(frame.type, string_field((*hierarchy)[i], "type", frame_path));
    node.module_hierarchy.push_back(std::move(frame));
  }
  GLASSBOX_ASSIGN_OR_RETURN(const Json* location, field(j, "source_location", path));
  const std::string location_path = path + ".source_location";
  GLASSBOX_ASSIGN_OR_RETURN(node.source_location.file,
                            string_field(*location, "file", location_path));
  GLASSBOX_ASSIGN_OR_RETURN(node.source_location.line,
                            uint32_field(*location, "line", location_path));
  GLASSBOX_ASSIGN_OR_RETURN(node.source_location.function,
                            string_field(*location, "function", location_path));
  if (auto delegate = j.find("delegate"); delegate != j.end()) {
    GLASSBOX_ASSIGN_OR_RETURN(node.delegate, parse_delegate(*delegate, path + ".delegate"));
  }
  return node;
}

StatusOr<Graph> parse_graph(const Json& j) {
  if (!j.is_object()) return corrupt("graph JSON", "expected an object at the top level");
  GLASSBOX_ASSIGN_OR_RETURN(const Json* version_json, field(j, "version", ""));
  GLASSBOX_ASSIGN_OR_RETURN(std::int64_t version, as_int(*version_json, "version"));
  if (version != kGraphJsonVersion) {
    return Status(Error::kVersionMismatch, "graph JSON version " + std::to_string(version) +
                                               " is not supported (this reader reads version " +
                                               std::to_string(kGraphJsonVersion) + ")");
  }
  Graph graph;
  GLASSBOX_ASSIGN_OR_RETURN(const Json* values, array_field(j, "values", ""));
  for (std::size_t i = 0; i < values->size(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(Value value, parse_value((*values)[i], at("values", i)));
    graph.values.push_back(std::move(value));
  }
  GLASSBOX_ASSIGN_OR_RETURN(const Json* nodes, array_field(j, "nodes", ""));
  for (std::size_t i = 0; i < nodes->size(); ++i) {
    GLASSBOX_ASSIGN_OR_RETURN(Node node, parse_node((*nodes)[i], at("nodes", i)));
    graph.nodes.push_back(std::move(node));
  }
  GLASSBOX_ASSIGN_OR_RETURN(graph.inputs, value_ids(j, "inputs", ""));
  GLASSBOX_ASSIGN_OR_RETURN(graph.outputs, value_ids(j, "outputs", ""));
  return graph;
}

}  // namespace

StatusOr<std::string> graph_to_json(const Graph& graph, const GraphJsonOptions& options) {
  Json j = Json::object();
  j["version"] = kGraphJsonVersion;
  Json values = Json::array();
  for (const Value& value : graph.values) {
    Json v = Json::object();
    v["id"] = value.id.value;
    v["name"] = value.name;
    v["kind"] = std::string(to_string(value.kind));
    v["dtype"] = std::string(to_string(value.dtype));
    v["shape"] = value.shape;
    if (value.dynamic) v["dynamic"] = true;  // `shape` is then its bound
    if (options.include_constant_data && value.kind == ValueKind::kConstant &&
        !value.data.empty()) {
      for (float f : value.data) {
        if (!std::isfinite(f)) {
          return Status(Error::kInvalidArgument,
                        "constant '" + value.name + "' has non-finite data");
        }
      }
      v["data"] = value.data;
    }
    if (options.include_constant_data && value.kind == ValueKind::kConstant &&
        !value.int_data.empty()) {
      v["int_data"] = value.int_data;
    }
    values.push_back(std::move(v));
  }
  j["values"] = std::move(values);
  Json nodes = Json::array();
  for (const Node& node : graph.nodes) {
    GLASSBOX_ASSIGN_OR_RETURN(Json n, node_to_json(node));
    nodes.push_back(std::move(n));
  }
  j["nodes"] = std::move(nodes);
  Json inputs = Json::array();
  for (ValueId id : graph.inputs) inputs.push_back(id.value);
  j["inputs"] = std::move(inputs);
  Json outputs = Json::array();
  for (ValueId id : graph.outputs) outputs.push_back(id.value);
  j["outputs"] = std::move(outputs);
  // Names come from models: bytes that are not UTF-8 are replaced, not thrown on.
  return j.dump(options.indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<Graph> graph_from_json(std::string_view text) {
  GLASSBOX_ASSIGN_OR_RETURN(Json j, internal::parse_json(text, "graph JSON"));
  StatusOr<Graph> graph = [&]() -> StatusOr<Graph> {
    // Every access is type-checked first; this only guards against a missed
    // case turning into an exception that escapes the API.
    try {
      return parse_graph(j);
    } catch (const Json::exception& e) {
      return Status(Error::kCorruptData, std::string("graph JSON: ") + e.what());
    }
  }();
  if (!graph.ok()) return graph.status();
  Status valid = verify(*graph);
  if (!valid.ok()) return valid.with_context("graph JSON");
  return graph;
}

}  // namespace glassbox::aot

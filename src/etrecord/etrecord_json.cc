// The record as `etrecord show --format json` prints it. The maps are built
// as JSON values (map_json.h), never parsed back from their text: parsing
// into ordered_json searches an object's members on every insertion, which
// made 200,000 delegate identifiers take 20 seconds.

#include "glassbox/etrecord/etrecord_json.h"

#include "src/etrecord/map_json.h"

namespace glassbox::etrecord {
namespace {

using internal::Json;

Json node_json(const aot::Node& node) {
  Json j = Json::object();
  j["name"] = node.name;
  j["op"] = node.op;
  j["debug_handle"] = node.debug_handle.value;
  Json frames = Json::array();
  for (const aot::ModuleFrame& frame : node.module_hierarchy) {
    frames.push_back(Json{{"path", frame.path}, {"type", frame.type}});
  }
  j["module_hierarchy"] = std::move(frames);
  j["source_location"] = Json{{"file", node.source_location.file},
                              {"line", node.source_location.line},
                              {"function", node.source_location.function}};
  Json inputs = Json::array();
  for (aot::ValueId id : node.inputs) inputs.push_back(id.value);
  Json outputs = Json::array();
  for (aot::ValueId id : node.outputs) outputs.push_back(id.value);
  j["inputs"] = std::move(inputs);
  j["outputs"] = std::move(outputs);
  return j;
}

// The map of `method`, or an empty one.
template <typename Map>
const Map& method_map(const aot::PerMethod<Map>& maps, const std::string& method) {
  static const Map kEmpty;
  auto it = maps.find(method);
  return it == maps.end() ? kEmpty : it->second;
}

}  // namespace

std::string etrecord_to_json(const ETRecord& record) {
  Json j = Json::object();
  j["version"] = record.version;
  j["source"] = to_string(record.source);
  // ExecuTorch's records have none: null, not an empty string.
  j["fingerprint"] = record.fingerprint.empty() ? Json(nullptr) : Json(record.fingerprint);
  Json methods = Json::object();
  for (const auto& [method, graph] : record.edge_graphs) {
    Json nodes = Json::array();
    for (const aot::Node& node : graph.nodes) nodes.push_back(node_json(node));
    Json m = Json::object();
    m["graph"] = Json{{"nodes", std::move(nodes)}};
    m["debug_handle_map"] =
        internal::debug_handles_value(method_map(record.debug_handle_map, method));
    m["delegate_map"] = internal::delegates_value(method_map(record.delegate_map, method));
    m["instruction_id_to_num_outs_map"] =
        internal::num_outs_value(method_map(record.instruction_id_to_num_outs_map, method));
    aot::internal::append_new_member(&methods, method, std::move(m));
  }
  j["methods"] = std::move(methods);
  j["reference_inputs"] = record.reference_inputs.size();
  j["reference_outputs"] = record.reference_outputs.size();
  j["notes"] = record.notes;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace glassbox::etrecord

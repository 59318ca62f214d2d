#include <string>

#include "glassbox/etdump/etdump_render.h"
#include "src/etdump/render/debug_values.h"

namespace glassbox::etdump {
namespace {

using Json = nlohmann::ordered_json;

std::string where(std::size_t run, std::size_t event) {
  return "event " + std::to_string(event) + " of run " + std::to_string(run);
}

StatusOr<Json> tensor_json(const Tensor& t, const DebugData* debug_data, const std::string& at) {
  Json j;
  j["dtype"] = dtype_name(t);
  j["sizes"] = t.sizes;
  j["strides"] = t.strides;
  j["offset"] = t.offset;
  GLASSBOX_ASSIGN_OR_RETURN(auto values, tensor_values(t, debug_data, at));
  if (values) j["values"] = *values;
  return j;
}

StatusOr<Json> value_json(const Value& v, const DebugData* debug_data, const std::string& at) {
  Json j;
  switch (v.type) {
    case ValueType::kNull: j["type"] = "null"; break;
    case ValueType::kString:
      // The schema's Value has no string member, so there is no payload.
      j["type"] = "string";
      break;
    case ValueType::kInt:
      j["type"] = "int";
      j["int"] = *v.int_value;
      break;
    case ValueType::kBool:
      j["type"] = "bool";
      j["bool"] = *v.bool_value;
      break;
    case ValueType::kFloat:
      j["type"] = "float";
      j["float"] = *v.float_value;
      break;
    case ValueType::kDouble:
      j["type"] = "double";
      j["double"] = *v.double_value;
      break;
    case ValueType::kTensor: {
      j["type"] = "tensor";
      GLASSBOX_ASSIGN_OR_RETURN(Json t, tensor_json(*v.tensor, debug_data, at));
      j.update(t);
      break;
    }
    case ValueType::kTensorList: {
      j["type"] = "tensor_list";
      Json tensors = Json::array();
      for (const Tensor& tensor : *v.tensor_list) {
        GLASSBOX_ASSIGN_OR_RETURN(Json t, tensor_json(tensor, debug_data, at));
        tensors.push_back(std::move(t));
      }
      j["tensors"] = std::move(tensors);
      break;
    }
  }
  if (v.output) j["output"] = *v.output;
  return j;
}

Json profile_json(const ETDumpFile& file, const ProfileEvent& p) {
  Json j;
  j["kind"] = "profile";
  if (p.name) j["name"] = *p.name;
  j["chain_index"] = p.chain_index;
  j["instruction_id"] = p.instruction_id.value;
  j["delegate_debug_id_int"] = p.delegate_debug_id_int.value;
  if (p.delegate_debug_id_str) {
    j["delegate_debug_id_str"] = *p.delegate_debug_id_str;
  }
  j["start_time"] = p.start_time;
  j["end_time"] = p.end_time;
  if (const auto ns = duration_ns(file, p)) j["duration_ns"] = *ns;
  if (p.delegate_debug_metadata) {
    j["metadata_hex"] = to_hex(*p.delegate_debug_metadata);
  }
  if (p.thread_index) j["thread_index"] = *p.thread_index;
  if (p.time_source) j["time_source"] = time_source_name(*p.time_source);
  return j;
}

Json allocation_json(const RunData& run, const AllocationEvent& a) {
  Json j;
  j["kind"] = "allocation";
  j["allocator_id"] = a.allocator_id.value;
  // The reader guarantees 1 <= id <= allocators.size().
  j["allocator_name"] = run.allocators[a.allocator_id.value - 1];
  j["allocation_size"] = a.allocation_size;
  return j;
}

StatusOr<Json> debug_json(const DebugEvent& d, const DebugData* debug_data, const std::string& at) {
  Json j;
  j["kind"] = "debug";
  if (d.name) j["name"] = *d.name;
  j["chain_index"] = d.chain_index;
  j["instruction_id"] = d.instruction_id.value;
  j["delegate_debug_id_int"] = d.delegate_debug_id_int.value;
  if (d.delegate_debug_id_str) {
    j["delegate_debug_id_str"] = *d.delegate_debug_id_str;
  }
  GLASSBOX_ASSIGN_OR_RETURN(j["value"], value_json(d.value, debug_data, at));
  return j;
}

}  // namespace

StatusOr<nlohmann::ordered_json> etdump_to_json(const ETDumpFile& file,
                                                const DebugData* debug_data) {
  Json root;
  root["version"] = file.version;
  if (file.tick_ratio) {
    root["tick_ratio"] = {{"numerator", file.tick_ratio->numerator},
                          {"denominator", file.tick_ratio->denominator}};
  }
  if (file.program_fingerprint) {
    root["program_fingerprint"] = *file.program_fingerprint;
  }
  if (file.dropped_events) root["dropped_events"] = *file.dropped_events;
  if (file.dropped_blocks) root["dropped_blocks"] = *file.dropped_blocks;
  if (file.producer) root["producer"] = *file.producer;

  Json runs = Json::array();
  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    const RunData& run = file.runs[r];
    Json jr;
    jr["name"] = run.name;
    jr["bundled_input_index"] = run.bundled_input_index;
    jr["allocators"] = run.allocators;
    if (run.dropped_events) jr["dropped_events"] = *run.dropped_events;
    if (run.rejected_events) jr["rejected_events"] = *run.rejected_events;
    if (run.tensor_data_dropped) {
      jr["tensor_data_dropped"] = *run.tensor_data_dropped;
    }
    Json events = Json::array();
    for (std::size_t e = 0; e < run.events.size(); ++e) {
      const Event& event = run.events[e];
      if (const auto* p = event.profile()) {
        events.push_back(profile_json(file, *p));
      } else if (const auto* a = event.allocation()) {
        events.push_back(allocation_json(run, *a));
      } else {
        GLASSBOX_ASSIGN_OR_RETURN(Json d, debug_json(*event.debug(), debug_data, where(r, e)));
        events.push_back(std::move(d));
      }
    }
    jr["events"] = std::move(events);
    runs.push_back(std::move(jr));
  }
  root["runs"] = std::move(runs);
  return root;
}

}  // namespace glassbox::etdump

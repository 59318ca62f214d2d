#include <ostream>
#include <string>

#include "glassbox/etdump/etdump_render.h"
#include "src/etdump/render/debug_values.h"

namespace glassbox::etdump {
namespace {

using Json = nlohmann::ordered_json;

std::string where(std::size_t run, std::size_t event) {
  return "event " + std::to_string(event) + " of run " + std::to_string(run);
}

// The debug data, how much of each tensor's values to show, and the
// summaries made so far.
struct TensorData {
  TensorData(const DebugData* debug_data, TensorValues values)
      : data(debug_data), mode(values), summaries(debug_data) {}
  const DebugData* data;
  TensorValues mode;
  ValueSummaries summaries;
};

StatusOr<Json> tensor_json(const Tensor& t, TensorData& data, const std::string& at) {
  Json j;
  j["dtype"] = dtype_name(t);
  j["sizes"] = t.sizes;
  j["strides"] = t.strides;
  j["offset"] = t.offset;
  if (data.mode == TensorValues::kAll) {
    GLASSBOX_ASSIGN_OR_RETURN(auto values, tensor_values(t, data.data, at));
    if (values) j["values"] = *values;
  } else {
    GLASSBOX_ASSIGN_OR_RETURN(auto summary, data.summaries.get(t, at));
    if (summary) {
      j["summary"] = Json{{"count", summary->count}, {"non_finite", summary->non_finite},
                          {"min", summary->min},     {"max", summary->max},
                          {"mean", summary->mean},   {"first", summary->first}};
    }
  }
  return j;
}

StatusOr<Json> value_json(const Value& v, TensorData& data, const std::string& at) {
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
      GLASSBOX_ASSIGN_OR_RETURN(Json t, tensor_json(*v.tensor, data, at));
      j.update(t);
      break;
    }
    case ValueType::kTensorList: {
      j["type"] = "tensor_list";
      Json tensors = Json::array();
      for (const Tensor& tensor : *v.tensor_list) {
        GLASSBOX_ASSIGN_OR_RETURN(Json t, tensor_json(tensor, data, at));
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
  if (!p.counters.empty()) {
    Json counters = Json::object();
    for (const Counter& c : p.counters) counters[counter_name(file, c)] = c.value;
    j["counters"] = counters;
  }
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

StatusOr<Json> debug_json(const DebugEvent& d, TensorData& data, const std::string& at) {
  Json j;
  j["kind"] = "debug";
  if (d.name) j["name"] = *d.name;
  j["chain_index"] = d.chain_index;
  j["instruction_id"] = d.instruction_id.value;
  j["delegate_debug_id_int"] = d.delegate_debug_id_int.value;
  if (d.delegate_debug_id_str) {
    j["delegate_debug_id_str"] = *d.delegate_debug_id_str;
  }
  GLASSBOX_ASSIGN_OR_RETURN(j["value"], value_json(d.value, data, at));
  return j;
}

Json file_header_json(const ETDumpFile& file) {
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
  if (!file.delegate_time_scales.empty()) {
    Json scales = Json::array();
    for (const DelegateTimeScale& scale : file.delegate_time_scales) {
      scales.push_back({{"backend", scale.backend},
                        {"numerator", scale.ns_per_tick.numerator},
                        {"denominator", scale.ns_per_tick.denominator}});
      if (scale.host_offset_ns) scales.back()["host_offset_ns"] = *scale.host_offset_ns;
    }
    root["delegate_time_scales"] = scales;
  }
  return root;
}

// A run's members except "events".
Json run_header_json(const RunData& run) {
  Json jr;
  jr["name"] = run.name;
  jr["bundled_input_index"] = run.bundled_input_index;
  jr["allocators"] = run.allocators;
  if (run.dropped_events) jr["dropped_events"] = *run.dropped_events;
  if (run.rejected_events) jr["rejected_events"] = *run.rejected_events;
  if (run.tensor_data_dropped) {
    jr["tensor_data_dropped"] = *run.tensor_data_dropped;
  }
  return jr;
}

StatusOr<Json> event_json(const ETDumpFile& file, std::size_t r, std::size_t e, TensorData& data) {
  const RunData& run = file.runs[r];
  const Event& event = run.events[e];
  if (const auto* p = event.profile()) return profile_json(file, *p);
  if (const auto* a = event.allocation()) return allocation_json(run, *a);
  return debug_json(*event.debug(), data, where(r, e));
}

// Decodes every tensor's values once, one tensor at a time, so that bad
// debug data is an error before anything is written rather than half-way
// through the output. Summaries are kept for the writing pass.
Status check_debug_values(const ETDumpFile& file, TensorData& data) {
  if (data.data == nullptr) return Status();
  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    for (std::size_t e = 0; e < file.runs[r].events.size(); ++e) {
      const DebugEvent* d = file.runs[r].events[e].debug();
      if (d == nullptr) continue;
      std::vector<const Tensor*> tensors;
      if (d->value.tensor) tensors.push_back(&*d->value.tensor);
      if (d->value.tensor_list) {
        for (const Tensor& t : *d->value.tensor_list) tensors.push_back(&t);
      }
      for (const Tensor* t : tensors) {
        if (data.mode == TensorValues::kAll) {
          GLASSBOX_RETURN_IF_ERROR(tensor_values(*t, data.data, where(r, e)).status());
        } else {
          GLASSBOX_RETURN_IF_ERROR(data.summaries.get(*t, where(r, e)).status());
        }
      }
    }
  }
  return Status();
}

// `j` dumped with indent 2 as if nested `depth` spaces deep (the first line
// is not indented: the caller has written the indent). Strings never hold
// a raw line break in JSON, so every '\n' is layout. Bytes that are not
// UTF-8 are replaced, never thrown on.
std::string indented(const Json& j, std::size_t depth) {
  const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string newline = "\n" + std::string(depth, ' ');
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      out += newline;
    } else {
      out += c;
    }
  }
  return out;
}

// An object with at least one member, dumped as above without its closing
// "\n}": the caller appends members, then closes it.
std::string open_object(const Json& j, std::size_t depth) {
  std::string text = indented(j, depth);
  return text.substr(0, text.rfind('\n'));
}

}  // namespace

StatusOr<nlohmann::ordered_json> etdump_to_json(const ETDumpFile& file, const DebugData* debug_data,
                                                TensorValues values) {
  TensorData data(debug_data, values);
  Json root = file_header_json(file);
  Json runs = Json::array();
  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    const RunData& run = file.runs[r];
    Json jr = run_header_json(run);
    Json events = Json::array();
    for (std::size_t e = 0; e < run.events.size(); ++e) {
      GLASSBOX_ASSIGN_OR_RETURN(Json event, event_json(file, r, e, data));
      events.push_back(std::move(event));
    }
    jr["events"] = std::move(events);
    runs.push_back(std::move(jr));
  }
  root["runs"] = std::move(runs);
  return root;
}

Status write_etdump_json(const ETDumpFile& file, const DebugData* debug_data, std::ostream& out,
                         TensorValues values) {
  auto failed = [&out] {
    return !out ? Status(Error::kAccessFailed, "cannot write the output") : Status();
  };
  TensorData data(debug_data, values);
  GLASSBOX_RETURN_IF_ERROR(check_debug_values(file, data));
  // The document of etdump_to_json, dumped with indent 2, written piece by
  // piece: each object's own members, then its last array one element at
  // a time, each element dumped alone and indented to its depth.
  out << open_object(file_header_json(file), 0) << ",\n  \"runs\": [";
  for (std::size_t r = 0; r < file.runs.size(); ++r) {
    const RunData& run = file.runs[r];
    out << (r == 0 ? "\n    " : ",\n    ") << open_object(run_header_json(run), 4)
        << ",\n      \"events\": [";
    for (std::size_t e = 0; e < run.events.size(); ++e) {
      GLASSBOX_ASSIGN_OR_RETURN(Json event, event_json(file, r, e, data));
      out << (e == 0 ? "\n        " : ",\n        ") << indented(event, 8);
      GLASSBOX_RETURN_IF_ERROR(failed());
    }
    out << (run.events.empty() ? "]" : "\n      ]") << "\n    }";
  }
  out << (file.runs.empty() ? "]" : "\n  ]") << "\n}\n";
  out.flush();
  return failed();
}

}  // namespace glassbox::etdump

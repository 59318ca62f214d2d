// Building, checking and writing an ETRecord. Reading is etrecord_load.cc.

#include "glassbox/etrecord/etrecord.h"

#include <cstring>
#include <fstream>
#include <set>

#include "glassbox/aot/graph_json.h"
#include "glassbox/aot/quantization.h"
#include "src/etrecord/entry_names.h"
#include "src/etrecord/map_json.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

Status invalid(const std::string& message) { return Status(Error::kInvalidArgument, message); }

std::string where(std::string_view map, const std::string& method, InstructionId id) {
  return std::string(map) + ": method '" + method + "' instruction " + std::to_string(id.value);
}

Status check_handles(std::string_view map, const std::string& method, InstructionId id,
                     const std::vector<DebugHandle>& handles, const std::set<DebugHandle>& known) {
  for (DebugHandle h : handles) {
    if (!known.contains(h)) {
      return invalid(where(map, method, id) + ": debug handle " + std::to_string(h.value) +
                     " is not a node of the edge graph");
    }
  }
  return Status();
}

// Checks the parts every record must hold: handle lists are sorted unique
// sets and delegate maps are valid. `strict` (our own records) adds what
// our emitter guarantees and ExecuTorch's does not: every instruction in
// instruction_id_to_num_outs_map and every handle a node of the edge graph.
Status validate_method(const ETRecord& record, const std::string& method, const aot::Graph& graph,
                       bool strict) {
  std::set<DebugHandle> known;
  for (const aot::Node& node : graph.nodes) known.insert(node.debug_handle);
  const auto num_outs = record.instruction_id_to_num_outs_map.find(method);
  if (strict) {
    if (num_outs == record.instruction_id_to_num_outs_map.end()) {
      return invalid("instruction_id_to_num_outs_map: no entry for method '" + method + "'");
    }
    // Every instruction is listed, so the ids must be exactly 0..n-1.
    std::int32_t expected = 0;
    for (const auto& [id, n] : num_outs->second) {
      if (id.value != expected++ || n < 0) {
        return invalid(where("instruction_id_to_num_outs_map", method, id) +
                       ": ids must run 0, 1, 2, ... with non-negative counts");
      }
    }
  }
  auto plausible = [&](std::string_view map, InstructionId id) {
    if (!strict || num_outs->second.contains(id)) return Status();
    return invalid(where(map, method, id) + ": no such instruction (the program has " +
                   std::to_string(num_outs->second.size()) + ")");
  };
  auto known_handles = [&](std::string_view map, InstructionId id,
                           const std::vector<DebugHandle>& handles) {
    return strict ? check_handles(map, method, id, handles, known) : Status();
  };
  if (auto it = record.debug_handle_map.find(method); it != record.debug_handle_map.end()) {
    for (const auto& [id, handles] : it->second) {
      GLASSBOX_RETURN_IF_ERROR(plausible("debug_handle_map", id));
      if (handles.empty() || !std::is_sorted(handles.begin(), handles.end()) ||
          std::adjacent_find(handles.begin(), handles.end()) != handles.end()) {
        return invalid(where("debug_handle_map", method, id) +
                       ": handles must be a non-empty sorted set");
      }
      GLASSBOX_RETURN_IF_ERROR(known_handles("debug_handle_map", id, handles));
    }
  }
  if (auto it = record.delegate_map.find(method); it != record.delegate_map.end()) {
    for (const auto& [id, entry] : it->second) {
      GLASSBOX_RETURN_IF_ERROR(plausible("delegate_map", id));
      if (entry.backend.empty())
        return invalid(where("delegate_map", method, id) + ": no backend name");
      if (!entry.delegate_map) continue;
      Status valid = aot::validate_debug_handle_map(*entry.delegate_map);
      if (!valid.ok()) return invalid(where("delegate_map", method, id) + ": " + valid.message());
      for (const auto& [key, handles] : *entry.delegate_map) {
        GLASSBOX_RETURN_IF_ERROR(known_handles("delegate_map", id, handles));
      }
    }
  }
  return Status();
}

// What differs for ExecuTorch's records: version 0, no fingerprint and no
// reference tensors (theirs are pickles, never read).
Status validate_executorch_header(const ETRecord& record) {
  if (record.version != kExecuTorchETRecordVersion) {
    return invalid("an ExecuTorch ETRecord has version " +
                   std::to_string(kExecuTorchETRecordVersion) + ", not " +
                   std::to_string(record.version));
  }
  if (!record.fingerprint.empty()) return invalid("an ExecuTorch ETRecord has no fingerprint");
  if (!record.reference_inputs.empty() || !record.reference_outputs.empty() ||
      !record.reference_op_outputs.empty()) {
    return invalid("an ExecuTorch ETRecord holds no reference tensors Glassbox can read");
  }
  return Status();
}

Status validate_tensors(const std::vector<ReferenceTensor>& tensors, std::string_view kind) {
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    std::int64_t numel = 1;
    for (std::int64_t s : tensors[i].sizes) {
      if (s < 0 || (s > 0 && numel > (std::int64_t{1} << 40) / s)) numel = -1;
      if (numel < 0) break;
      numel *= s;
    }
    if (numel < 0 || static_cast<std::uint64_t>(numel) != tensors[i].data.size()) {
      return invalid("reference " + std::string(kind) + " " + std::to_string(i) +
                     ": data does not match its sizes");
    }
  }
  return Status();
}

template <typename Map>
Status methods_have_graphs(const aot::PerMethod<Map>& maps, const ETRecord& record,
                           std::string_view name) {
  for (const auto& [method, map] : maps) {
    if (!record.edge_graphs.contains(method)) {
      return invalid(std::string(name) + ": method '" + method + "' has no edge graph");
    }
  }
  return Status();
}

void append_tensor_entry(const ReferenceTensor& tensor, const std::string& stem,
                         internal::ZipEntries* entries) {
  std::vector<std::uint8_t> bytes(tensor.data.size() * sizeof(float));
  if (!bytes.empty()) std::memcpy(bytes.data(), tensor.data.data(), bytes.size());
  (*entries)[stem + ".bin"] = std::move(bytes);
  const std::string meta = internal::tensor_meta_entry(tensor.sizes);
  (*entries)[stem + ".json"] = std::vector<std::uint8_t>(meta.begin(), meta.end());
}

void append_tensor_entries(const std::vector<ReferenceTensor>& tensors, std::string_view kind,
                           internal::ZipEntries* entries) {
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    append_tensor_entry(tensors[i], internal::reference_stem(kind, i), entries);
  }
}

using OpOutputs = std::map<DebugHandle, std::vector<ReferenceTensor>>;

// One of the per-op reference maps (`kind` names it in errors).
Status validate_op_outputs(const ETRecord& record, const OpOutputs& outputs,
                           std::string_view kind) {
  if (outputs.empty()) return Status();
  if (record.reference_inputs.empty()) {
    return invalid(std::string(kind) +
                   " are present without the reference inputs they were computed from");
  }
  auto forward = record.edge_graphs.find(aot::kForwardMethod);
  if (forward == record.edge_graphs.end()) {
    return invalid(std::string(kind) + " need a \"forward\" edge graph");
  }
  std::set<DebugHandle> known;
  for (const aot::Node& node : forward->second.nodes) known.insert(node.debug_handle);
  for (const auto& [handle, tensors] : outputs) {
    const std::string what = std::string(kind) + " of debug handle " + std::to_string(handle.value);
    if (!handle.is_set() || !known.contains(handle)) {
      return invalid(what + ": not a node of the edge graph");
    }
    if (tensors.empty()) return invalid(what + ": no tensor");
    Status valid = validate_tensors(tensors, "op output");
    if (!valid.ok()) return invalid(what + ": " + valid.message());
  }
  return Status();
}

Status validate_op_outputs(const ETRecord& record) {
  GLASSBOX_RETURN_IF_ERROR(
      validate_op_outputs(record, record.reference_op_outputs, "reference op outputs"));
  GLASSBOX_RETURN_IF_ERROR(
      validate_op_outputs(record, record.float_op_outputs, "float reference op outputs"));
  return validate_op_outputs(record, record.isolated_op_outputs, "isolated reference op outputs");
}

void append_op_outputs(const OpOutputs& outputs, std::string_view prefix,
                       internal::ZipEntries* entries) {
  for (const auto& [handle, tensors] : outputs) {
    for (std::size_t k = 0; k < tensors.size(); ++k) {
      append_tensor_entry(tensors[k], internal::op_output_stem(handle.value, k, prefix), entries);
    }
  }
}

// The scale and zero point inputs of quantization nodes: small constants
// the Inspector needs to read int8 outputs, kept when the record drops the
// weights.
std::set<std::int32_t> quantization_parameters(const aot::Graph& graph) {
  std::set<std::int32_t> ids;
  for (const aot::Node& node : graph.nodes) {
    if (!aot::is_quantization_op(node.op)) continue;
    for (std::size_t i = 1; i < node.inputs.size(); ++i) ids.insert(node.inputs[i].value);
  }
  return ids;
}

std::vector<std::uint8_t> bytes_of(std::string_view text) {
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

}  // namespace

std::string_view to_string(RecordSource source) {
  return source == RecordSource::kExecuTorch ? "executorch" : "glassbox";
}

Status ETRecord::validate() const {
  const bool ours = source == RecordSource::kGlassbox;
  if (!ours) {
    GLASSBOX_RETURN_IF_ERROR(validate_executorch_header(*this));
  } else if (version != kETRecordVersion) {
    return invalid("ETRecord version " + std::to_string(version) + " is not " +
                   std::to_string(kETRecordVersion));
  } else if (fingerprint.size() != aot::kFingerprintLength ||
             fingerprint.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return invalid("fingerprint \"" + fingerprint + "\" is not " +
                   std::to_string(aot::kFingerprintLength) + " lowercase hex digits");
  }
  if (ours && !notes.empty()) return invalid("notes belong to ExecuTorch ETRecords only");
  if (edge_graphs.empty()) return invalid("the ETRecord has no edge graph");
  GLASSBOX_RETURN_IF_ERROR(methods_have_graphs(debug_handle_map, *this, "debug_handle_map"));
  GLASSBOX_RETURN_IF_ERROR(methods_have_graphs(delegate_map, *this, "delegate_map"));
  GLASSBOX_RETURN_IF_ERROR(
      methods_have_graphs(instruction_id_to_num_outs_map, *this, "instruction_id_to_num_outs_map"));
  for (const auto& [method, graph] : edge_graphs) {
    if (method.empty() || method.find('/') != std::string::npos) {
      return invalid("method name '" + method + "' is empty or contains '/'");
    }
    GLASSBOX_RETURN_IF_ERROR(validate_method(*this, method, graph, ours));
  }
  GLASSBOX_RETURN_IF_ERROR(validate_tensors(reference_inputs, "input"));
  GLASSBOX_RETURN_IF_ERROR(validate_tensors(reference_outputs, "output"));
  return validate_op_outputs(*this);
}

StatusOr<std::vector<std::uint8_t>> ETRecord::to_bytes() const {
  if (source != RecordSource::kGlassbox) {
    return invalid(
        "an ETRecord read from ExecuTorch's format is not written: it has no fingerprint to "
        "bind it to a program");
  }
  GLASSBOX_RETURN_IF_ERROR(validate());
  internal::ZipEntries entries;
  entries[std::string(kMarkerEntry)] = bytes_of(std::to_string(version));
  entries[std::string(internal::kFingerprintEntry)] = bytes_of(fingerprint);
  for (const auto& [method, graph] : edge_graphs) {
    // Constant data is written where the record kept it: quantization
    // scales and zero points (make_etrecord drops the weights).
    GLASSBOX_ASSIGN_OR_RETURN(
        std::string json, aot::graph_to_json(graph, {.include_constant_data = true, .indent = 1}));
    entries[internal::edge_graph_entry(method)] = bytes_of(json);
  }
  entries[std::string(internal::kDebugHandleMapEntry)] =
      bytes_of(internal::debug_handle_map_entry(debug_handle_map));
  entries[std::string(internal::kDelegateMapEntry)] =
      bytes_of(internal::delegate_map_entry(delegate_map));
  entries[std::string(internal::kNumOutsMapEntry)] =
      bytes_of(internal::num_outs_map_entry(instruction_id_to_num_outs_map));
  append_tensor_entries(reference_inputs, internal::kInputs, &entries);
  append_tensor_entries(reference_outputs, internal::kOutputs, &entries);
  append_op_outputs(reference_op_outputs, internal::kOpsPrefix, &entries);
  append_op_outputs(float_op_outputs, internal::kFloatOpsPrefix, &entries);
  append_op_outputs(isolated_op_outputs, internal::kIsolatedOpsPrefix, &entries);
  return internal::write_zip(entries);
}

Status ETRecord::save(const std::string& path) const {
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<std::uint8_t> bytes, to_bytes());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return Status(Error::kAccessFailed, path + ": cannot write the ETRecord");
  return Status();
}

StatusOr<ETRecord> make_etrecord(const aot::Graph& edge_graph, const aot::EmitResult& program) {
  ETRecord record;
  record.fingerprint = program.fingerprint;
  aot::Graph graph = edge_graph;
  // The record needs the graph's structure, not a second copy of the
  // weights; quantization scales and zero points stay (a few numbers each).
  const std::set<std::int32_t> kept = quantization_parameters(graph);
  for (aot::Value& value : graph.values) {
    if (kept.contains(value.id.value)) continue;
    value.data.clear();
    value.int_data.clear();
  }
  record.edge_graphs[std::string(aot::kForwardMethod)] = std::move(graph);
  record.debug_handle_map = program.debug_handle_map;
  record.delegate_map = program.delegate_map;
  record.instruction_id_to_num_outs_map = program.instruction_id_to_num_outs_map;
  GLASSBOX_RETURN_IF_ERROR(record.validate());
  return record;
}

Status generate_etrecord(const std::string& path, const aot::Graph& edge_graph,
                         const aot::EmitResult& program) {
  GLASSBOX_ASSIGN_OR_RETURN(ETRecord record, make_etrecord(edge_graph, program));
  return record.save(path);
}

}  // namespace glassbox::etrecord

// `glassbox etrecord show FILE [--format text|json]`.

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "glassbox/etrecord/etrecord.h"
#include "glassbox/etrecord/etrecord_json.h"
#include "src/cli/commands.h"

namespace glassbox::cli {
namespace {

using Json = nlohmann::ordered_json;

struct ShowOptions {
  std::string file;
  std::string format = "text";
};

Json parsed(const std::string& text) {
  // Our own writer's output; never discarded, but no exception either way.
  return Json::parse(text, nullptr, /*allow_exceptions=*/false);
}

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

template <typename Map>
const Map* method_map(const aot::PerMethod<Map>& maps, const std::string& method) {
  auto it = maps.find(method);
  return it == maps.end() ? nullptr : &it->second;
}

Json to_json(const etrecord::ETRecord& record) {
  Json j = Json::object();
  j["version"] = record.version;
  j["source"] = etrecord::to_string(record.source);
  // ExecuTorch's records have none: null, not an empty string.
  j["fingerprint"] = record.fingerprint.empty() ? Json(nullptr) : Json(record.fingerprint);
  Json methods = Json::object();
  for (const auto& [method, graph] : record.edge_graphs) {
    Json nodes = Json::array();
    for (const aot::Node& node : graph.nodes) nodes.push_back(node_json(node));
    Json m = Json::object();
    m["graph"] = Json{{"nodes", std::move(nodes)}};
    const auto* handles = method_map(record.debug_handle_map, method);
    const auto* delegates = method_map(record.delegate_map, method);
    const auto* num_outs = method_map(record.instruction_id_to_num_outs_map, method);
    m["debug_handle_map"] = parsed(etrecord::instruction_debug_handles_to_json(
        handles ? *handles : aot::InstructionDebugHandles{}));
    m["delegate_map"] = parsed(
        etrecord::delegate_map_to_json(delegates ? *delegates : aot::InstructionDelegateMap{}));
    m["instruction_id_to_num_outs_map"] =
        parsed(etrecord::num_outs_map_to_json(num_outs ? *num_outs : aot::InstructionNumOuts{}));
    methods[method] = std::move(m);
  }
  j["methods"] = std::move(methods);
  j["reference_inputs"] = record.reference_inputs.size();
  j["reference_outputs"] = record.reference_outputs.size();
  j["notes"] = record.notes;
  return j;
}

template <typename Map>
void add_instruction_ids(const Map* map, std::set<InstructionId>* ids) {
  if (map == nullptr) return;
  for (const auto& item : *map) ids->insert(item.first);
}

std::string handle_list(const std::vector<DebugHandle>& handles) {
  std::string s = "[";
  for (std::size_t i = 0; i < handles.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(handles[i].value);
  }
  return s + "]";
}

std::string to_text(const etrecord::ETRecord& record, const std::string& file) {
  std::ostringstream out;
  out << "ETRecord " << file << "\n";
  if (record.source == etrecord::RecordSource::kExecuTorch) {
    out << "  written by ExecuTorch (" << etrecord::kExecuTorchMarkerEntry << "), no fingerprint\n";
  } else {
    out << "  version " << record.version << ", fingerprint " << record.fingerprint
        << ", reference inputs " << record.reference_inputs.size() << ", reference outputs "
        << record.reference_outputs.size() << "\n";
  }
  for (const std::string& note : record.notes) out << "  note: " << note << "\n";
  for (const auto& [method, graph] : record.edge_graphs) {
    out << "method " << method << ": edge graph of " << graph.nodes.size() << " operators\n";
    for (const aot::Node& node : graph.nodes) {
      out << "  handle " << node.debug_handle.value << "  " << node.op << "  " << node.name;
      if (!node.module_hierarchy.empty()) {
        out << "  in " << node.module_hierarchy.back().path << " ("
            << node.module_hierarchy.back().type << ")";
      }
      if (node.source_location.line != 0) {
        const std::string& f = node.source_location.file;
        out << "  at " << f.substr(f.find_last_of('/') + 1) << ":" << node.source_location.line;
      }
      out << "\n";
    }
    const auto* num_outs = method_map(record.instruction_id_to_num_outs_map, method);
    const auto* handles = method_map(record.debug_handle_map, method);
    const auto* delegates = method_map(record.delegate_map, method);
    // ExecuTorch's num-outs map lists delegate calls only: the instructions
    // are every id any of the three maps names.
    std::set<InstructionId> ids;
    add_instruction_ids(num_outs, &ids);
    add_instruction_ids(handles, &ids);
    add_instruction_ids(delegates, &ids);
    out << "  instructions: " << ids.size() << "\n";
    for (InstructionId id : ids) {
      auto n = num_outs ? num_outs->find(id) : aot::InstructionNumOuts::const_iterator{};
      out << "    " << id.value << ": outs "
          << (num_outs && n != num_outs->end() ? std::to_string(n->second) : "?") << ", handles ";
      auto h = handles ? handles->find(id) : aot::InstructionDebugHandles::const_iterator{};
      out << (handles && h != handles->end() ? handle_list(h->second) : "none");
      auto d = delegates ? delegates->find(id) : aot::InstructionDelegateMap::const_iterator{};
      if (delegates && d != delegates->end()) {
        out << ", delegate " << d->second.backend;
        if (!d->second.delegate_map) {
          out << " (no debug handle map)";
        } else {
          out << " (" << aot::to_string(aot::key_kind(*d->second.delegate_map)) << " ids)";
          for (const auto& [key, hs] : *d->second.delegate_map) {
            out << "\n        " << aot::describe(key) << " -> " << handle_list(hs);
          }
        }
      }
      out << "\n";
    }
  }
  return out.str();
}

Status show(const ShowOptions& options, std::ostream& out) {
  GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record, etrecord::ETRecord::load(options.file));
  if (options.format == "json") {
    out << to_json(record).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    out << to_text(record, options.file);
  }
  out.flush();
  if (!out) return Status(Error::kAccessFailed, "cannot write the output");
  return Status();
}

}  // namespace

void add_etrecord_commands(CLI::App& app, CommandContext& context) {
  CLI::App* etrecord = app.add_subcommand("etrecord", "Read ETRecord files");
  etrecord->require_subcommand(1);
  auto options = std::make_shared<ShowOptions>();
  CLI::App* show_command = etrecord->add_subcommand(
      "show", "Print an ETRecord, ours or ExecuTorch's: its edge graph and its three maps");
  show_command
      ->add_option("file", options->file,
                   "the ETRecord file (.etrecord, Glassbox's or ExecuTorch's)")
      ->required();
  show_command->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  show_command->callback([options, &context] { context.status = show(*options, *context.out); });
}

}  // namespace glassbox::cli

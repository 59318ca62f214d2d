// `glassbox etrecord show FILE [--format text|json]`.

#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "glassbox/etrecord/etrecord.h"
#include "glassbox/etrecord/etrecord_json.h"
#include "glassbox/io/printable.h"
#include "src/cli/commands.h"

namespace glassbox::cli {
namespace {

struct ShowOptions {
  std::string file;
  std::string format = "text";
};

template <typename Map>
const Map* method_map(const aot::PerMethod<Map>& maps, const std::string& method) {
  auto it = maps.find(method);
  return it == maps.end() ? nullptr : &it->second;
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
    out << "  version " << record.version << ", fingerprint " << io::printable(record.fingerprint)
        << ", reference inputs " << record.reference_inputs.size() << ", reference outputs "
        << record.reference_outputs.size() << "\n";
  }
  // Every string from the file is escaped: a name could hold a terminal
  // escape sequence, a line break or a bidi override.
  for (const std::string& note : record.notes) out << "  note: " << io::printable(note) << "\n";
  for (const auto& [method, graph] : record.edge_graphs) {
    out << "method " << io::printable(method) << ": edge graph of " << graph.nodes.size()
        << " operators\n";
    for (const aot::Node& node : graph.nodes) {
      out << "  handle " << node.debug_handle.value << "  " << io::printable(node.op) << "  "
          << io::printable(node.name);
      if (!node.module_hierarchy.empty()) {
        out << "  in " << io::printable(node.module_hierarchy.back().path) << " ("
            << io::printable(node.module_hierarchy.back().type) << ")";
      }
      if (node.source_location.line != 0) {
        const std::string& f = node.source_location.file;
        out << "  at " << io::printable(f.substr(f.find_last_of('/') + 1)) << ":"
            << node.source_location.line;
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
        out << ", delegate " << io::printable(d->second.backend);
        if (!d->second.delegate_map) {
          out << " (no debug handle map)";
        } else {
          out << " (" << aot::to_string(aot::key_kind(*d->second.delegate_map)) << " ids)";
          for (const auto& [key, hs] : *d->second.delegate_map) {
            out << "\n        " << io::printable(aot::describe(key)) << " -> " << handle_list(hs);
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
    out << etrecord::etrecord_to_json(record) << "\n";
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

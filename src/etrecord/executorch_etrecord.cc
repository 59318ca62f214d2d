#include "src/etrecord/executorch_etrecord.h"

#include <array>
#include <set>
#include <string>

#include "src/etrecord/executorch_graph.h"
#include "src/etrecord/executorch_maps.h"
#include "src/etrecord/map_json.h"

namespace glassbox::etrecord::internal {
namespace {

constexpr std::string_view kEdgeProgram = "edge_dialect_exported_program";
constexpr std::string_view kDebugHandleMap = "debug_handle_map";
constexpr std::string_view kDelegateMap = "delegate_map";
constexpr std::string_view kNumOutsMap = "instruction_id_to_num_outs_map";
// Pickled Python objects: reading them would mean running a pickle VM on
// untrusted bytes for tensors in torch's own storage format.
constexpr std::array<std::string_view, 2> kPickles = {"reference_outputs", "representative_inputs"};
// Entries that need no word: the serialized programs' binary companions,
// the aten-dialect program and its graph id (the edge program has the same
// operators and the handles), older files' program and ET-dialect graph.
constexpr std::array<std::string_view, 3> kCompanionSuffixes = {"_state_dict", "_constants",
                                                                "_example_inputs"};
// JSON held as a DOM takes several times its text in memory; a real edge
// program of a large model is tens of MiB.
constexpr std::size_t kMaxJsonEntryBytes = std::size_t{256} << 20;
constexpr std::array<std::string_view, 4> kQuietEntries = {
    "exported_program", "export_graph_id", "program_buffer", "et_dialect_graph_module"};

std::string_view text_of(const std::vector<std::uint8_t>& bytes) {
  return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The entry's base name without a serialized program's companion suffix.
std::string_view base_of(std::string_view name) {
  for (std::string_view suffix : kCompanionSuffixes) {
    if (name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

class ExecuTorchReader {
 public:
  ExecuTorchReader(const ZipEntries& entries, std::string_view source)
      : entries_(entries), source_(source) {}

  StatusOr<ETRecord> read() {
    record_.source = RecordSource::kExecuTorch;
    record_.version = kExecuTorchETRecordVersion;
    GLASSBOX_RETURN_IF_ERROR(classify_entries());
    GLASSBOX_ASSIGN_OR_RETURN(record_.debug_handle_map,
                              parse(kDebugHandleMap, &parse_executorch_debug_handle_map));
    if (entries_.contains(kDelegateMap)) {
      GLASSBOX_ASSIGN_OR_RETURN(record_.delegate_map,
                                parse(kDelegateMap, &parse_executorch_delegate_map));
    } else {
      record_.notes.push_back("no delegate_map entry: delegate events are shown unmapped");
    }
    if (entries_.contains(kNumOutsMap)) {
      GLASSBOX_ASSIGN_OR_RETURN(record_.instruction_id_to_num_outs_map,
                                parse(kNumOutsMap, &parse_num_outs_map_entry));
    }
    GLASSBOX_RETURN_IF_ERROR(read_graphs());
    Status valid = record_.validate();
    if (!valid.ok()) return corrupt("inconsistent contents: " + valid.message());
    return std::move(record_);
  }

 private:
  Status corrupt(const std::string& problem) const {
    return Status(Error::kCorruptData, std::string(source_) + ": " + problem);
  }

  template <typename T>
  StatusOr<T> parse(std::string_view name, StatusOr<T> (*parser)(std::string_view)) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      return corrupt("missing entry '" + std::string(name) +
                     "' (an ExecuTorch ETRecord without its program's maps cannot be joined)");
    }
    GLASSBOX_RETURN_IF_ERROR(check_size(it->first, it->second));
    StatusOr<T> parsed = parser(text_of(it->second));
    if (!parsed.ok()) return corrupt("entry '" + std::string(name) + "': " + parsed.message());
    return parsed;
  }

  Status check_size(const std::string& name, const std::vector<std::uint8_t>& bytes) const {
    if (bytes.size() <= kMaxJsonEntryBytes) return Status();
    return corrupt("entry '" + name + "' is " + std::to_string(bytes.size()) +
                   " bytes, more than the " + std::to_string(kMaxJsonEntryBytes >> 20) +
                   " MiB of JSON this reader accepts");
  }

  // Sorts the entries into edge programs, pickles and the rest.
  Status classify_entries() {
    std::set<std::string> other_modules;
    bool pickles = false;
    for (const auto& [name, bytes] : entries_) {
      if (base_of(name) != name) continue;  // A serialized program's binary companion.
      if (name == kEdgeProgram || name.starts_with(std::string(kEdgeProgram) + "/")) {
        const std::string method = name == kEdgeProgram ? std::string(aot::kForwardMethod)
                                                        : name.substr(kEdgeProgram.size() + 1);
        if (method.empty() || method.find('/') != std::string::npos) {
          return corrupt("unexpected entry '" + name + "'");
        }
        edge_programs_[method] = &name;
      } else if (std::find(kPickles.begin(), kPickles.end(), name) != kPickles.end()) {
        pickles = true;
      } else if (name == kDebugHandleMap || name == kDelegateMap || name == kNumOutsMap ||
                 name == kExecuTorchMarkerEntry) {
        continue;
      } else if (std::find(kQuietEntries.begin(), kQuietEntries.end(),
                           name.substr(0, name.find('/'))) == kQuietEntries.end()) {
        other_modules.insert(name);
      }
    }
    if (pickles) {
      record_.notes.push_back(
          "reference_outputs / representative_inputs are Python pickles and are not read: "
          "numeric comparison needs an ETRecord from glassbox lower --reference-seed");
    }
    if (!other_modules.empty()) {
      std::string list;
      for (const std::string& m : other_modules) list += (list.empty() ? "" : ", ") + m;
      record_.notes.push_back(
          "extra recorded modules not read (only the edge program is joined): " + list);
    }
    return Status();
  }

  Status read_graphs() {
    for (const auto& [method, entry] : edge_programs_) {
      GLASSBOX_RETURN_IF_ERROR(check_size(*entry, entries_.at(*entry)));
      StatusOr<aot::Graph> graph =
          graph_from_exported_program(text_of(entries_.at(*entry)), &record_.notes);
      if (!graph.ok()) return corrupt("entry '" + *entry + "': " + graph.message());
      record_.edge_graphs[method] = std::move(graph).value();
    }
    // Without the edge program the maps still give handles; each method of
    // the maps gets an empty graph so the record stays one shape.
    std::set<std::string> unnamed;
    auto cover = [&](const auto& maps) {
      for (const auto& [method, map] : maps) {
        if (!record_.edge_graphs.contains(method)) unnamed.insert(method);
      }
    };
    cover(record_.debug_handle_map);
    cover(record_.delegate_map);
    cover(record_.instruction_id_to_num_outs_map);
    for (const std::string& method : unnamed) {
      record_.edge_graphs[method] = aot::Graph{};
      record_.notes.push_back("no edge program for method \"" + method + "\" (entry '" +
                              std::string(kEdgeProgram) +
                              "'): its events map to debug handles but not to operators");
    }
    if (record_.edge_graphs.empty()) {
      return corrupt("missing entry '" + std::string(kEdgeProgram) +
                     "' and the maps name no method: nothing to join");
    }
    return Status();
  }

  const ZipEntries& entries_;
  std::string_view source_;
  ETRecord record_;
  std::map<std::string, const std::string*> edge_programs_;
};

}  // namespace

StatusOr<ETRecord> read_executorch_etrecord(const ZipEntries& entries, std::string_view source) {
  return ExecuTorchReader(entries, source).read();
}

}  // namespace glassbox::etrecord::internal

#include "src/inspector/record_index.h"

#include <string>
#include <string_view>

#include "glassbox/io/printable.h"

namespace glassbox::inspector {
namespace {

template <typename Map>
const typename Map::mapped_type* find_method(const Map& map, const std::string& method) {
  auto it = map.find(method);
  return it == map.end() ? nullptr : &it->second;
}

}  // namespace

RecordIndex::RecordIndex(const etrecord::ETRecord& record, std::vector<Diagnostic>* diagnostics) {
  const auto& graphs = record.edge_graphs;
  if (graphs.empty()) return;
  auto it = graphs.find(aot::kForwardMethod);
  if (it == graphs.end()) {
    it = graphs.begin();
    if (graphs.size() > 1) {
      diagnostics->push_back(
          {Severity::kWarning, "the ETRecord has no method \"forward\"; using \"" + it->first +
                                   "\" of " + std::to_string(graphs.size())});
    }
  } else if (graphs.size() > 1) {
    diagnostics->push_back(
        {Severity::kInfo, "the ETRecord has " + std::to_string(graphs.size()) +
                              " methods; the ETDump is joined with \"forward\""});
  }
  method_ = it->first;
  const std::vector<aot::Node>& nodes = it->second.nodes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].debug_handle.is_set()) {
      nodes_by_handle_[nodes[i].debug_handle.value].push_back({i, &nodes[i]});
    }
  }
  handle_map_ = find_method(record.debug_handle_map, method_);
  delegate_map_ = find_method(record.delegate_map, method_);
}

std::span<const IndexedNode> RecordIndex::nodes(DebugHandle handle) const {
  auto it = nodes_by_handle_.find(handle.value);
  if (it == nodes_by_handle_.end()) return {};
  return it->second;
}

const aot::DelegateMapEntry* RecordIndex::delegate_entry(InstructionId instruction) const {
  if (delegate_map_ == nullptr) return nullptr;
  auto it = delegate_map_->find(instruction);
  return it == delegate_map_->end() ? nullptr : &it->second;
}

const std::vector<DebugHandle>* RecordIndex::instruction_handles(InstructionId instruction) const {
  if (handle_map_ == nullptr) return nullptr;
  auto it = handle_map_->find(instruction);
  return it == handle_map_->end() ? nullptr : &it->second;
}

IdentifierMatch RecordIndex::find_identifier(InstructionId instruction,
                                             const aot::DelegateDebugIdentifier& id) const {
  IdentifierMatch match;
  match.entry = delegate_entry(instruction);
  if (match.entry == nullptr) {
    match.result = IdentifierLookup::kNotADelegate;
  } else if (!match.entry->delegate_map.has_value()) {
    match.result = IdentifierLookup::kNoMap;
  } else if (auto found = match.entry->delegate_map->find(id);
             found == match.entry->delegate_map->end()) {
    match.result = IdentifierLookup::kNotInMap;
  } else {
    match.result = IdentifierLookup::kFound;
    match.key = &found->first;
    match.handles = &found->second;
  }
  return match;
}

namespace {

// A fingerprint read from a file, fit for a one-line message: escaped
// (control bytes, line breaks) and cut after kShown bytes; ours are 16 hex
// digits, so only a damaged or foreign file is cut.
std::string shown_fingerprint(const std::string& fingerprint) {
  constexpr std::size_t kShown = 64;
  if (fingerprint.size() <= kShown) return io::printable(fingerprint);
  return io::printable(std::string_view(fingerprint).substr(0, kShown)) + "... (" +
         std::to_string(fingerprint.size()) + " bytes)";
}

}  // namespace

Status check_fingerprint(const etdump::ETDumpFile& dump, const etrecord::ETRecord& record,
                         bool allow_mismatch, std::string_view refusal,
                         std::string_view allowed_note, std::vector<Diagnostic>* diagnostics) {
  if (!dump.program_fingerprint.has_value() || record.fingerprint.empty() ||
      *dump.program_fingerprint == record.fingerprint) {
    return Status();
  }
  const std::string message = "fingerprint mismatch: the ETDump was recorded from program " +
                              shown_fingerprint(*dump.program_fingerprint) +
                              " but the ETRecord describes program " +
                              shown_fingerprint(record.fingerprint);
  if (!allow_mismatch) return Status(Error::kMismatch, message + std::string(refusal));
  diagnostics->push_back({Severity::kError, message + std::string(allowed_note)});
  return Status();
}

}  // namespace glassbox::inspector

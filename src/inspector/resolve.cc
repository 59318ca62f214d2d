// The join with the ETRecord (lookups in record_index.h): instruction ->
// handles for kernel and delegate calls, (instruction, identifier) ->
// handles for a delegate's own events by exact key only, handles ->
// edge-graph nodes; then the coverage checks (identifiers logged but
// unmapped, mapped but never logged).

#include <map>
#include <set>
#include <string>

#include "src/inspector/builder.h"
#include "src/inspector/record_index.h"

namespace glassbox::inspector {
namespace {

// Lists at most this many identifiers in one message.
constexpr std::size_t kMaxListed = 10;

std::string list_text(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < kMaxListed; ++i) {
    if (i > 0) text += ", ";
    text += items[i];
  }
  if (items.size() > kMaxListed) {
    text += " and " + std::to_string(items.size() - kMaxListed) + " more";
  }
  return text;
}

std::string identifier_for_message(const aot::DelegateDebugIdentifier& id) {
  return aot::describe(id);
}

}  // namespace

void InspectorBuilder::resolve(const etrecord::ETRecord& record, Inspector& inspector) {
  std::vector<Diagnostic>& diagnostics = inspector.diagnostics_;
  const RecordIndex index(record, &diagnostics);

  // Per delegate instruction: identifiers logged, and those not in its map.
  std::map<std::int32_t, std::set<aot::DelegateDebugIdentifier>> logged;
  std::map<std::int32_t, std::vector<std::string>> unmapped;
  std::map<std::int32_t, std::vector<std::string>> not_a_delegate;
  std::map<std::int32_t, std::vector<std::string>> no_map;

  for (EventGroup& group : inspector.groups_) {
    if (group.role == EventRole::kFramework) continue;
    if (group.role == EventRole::kDelegateInternal) {
      group.delegated = true;
      const std::int32_t instr = group.instruction.value;
      const IdentifierMatch match = index.find_identifier(group.instruction, *group.identifier);
      if (match.entry != nullptr) group.backend = match.entry->backend;
      if (match.result != IdentifierLookup::kFound) {
        group.resolved = false;
        auto& misses = match.result == IdentifierLookup::kNotADelegate ? not_a_delegate
                       : match.result == IdentifierLookup::kNoMap      ? no_map
                                                                       : unmapped;
        misses[instr].push_back(identifier_for_message(*group.identifier));
        continue;
      }
      logged[instr].insert(*match.key);
      group.debug_handles = *match.handles;
    } else {
      const aot::DelegateMapEntry* entry = index.delegate_entry(group.instruction);
      if (group.role == EventRole::kDelegateCall && entry != nullptr)
        group.backend = entry->backend;
      if (const auto* handles = index.instruction_handles(group.instruction)) {
        group.debug_handles = *handles;
      }
    }
    for (DebugHandle handle : group.debug_handles) {
      for (const IndexedNode& indexed : index.nodes(handle)) {
        const aot::Node& node = *indexed.node;
        group.source_ops.push_back(
            {handle, node.name, node.op, node.module_hierarchy, node.source_location});
      }
    }
  }

  for (const auto& [instr, ids] : not_a_delegate) {
    diagnostics.push_back(
        {Severity::kWarning, "delegate events logged at instruction " + std::to_string(instr) +
                                 ", which the ETRecord does not list as a delegate call: " +
                                 list_text(ids) + " (shown unmapped)"});
  }
  for (const auto& [instr, ids] : no_map) {
    diagnostics.push_back(
        {Severity::kWarning, "the delegate at instruction " + std::to_string(instr) +
                                 " returned no debug handle map, so its events cannot be mapped "
                                 "to source operators: " +
                                 list_text(ids)});
  }
  for (const auto& [instr, ids] : unmapped) {
    diagnostics.push_back({Severity::kWarning,
                           "identifiers logged by the delegate at instruction " +
                               std::to_string(instr) + " but missing from its debug handle map: " +
                               list_text(ids) + " (shown unmapped, never matched by similarity)"});
  }

  std::size_t mapped_total = 0, logged_total = 0;
  if (const aot::InstructionDelegateMap* delegate_map = index.delegate_map()) {
    for (const auto& [instr, entry] : *delegate_map) {
      if (!entry.delegate_map.has_value()) continue;
      const std::set<aot::DelegateDebugIdentifier>& seen = logged[instr.value];
      std::vector<std::string> never;
      for (const auto& [id, handles] : *entry.delegate_map) {
        if (!seen.contains(id)) never.push_back(identifier_for_message(id));
      }
      const std::size_t mapped = entry.delegate_map->size();
      mapped_total += mapped;
      logged_total += seen.size();
      std::string message = "delegate at instruction " + std::to_string(instr.value) + " (" +
                            entry.backend + "): " + std::to_string(seen.size()) + " of " +
                            std::to_string(mapped) + " identifiers logged";
      if (never.empty()) {
        diagnostics.push_back({Severity::kInfo, message});
      } else {
        diagnostics.push_back(
            {Severity::kWarning,
             message + "; never logged: " + list_text(never) +
                 (seen.empty() ? " (delegate profiling off? its time is shown as one DELEGATE_CALL)"
                               : "")});
      }
    }
  }
  set_coverage(inspector, mapped_total, logged_total);
}

}  // namespace glassbox::inspector

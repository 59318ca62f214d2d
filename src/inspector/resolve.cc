// The join with the ETRecord: instruction -> handles for kernel and
// delegate calls, (instruction, identifier) -> handles for a delegate's own
// events by exact key only, handles -> edge-graph nodes; then the coverage
// checks (identifiers logged but unmapped, mapped but never logged).

#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "src/inspector/builder.h"

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

// The method the dump was recorded from. The ETDump does not say, so use
// "forward" (the only one the emitter writes), else a sole method.
const aot::Graph* pick_method(const etrecord::ETRecord& record, std::string* method,
                              std::vector<Diagnostic>& diagnostics) {
  if (record.edge_graphs.empty()) return nullptr;
  auto it = record.edge_graphs.find(aot::kForwardMethod);
  if (it == record.edge_graphs.end()) {
    it = record.edge_graphs.begin();
    if (record.edge_graphs.size() > 1) {
      diagnostics.push_back({Severity::kWarning, "the ETRecord has no method \"forward\"; using \"" +
                                                     it->first + "\" of " +
                                                     std::to_string(record.edge_graphs.size())});
    }
  } else if (record.edge_graphs.size() > 1) {
    diagnostics.push_back({Severity::kInfo, "the ETRecord has " +
                                                std::to_string(record.edge_graphs.size()) +
                                                " methods; the ETDump is joined with \"forward\""});
  }
  *method = it->first;
  return &it->second;
}

template <typename Map>
const typename Map::mapped_type* find_method(const Map& map, const std::string& method) {
  auto it = map.find(method);
  return it == map.end() ? nullptr : &it->second;
}

std::string identifier_for_message(const aot::DelegateDebugIdentifier& id) {
  return aot::describe(id);
}

}  // namespace

void InspectorBuilder::resolve(const etrecord::ETRecord& record, Inspector& inspector) {
  std::vector<Diagnostic>& diagnostics = inspector.diagnostics_;
  std::string method;
  const aot::Graph* graph = pick_method(record, &method, diagnostics);
  const aot::InstructionDebugHandles* handle_map = find_method(record.debug_handle_map, method);
  const aot::InstructionDelegateMap* delegate_map = find_method(record.delegate_map, method);

  std::unordered_map<std::uint32_t, std::vector<const aot::Node*>> nodes_by_handle;
  if (graph != nullptr) {
    for (const aot::Node& node : graph->nodes) {
      if (node.debug_handle.is_set()) nodes_by_handle[node.debug_handle.value].push_back(&node);
    }
  }

  // Per delegate instruction: identifiers logged, and those not in its map.
  std::map<std::int32_t, std::set<aot::DelegateDebugIdentifier>> logged;
  std::map<std::int32_t, std::vector<std::string>> unmapped;
  std::map<std::int32_t, std::vector<std::string>> not_a_delegate;
  std::map<std::int32_t, std::vector<std::string>> no_map;

  for (EventGroup& group : inspector.groups_) {
    if (group.role == EventRole::kFramework) continue;
    const aot::DelegateMapEntry* entry = nullptr;
    if (delegate_map != nullptr) {
      auto it = delegate_map->find(group.instruction);
      if (it != delegate_map->end()) entry = &it->second;
    }
    if (group.role == EventRole::kDelegateInternal) {
      group.delegated = true;
      const std::int32_t instr = group.instruction.value;
      if (entry == nullptr) {
        group.resolved = false;
        not_a_delegate[instr].push_back(identifier_for_message(*group.identifier));
        continue;
      }
      group.backend = entry->backend;
      if (!entry->delegate_map.has_value()) {
        group.resolved = false;
        no_map[instr].push_back(identifier_for_message(*group.identifier));
        continue;
      }
      // Exact key, in the identifier's own type: an int event never
      // matches a string key or a key that merely contains its digits.
      auto found = entry->delegate_map->find(*group.identifier);
      if (found == entry->delegate_map->end()) {
        group.resolved = false;
        unmapped[instr].push_back(identifier_for_message(*group.identifier));
        continue;
      }
      logged[instr].insert(found->first);
      group.debug_handles = found->second;
    } else {
      if (group.role == EventRole::kDelegateCall && entry != nullptr) group.backend = entry->backend;
      if (handle_map != nullptr) {
        auto it = handle_map->find(group.instruction);
        if (it != handle_map->end()) group.debug_handles = it->second;
      }
    }
    for (DebugHandle handle : group.debug_handles) {
      auto it = nodes_by_handle.find(handle.value);
      if (it == nodes_by_handle.end()) continue;
      for (const aot::Node* node : it->second) {
        group.source_ops.push_back(
            {handle, node->name, node->op, node->module_hierarchy, node->source_location});
      }
    }
  }

  for (const auto& [instr, ids] : not_a_delegate) {
    diagnostics.push_back({Severity::kWarning,
                           "delegate events logged at instruction " + std::to_string(instr) +
                               ", which the ETRecord does not list as a delegate call: " +
                               list_text(ids) + " (shown unmapped)"});
  }
  for (const auto& [instr, ids] : no_map) {
    diagnostics.push_back({Severity::kWarning,
                           "the delegate at instruction " + std::to_string(instr) +
                               " returned no debug handle map, so its events cannot be mapped "
                               "to source operators: " + list_text(ids)});
  }
  for (const auto& [instr, ids] : unmapped) {
    diagnostics.push_back({Severity::kWarning,
                           "identifiers logged by the delegate at instruction " +
                               std::to_string(instr) + " but missing from its debug handle map: " +
                               list_text(ids) + " (shown unmapped, never matched by similarity)"});
  }

  std::size_t mapped_total = 0, logged_total = 0;
  if (delegate_map != nullptr) {
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

// The join with the ETRecord (lookups in record_index.h): instruction ->
// handles for kernel and delegate calls, (instruction, identifier) ->
// handles for a delegate's own events by exact key only, handles ->
// edge-graph nodes; then the coverage checks (identifiers logged but
// unmapped, mapped but never logged).

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "glassbox/aot/quantization.h"
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

// An ETRecord without a fingerprint (ExecuTorch's) cannot say it describes
// the dump's program; what can be checked is that every instruction id and
// delegate identifier the dump logs exists in its maps. resolve() reports
// each identifier missing from a map; this adds the instructions and the
// summary.
void check_ids_against_maps(const std::set<std::int32_t>& instructions,
                            const std::set<std::int32_t>& unknown_instructions,
                            std::size_t identifiers, std::size_t unknown_identifiers,
                            bool digit_strings, std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> unknown;
  for (std::int32_t instr : unknown_instructions) unknown.push_back(std::to_string(instr));
  if (!unknown.empty()) {
    diagnostics.push_back({Severity::kWarning,
                           "instruction ids logged in the ETDump but in none of the ETRecord's "
                           "maps: " +
                               list_text(unknown) +
                               " (was the ETDump recorded from this ETRecord's program?)"});
  }
  if (digit_strings) {
    diagnostics.push_back(
        {Severity::kInfo,
         "ExecuTorch's delegate_map does not record whether identifiers were ints or strings: "
         "a map whose keys are all digits is read as int identifiers, so string identifiers "
         "made of digits do not match it"});
  }
  const std::size_t instructions_found = instructions.size() - unknown_instructions.size();
  const std::size_t identifiers_found = identifiers - unknown_identifiers;
  const bool all = unknown_instructions.empty() && unknown_identifiers == 0;
  diagnostics.push_back(
      {all ? Severity::kInfo : Severity::kWarning,
       "the ETRecord has no program fingerprint (written by ExecuTorch): checked instead that "
       "the ETDump's ids exist in its maps: " +
           std::to_string(instructions_found) + " of " + std::to_string(instructions.size()) +
           " instruction ids and " + std::to_string(identifiers_found) + " of " +
           std::to_string(identifiers) + " delegate identifiers found"});
}

// A string identifier an int-keyed map from ExecuTorch could have held.
bool is_digit_string(const aot::DelegateDebugIdentifier& id) {
  const auto* text = std::get_if<std::string>(&id);
  return text != nullptr && !text->empty() &&
         text->find_first_not_of("0123456789") == std::string::npos;
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
  // For records without a fingerprint: every instruction logged, those no
  // map lists, and the distinct (instruction, identifier) pairs logged.
  std::set<std::int32_t> instructions, unknown_instructions;
  std::set<std::pair<std::int32_t, aot::DelegateDebugIdentifier>> identifiers, unknown_identifiers;
  bool digit_strings = false;

  for (EventGroup& group : inspector.groups_) {
    if (group.role == EventRole::kFramework) continue;
    if (group.instruction.is_set()) {
      instructions.insert(group.instruction.value);
      if (index.instruction_handles(group.instruction) == nullptr &&
          index.delegate_entry(group.instruction) == nullptr) {
        unknown_instructions.insert(group.instruction.value);
      }
    }
    if (group.role == EventRole::kDelegateInternal) {
      group.delegated = true;
      const std::int32_t instr = group.instruction.value;
      const IdentifierMatch match = index.find_identifier(group.instruction, *group.identifier);
      if (match.entry != nullptr) group.backend = match.entry->backend;
      identifiers.insert({instr, *group.identifier});
      if (match.result != IdentifierLookup::kFound) {
        unknown_identifiers.insert({instr, *group.identifier});
        digit_strings |= match.result == IdentifierLookup::kNotInMap &&
                         aot::key_kind(*match.entry->delegate_map) == aot::IdentifierKind::kInt &&
                         is_digit_string(*group.identifier);
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
      // The operator a handle stands for comes first: of a quantized group
      // (dequantize, conv2d, quantize) the conv2d, which names the row.
      const std::size_t first = group.source_ops.size();
      for (const IndexedNode& indexed : index.nodes(handle)) {
        const aot::Node& node = *indexed.node;
        group.source_ops.push_back(
            {handle, node.name, node.op, node.module_hierarchy, node.source_location});
      }
      std::stable_partition(group.source_ops.begin() + static_cast<std::ptrdiff_t>(first),
                            group.source_ops.end(),
                            [](const SourceOp& op) { return !aot::is_quantization_op(op.type); });
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

  if (record.fingerprint.empty()) {
    check_ids_against_maps(instructions, unknown_instructions, identifiers.size(),
                           unknown_identifiers.size(), digit_strings, diagnostics);
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
                 (!seen.empty() ? ""
                  : instructions.contains(instr.value)
                      ? " (delegate profiling off? its time is shown as one DELEGATE_CALL)"
                      : " (no event of this delegate was logged: method-level profiling?)")});
      }
    }
  }
  set_coverage(inspector, mapped_total, logged_total);
}

}  // namespace glassbox::inspector

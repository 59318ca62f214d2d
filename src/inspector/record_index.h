#pragma once
// Private: the ETRecord side of both joins the Inspector makes (timing rows
// in resolve.cc, numeric rows in numeric.cc), so each rule is written once:
// which method the ETDump was recorded from, the edge-graph nodes of a
// debug handle, the handles of an instruction, the (instruction,
// identifier) lookup in a delegate's map, and the program fingerprint check.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/emitter.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// A node of the indexed method's edge graph and its position there (the
/// graph is topologically ordered, so positions are source order).
struct IndexedNode {
  std::size_t position = 0;
  const aot::Node* node = nullptr;
};

/// How an (instruction, identifier) lookup ended.
enum class IdentifierLookup : std::uint8_t {
  kFound,         ///< `handles` holds the identifier's debug handles.
  kNotADelegate,  ///< The ETRecord lists no delegate call at the instruction.
  kNoMap,         ///< The delegate returned no debug handle map.
  kNotInMap,      ///< Its map has no such key (exact key, exact type).
};

struct IdentifierMatch {
  IdentifierLookup result = IdentifierLookup::kNotADelegate;
  /// The delegate call at the instruction; null only for kNotADelegate.
  const aot::DelegateMapEntry* entry = nullptr;
  /// For kFound: the map's own key and its handles.
  const aot::DelegateDebugIdentifier* key = nullptr;
  const std::vector<DebugHandle>* handles = nullptr;
};

/// Read-only lookups into one method of an ETRecord. `record` must outlive
/// the index; every pointer it returns points into `record`.
class RecordIndex {
 public:
  /// Indexes the method the ETDump was recorded from. The ETDump does not
  /// say which, so: "forward" (the only one the emitter writes), else the
  /// first. When the record has several methods the choice is explained in
  /// `diagnostics` (kInfo for "forward", kWarning otherwise); `diagnostics`
  /// is only used during the call and must not be null.
  RecordIndex(const etrecord::ETRecord& record, std::vector<Diagnostic>* diagnostics);

  /// The indexed method; empty when the record has no edge graph.
  const std::string& method() const { return method_; }

  /// The nodes carrying `handle`, in source order; empty when none does.
  /// (Nodes decomposed from one source operator share its handle.)
  std::span<const IndexedNode> nodes(DebugHandle handle) const;

  /// The delegate call at `instruction`, or null when it is none.
  const aot::DelegateMapEntry* delegate_entry(InstructionId instruction) const;

  /// The handles the debug handle map lists for `instruction` (a kernel or
  /// delegate call), or null when it lists none.
  const std::vector<DebugHandle>* instruction_handles(InstructionId instruction) const;

  /// Looks `id` up in the map of the delegate called at `instruction`, by
  /// exact key in the identifier's own type: an int never matches a string
  /// key, nor a key that merely contains its digits.
  IdentifierMatch find_identifier(InstructionId instruction,
                                  const aot::DelegateDebugIdentifier& id) const;

  /// Every delegate call of the method, or null (for coverage counts).
  const aot::InstructionDelegateMap* delegate_map() const { return delegate_map_; }

 private:
  std::string method_;
  std::unordered_map<std::uint32_t, std::vector<IndexedNode>> nodes_by_handle_;
  const aot::InstructionDebugHandles* handle_map_ = nullptr;
  const aot::InstructionDelegateMap* delegate_map_ = nullptr;
};

/// Checks that `dump` was recorded from the program `record` describes.
/// Passes when the fingerprints match or either side records none
/// (ExecuTorch's ETDumps and ETRecords do not: the caller may say so). On a mismatch the message
/// names both fingerprints and ends with `refusal` (kMismatch), or, when `allow_mismatch`, with
/// `allowed_note` in a kError diagnostic appended to `diagnostics` (must not be null) and the check
/// passes.
Status check_fingerprint(const etdump::ETDumpFile& dump, const etrecord::ETRecord& record,
                         bool allow_mismatch, std::string_view refusal,
                         std::string_view allowed_note, std::vector<Diagnostic>* diagnostics);

}  // namespace glassbox::inspector

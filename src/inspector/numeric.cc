// compare_numerics: the logged values of one execution, grouped into units,
// each resolved to source ops and compared with the reference output of
// the last of them (numeric.h explains the rules).

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/numeric.h"

namespace glassbox::inspector {
namespace {

constexpr std::string_view kExecuteBlock = "Execute";

// One tensor a run logged, with where it came from.
struct Logged {
  std::uint32_t order = 0;
  const etdump::DebugEvent* event = nullptr;
  const etdump::Tensor* tensor = nullptr;  // null for a non-tensor value
  std::uint32_t index = 0;                 // within its value, or its method output
};

struct NodeInfo {
  std::size_t position = 0;  // in the edge graph: source order
  const aot::Node* node = nullptr;
};

// What a row is being built from.
struct Unit {
  NumericRow row;
  Logged value;  // the one compared: the unit's last
};

Identifier identifier_of(const etdump::DebugEvent& e) {
  if (e.delegate_debug_id_int.is_set()) {
    return aot::DelegateDebugIdentifier(std::int64_t{e.delegate_debug_id_int.value});
  }
  if (e.delegate_debug_id_str.has_value() && !e.delegate_debug_id_str->empty()) {
    return aot::DelegateDebugIdentifier(*e.delegate_debug_id_str);
  }
  return std::nullopt;
}

std::vector<Logged> logged_values(const etdump::RunData& run) {
  std::vector<Logged> out;
  std::uint32_t order = 0, program_outputs = 0;
  for (const etdump::Event& event : run.events) {
    const etdump::DebugEvent* d = event.debug();
    if (d == nullptr) continue;
    const bool program_output = d->value.output.value_or(false);
    auto add = [&](const etdump::Tensor* t, std::uint32_t index) {
      out.push_back({order++, d, t, program_output ? program_outputs++ : index});
    };
    if (d->value.tensor.has_value()) {
      add(&*d->value.tensor, 0);
    } else if (d->value.tensor_list.has_value()) {
      for (std::size_t k = 0; k < d->value.tensor_list->size(); ++k) {
        add(&(*d->value.tensor_list)[k], static_cast<std::uint32_t>(k));
      }
    } else {
      add(nullptr, 0);
    }
  }
  return out;
}

class Builder {
 public:
  Builder(const etrecord::ETRecord& record, std::span<const std::uint8_t> debug_data,
          const NumericOptions& options, NumericReport* report)
      : record_(record), debug_data_(debug_data), options_(options), report_(*report) {
    const std::string forward(aot::kForwardMethod);
    if (auto it = record.edge_graphs.find(forward); it != record.edge_graphs.end()) {
      for (std::size_t i = 0; i < it->second.nodes.size(); ++i) {
        const aot::Node& node = it->second.nodes[i];
        if (node.debug_handle.is_set()) nodes_[node.debug_handle.value] = {i, &node};
      }
    }
    if (auto it = record.debug_handle_map.find(forward); it != record.debug_handle_map.end()) {
      handle_map_ = &it->second;
    }
    if (auto it = record.delegate_map.find(forward); it != record.delegate_map.end()) {
      delegate_map_ = &it->second;
    }
  }

  void add(const Logged& value) {
    const etdump::DebugEvent& e = *value.event;
    NumericRow row;
    row.order = value.order;
    row.instruction = e.instruction_id;
    row.output_index = value.index;
    if (e.value.output.value_or(false)) {
      row.kind = NumericRowKind::kProgramOutput;
      push(std::move(row), value);
      return;
    }
    const Identifier id = identifier_of(e);
    const aot::DelegateMapEntry* entry = delegate_entry(e.instruction_id);
    if (id.has_value()) {
      row.kind = NumericRowKind::kDelegateInternal;
      row.identifiers.push_back(*id);
      if (entry != nullptr) row.backend = entry->backend;
      if (entry == nullptr || !entry->delegate_map.has_value()) {
        unmapped(&row, "no delegate map for this instruction");
        push(std::move(row), value);
        return;
      }
      auto found = entry->delegate_map->find(*id);  // exact key, exact type
      if (found == entry->delegate_map->end()) {
        unmapped(&row, "identifier not in the delegate's debug handle map");
        push(std::move(row), value);
        return;
      }
      row.debug_handles = found->second;
      // A decomposition: same instruction, same handles, same output slot.
      const auto key = std::make_tuple(e.instruction_id.value, row.debug_handles, value.index);
      if (auto open = decompositions_.find(key); open != decompositions_.end()) {
        Unit& unit = units_[open->second];
        unit.row.identifiers.push_back(*id);
        unit.value = value;
        return;
      }
      decompositions_[key] = units_.size();
      push(std::move(row), value);
      return;
    }
    row.kind = entry != nullptr ? NumericRowKind::kDelegateCall : NumericRowKind::kOperator;
    if (entry != nullptr) row.backend = entry->backend;
    // The k-th value logged at an instruction is its k-th output.
    row.output_index = outputs_seen_[e.instruction_id.value]++;
    if (handle_map_ != nullptr) {
      if (auto it = handle_map_->find(e.instruction_id); it != handle_map_->end()) {
        row.debug_handles = it->second;
      }
    }
    if (row.debug_handles.empty()) unmapped(&row, "instruction not in the debug handle map");
    push(std::move(row), value);
  }

  void finish() {
    for (Unit& unit : units_) {
      const etrecord::ReferenceTensor* reference = resolve(&unit.row);
      if (reference != nullptr) compare(&unit, *reference);
      report_.rows.push_back(std::move(unit.row));
    }
  }

 private:
  const aot::DelegateMapEntry* delegate_entry(InstructionId instruction) const {
    if (delegate_map_ == nullptr) return nullptr;
    auto it = delegate_map_->find(instruction);
    return it == delegate_map_->end() ? nullptr : &it->second;
  }

  static void unmapped(NumericRow* row, std::string note) {
    row->status = NumericStatus::kUnmapped;
    row->note = std::move(note);
  }

  void push(NumericRow row, const Logged& value) {
    if (value.tensor == nullptr && row.status == NumericStatus::kCompared) {
      row.status = NumericStatus::kNotATensor;
      row.note = "the logged value is not a tensor";
    }
    units_.push_back({std::move(row), value});
  }

  // Fills the row's source ops (in source order) and returns the reference
  // to compare with, or null (with the row's status saying why).
  const etrecord::ReferenceTensor* resolve(NumericRow* row) {
    if (row->kind == NumericRowKind::kProgramOutput) {
      row->reference_output = row->output_index;
      if (row->status != NumericStatus::kCompared) return nullptr;
      if (row->output_index >= record_.reference_outputs.size()) {
        return no_reference(row, "the ETRecord has no reference for this program output");
      }
      return &record_.reference_outputs[row->output_index];
    }
    std::vector<NodeInfo> ops;
    for (DebugHandle h : row->debug_handles) {
      if (auto it = nodes_.find(h.value); it != nodes_.end()) ops.push_back(it->second);
    }
    std::sort(ops.begin(), ops.end(),
              [](const NodeInfo& a, const NodeInfo& b) { return a.position < b.position; });
    for (const NodeInfo& op : ops) {
      row->op_names.push_back(op.node->name);
      row->op_types.push_back(op.node->op);
    }
    if (row->status != NumericStatus::kCompared) return nullptr;
    if (ops.empty()) {
      unmapped(row, "its debug handles name no node of the edge graph");
      return nullptr;
    }
    row->reference_handle = ops.back().node->debug_handle;
    row->reference_op = ops.back().node->name;
    row->reference_output = row->output_index;
    if (row->kind == NumericRowKind::kDelegateCall && outputs_seen_[row->instruction.value] > 1) {
      // Which op produced which output of a delegate is not recorded.
      return no_reference(row, "a delegate call with several outputs: the op behind each is unknown");
    }
    if (row->kind == NumericRowKind::kDelegateCall) row->reference_output = 0;
    auto it = record_.reference_op_outputs.find(row->reference_handle);
    if (it == record_.reference_op_outputs.end() || row->reference_output >= it->second.size()) {
      return no_reference(row, "the ETRecord has no reference for " + row->reference_op);
    }
    return &it->second[row->reference_output];
  }

  static const etrecord::ReferenceTensor* no_reference(NumericRow* row, std::string note) {
    row->status = NumericStatus::kNoReference;
    row->note = std::move(note);
    return nullptr;
  }

  void compare(Unit* unit, const etrecord::ReferenceTensor& reference) {
    NumericRow& row = unit->row;
    row.runtime_sizes = unit->value.tensor->sizes;
    row.reference_sizes = reference.sizes;
    StatusOr<std::vector<double>> values =
        etdump::read_tensor_values(*unit->value.tensor, debug_data_);
    if (!values.ok()) {
      row.status = NumericStatus::kNoData;
      row.note = values.error() == Error::kNotFound
                     ? "logged without tensor data (no data sink, or it was full)"
                     : values.message();
      return;
    }
    if (row.runtime_sizes != row.reference_sizes) {
      row.status = NumericStatus::kShapeMismatch;
      row.note = "runtime and reference shapes differ";
      return;
    }
    const Comparison c = compare_values(*values, reference.data);
    for (Comparator m : options_.comparators) row.metrics.push_back({m, c.value(m)});
    row.threshold_value = c.value(report_.threshold_metric);
    row.runtime_nonfinite = c.runtime_nonfinite;
    row.reference_nonfinite = c.reference_nonfinite;
    row.nonfinite_mismatches = c.nonfinite_mismatches;
    row.exceeds = c.nonfinite_mismatches > 0 ||
                  exceeds_threshold(report_.threshold_metric, row.threshold_value,
                                    report_.threshold);
  }

  const etrecord::ETRecord& record_;
  std::span<const std::uint8_t> debug_data_;
  const NumericOptions& options_;
  NumericReport& report_;
  std::unordered_map<std::uint32_t, NodeInfo> nodes_;
  const aot::InstructionDebugHandles* handle_map_ = nullptr;
  const aot::InstructionDelegateMap* delegate_map_ = nullptr;
  std::vector<Unit> units_;
  std::map<std::tuple<std::int32_t, std::vector<DebugHandle>, std::uint32_t>, std::size_t>
      decompositions_;
  std::unordered_map<std::int32_t, std::uint32_t> outputs_seen_;
};

Status check_fingerprint(const etdump::ETDumpFile& dump, const etrecord::ETRecord& record,
                         const NumericOptions& options, NumericReport* report) {
  if (!dump.program_fingerprint.has_value() || *dump.program_fingerprint == record.fingerprint) {
    return Status();
  }
  const std::string message = "fingerprint mismatch: the ETDump was recorded from program " +
                              *dump.program_fingerprint + " but the ETRecord describes program " +
                              record.fingerprint;
  if (!options.allow_fingerprint_mismatch) {
    return Status(Error::kMismatch, message + "; its reference outputs do not apply");
  }
  report->diagnostics.push_back({Severity::kError, message + " (compared anyway)"});
  return Status();
}

void summarize(NumericReport* report) {
  std::size_t compared = 0, exceeding = 0, unmapped = 0, no_data = 0;
  for (std::size_t i = 0; i < report->rows.size(); ++i) {
    NumericRow& row = report->rows[i];
    compared += row.status == NumericStatus::kCompared;
    exceeding += row.exceeds;
    unmapped += row.status == NumericStatus::kUnmapped;
    no_data += row.status == NumericStatus::kNoData;
    if (row.exceeds && row.kind != NumericRowKind::kProgramOutput && !report->first_failure) {
      report->first_failure = i;
      row.first_failure = true;
    }
  }
  std::vector<Diagnostic>& d = report->diagnostics;
  if (compared == 0) {
    d.push_back({Severity::kWarning, "no value could be compared (see each row's status)"});
  } else if (exceeding == compared && compared > 1) {
    d.push_back({Severity::kWarning,
                 "every compared value exceeds the threshold: was the run fed the ETRecord's "
                 "reference inputs (glassbox run --input with them, or --seed S after lower "
                 "--reference-seed S)?"});
  }
  if (unmapped > 0) {
    d.push_back({Severity::kWarning, std::to_string(unmapped) +
                                         " logged values map to no source op and were not compared"});
  }
  if (no_data > 0) {
    d.push_back({Severity::kWarning,
                 std::to_string(no_data) +
                     " logged tensors have no readable data: pass the run's --debug-data file"});
  }
}

}  // namespace

std::string_view to_string(NumericRowKind kind) {
  switch (kind) {
    case NumericRowKind::kOperator: return "operator";
    case NumericRowKind::kDelegateCall: return "delegate_call";
    case NumericRowKind::kDelegateInternal: return "delegate";
    case NumericRowKind::kProgramOutput: return "program_output";
  }
  return "?";
}

std::string_view to_string(NumericStatus status) {
  switch (status) {
    case NumericStatus::kCompared: return "compared";
    case NumericStatus::kUnmapped: return "unmapped";
    case NumericStatus::kNoReference: return "no_reference";
    case NumericStatus::kNoData: return "no_data";
    case NumericStatus::kNotATensor: return "not_a_tensor";
    case NumericStatus::kShapeMismatch: return "shape_mismatch";
  }
  return "?";
}

StatusOr<NumericReport> compare_numerics(const etdump::ETDumpFile& dump,
                                         const etrecord::ETRecord& record,
                                         std::span<const std::uint8_t> debug_data,
                                         const NumericOptions& options) {
  NumericReport report;
  report.comparators = options.comparators;
  report.threshold_metric = options.threshold_metric;
  report.threshold = options.threshold.value_or(default_threshold(options.threshold_metric));
  report.execution = options.execution;
  GLASSBOX_RETURN_IF_ERROR(check_fingerprint(dump, record, options, &report));
  if (record.reference_op_outputs.empty()) {
    return Status(Error::kInvalidArgument,
                  "the ETRecord holds no reference op outputs: lower the model with "
                  "--reference-inputs FILE.npy or --reference-seed S");
  }
  const etdump::RunData* run = nullptr;
  std::uint32_t executions = 0;
  for (const etdump::RunData& r : dump.runs) {
    if (r.name != kExecuteBlock) continue;
    if (executions++ == options.execution) run = &r;
  }
  if (run == nullptr) {
    return Status(Error::kInvalidArgument,
                  "execution " + std::to_string(options.execution) + " does not exist: the ETDump has " +
                      std::to_string(executions) + " executions (\"Execute\" runs)");
  }
  const std::vector<Logged> values = logged_values(*run);
  if (values.empty()) {
    return Status(Error::kInvalidArgument,
                  "execution " + std::to_string(options.execution) +
                      " logged no values: run with --debug-level intermediates and --debug-data");
  }
  Builder builder(record, debug_data, options, &report);
  for (const Logged& value : values) builder.add(value);
  builder.finish();
  summarize(&report);
  return report;
}

}  // namespace glassbox::inspector

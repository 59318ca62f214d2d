// compare_numerics: the logged values of one execution, grouped into units,
// each resolved to source ops and compared with the reference output of
// the last of them (numeric.h explains the rules).

#include "glassbox/inspector/numeric.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "glassbox/aot/quantization.h"
#include "glassbox/etdump/etdump_reader.h"
#include "src/inspector/builder.h"
#include "src/inspector/output_quant.h"
#include "src/inspector/record_index.h"

namespace glassbox::inspector {
namespace {

// One tensor a run logged, with where it came from.
struct Logged {
  std::uint32_t order = 0;
  const etdump::DebugEvent* event = nullptr;
  const etdump::Tensor* tensor = nullptr;  // null for a non-tensor value
  std::uint32_t index = 0;                 // within its value, or its method output
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

void unmapped(NumericRow* row, std::string note) {
  row->status = NumericStatus::kUnmapped;
  row->note = std::move(note);
}

// Groups the logged values of one execution into units (one row each):
// classifies each value and finds its debug handles through the index.
class UnitCollector {
 public:
  explicit UnitCollector(const RecordIndex& index) : index_(index) {}

  void add(const Logged& value) {
    const etdump::DebugEvent& e = *value.event;
    NumericRow row;
    row.order = value.order;
    row.instruction = e.instruction_id;
    row.output_index = value.index;
    if (e.value.output.value_or(false)) {
      row.kind = NumericRowKind::kProgramOutput;
      push(std::move(row), value);
    } else if (const Identifier id = identifier_of(e); id.has_value()) {
      add_delegate_internal(std::move(row), *id, value);
    } else {
      add_call(std::move(row), value);
    }
  }

  std::vector<Unit>& units() { return units_; }
  /// How many values each instruction logged (a call's output count).
  std::uint32_t outputs_seen(InstructionId instruction) const {
    auto it = outputs_seen_.find(instruction.value);
    return it == outputs_seen_.end() ? 0 : it->second;
  }

 private:
  void add_delegate_internal(NumericRow row, const aot::DelegateDebugIdentifier& id,
                             const Logged& value) {
    row.kind = NumericRowKind::kDelegateInternal;
    row.identifiers.push_back(id);
    const IdentifierMatch match = index_.find_identifier(row.instruction, id);
    if (match.entry != nullptr) row.backend = match.entry->backend;
    if (match.result != IdentifierLookup::kFound) {
      unmapped(&row, match.result == IdentifierLookup::kNotInMap
                         ? "identifier not in the delegate's debug handle map"
                         : "no delegate map for this instruction");
      push(std::move(row), value);
      return;
    }
    row.debug_handles = *match.handles;
    // A decomposition: same instruction, same handles, same output slot.
    const auto key = std::make_tuple(row.instruction.value, row.debug_handles, value.index);
    if (auto open = decompositions_.find(key); open != decompositions_.end()) {
      Unit& unit = units_[open->second];
      unit.row.identifiers.push_back(id);
      unit.value = value;
      return;
    }
    decompositions_[key] = units_.size();
    push(std::move(row), value);
  }

  void add_call(NumericRow row, const Logged& value) {
    const aot::DelegateMapEntry* entry = index_.delegate_entry(row.instruction);
    row.kind = entry != nullptr ? NumericRowKind::kDelegateCall : NumericRowKind::kOperator;
    if (entry != nullptr) row.backend = entry->backend;
    // The k-th value logged at an instruction is its k-th output.
    row.output_index = outputs_seen_[row.instruction.value]++;
    if (const auto* handles = index_.instruction_handles(row.instruction)) {
      row.debug_handles = *handles;
    }
    if (row.debug_handles.empty()) unmapped(&row, "instruction not in the debug handle map");
    push(std::move(row), value);
  }

  void push(NumericRow row, const Logged& value) {
    if (value.tensor == nullptr && row.status == NumericStatus::kCompared) {
      row.status = NumericStatus::kNotATensor;
      row.note = "the logged value is not a tensor";
    }
    units_.push_back({std::move(row), value});
  }

  const RecordIndex& index_;
  std::vector<Unit> units_;
  std::map<std::tuple<std::int32_t, std::vector<DebugHandle>, std::uint32_t>, std::size_t>
      decompositions_;
  std::unordered_map<std::int32_t, std::uint32_t> outputs_seen_;
};

const etrecord::ReferenceTensor* no_reference(NumericRow* row, std::string note) {
  row->status = NumericStatus::kNoReference;
  row->note = std::move(note);
  return nullptr;
}

// Fills the row's source ops (in source order) and returns the reference
// to compare with, or null (with the row's status saying why).
const etrecord::ReferenceTensor* find_reference(const etrecord::ETRecord& record,
                                                const RecordIndex& index,
                                                const UnitCollector& collector, NumericRow* row) {
  if (row->kind == NumericRowKind::kProgramOutput) {
    row->reference_output = row->output_index;
    if (row->status != NumericStatus::kCompared) return nullptr;
    if (row->output_index >= record.reference_outputs.size()) {
      return no_reference(row, "the ETRecord has no reference for this program output");
    }
    return &record.reference_outputs[row->output_index];
  }
  // Of nodes sharing a handle (a decomposed source op), the last computes
  // the source op's output (its reference is that output). The handle is
  // named after its first node that is not quantization: an int8 op's
  // handle also holds its quantize and dequantize nodes, and the user wrote
  // the conv, not the DequantizeLinear after it.
  std::vector<IndexedNode> ops;
  for (DebugHandle h : row->debug_handles) {
    std::span<const IndexedNode> nodes = index.nodes(h);
    if (nodes.empty()) continue;
    auto principal = std::find_if(nodes.begin(), nodes.end(), [](const IndexedNode& n) {
      return !aot::is_quantization_op(n.node->op);
    });
    ops.push_back(principal != nodes.end() ? *principal : nodes.back());
  }
  std::sort(ops.begin(), ops.end(),
            [](const IndexedNode& a, const IndexedNode& b) { return a.position < b.position; });
  for (const IndexedNode& op : ops) {
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
  if (auto graph = record.edge_graphs.find(index.method());
      graph != record.edge_graphs.end() && row->kind == NumericRowKind::kOperator) {
    // The bound of the value compared: the source op's output, the last
    // node's of a decomposition (its first's is an inner step's).
    const aot::Node* last = index.nodes(row->reference_handle).back().node;
    const aot::Value* v = row->output_index < last->outputs.size()
                              ? graph->second.find_value(last->outputs[row->output_index])
                              : nullptr;
    if (v != nullptr && v->dynamic) row->bound_sizes = v->shape;
  }
  if (row->kind == NumericRowKind::kDelegateCall) {
    if (collector.outputs_seen(row->instruction) > 1) {
      // Which op produced which output of a delegate is not recorded.
      return no_reference(row,
                          "a delegate call with several outputs: the op behind each is unknown");
    }
    row->reference_output = 0;
  }
  auto it = record.reference_op_outputs.find(row->reference_handle);
  if (it == record.reference_op_outputs.end() || row->reference_output >= it->second.size()) {
    return no_reference(row, "the ETRecord has no reference for " + row->reference_op);
  }
  return &it->second[row->reference_output];
}

// Compares the unit's logged tensor with `reference` into its row. An int8
// delegate logs its op's output as codes; the reference is float, so the
// codes are dequantized first with the op's output quantization (`quant`).
void compare(const etrecord::ReferenceTensor& reference, std::span<const std::uint8_t> debug_data,
             const std::map<DebugHandle, OutputQuant>& quant, const NumericOptions& options,
             const NumericReport& report, Unit* unit) {
  NumericRow& row = unit->row;
  row.runtime_sizes = unit->value.tensor->sizes;
  row.runtime_dtype = unit->value.tensor->known_scalar_type().value_or(ScalarType::kFloat);
  row.reference_sizes = reference.sizes;
  StatusOr<std::vector<double>> values =
      etdump::read_tensor_values(*unit->value.tensor, debug_data);
  if (!values.ok()) {
    row.status = NumericStatus::kNoData;
    row.data_unreadable = values.error() != Error::kNotFound;
    row.metadata_damaged = row.data_unreadable && values.error() != Error::kMismatch;
    row.note = row.data_unreadable ? values.message()
                                   : "logged without tensor data (no data sink, or it was full)";
    return;
  }
  if (row.runtime_sizes != row.reference_sizes) {
    row.status = NumericStatus::kShapeMismatch;
    row.note = "runtime and reference shapes differ";
    return;
  }
  if (is_quantized_type(row.runtime_dtype) && row.kind != NumericRowKind::kProgramOutput) {
    auto q = quant.find(row.reference_handle);
    if (q != quant.end()) {
      dequantize_in_place(&*values, row.runtime_sizes, q->second);
      row.dequantized = true;
    } else {
      row.note = "int8 values compared as logged: the ETRecord keeps no output scale for " +
                 row.reference_op;
    }
  }
  const Comparison c = compare_values(*values, reference.data);
  for (Comparator m : options.comparators) row.metrics.push_back({m, c.value(m)});
  row.threshold_value = c.value(report.threshold_metric);
  row.runtime_nonfinite = c.runtime_nonfinite;
  row.reference_nonfinite = c.reference_nonfinite;
  row.nonfinite_mismatches = c.nonfinite_mismatches;
  row.exceeds = c.nonfinite_mismatches > 0 ||
                exceeds_threshold(report.threshold_metric, row.threshold_value, report.threshold);
  if (options.keep_runtime_values) row.runtime_values = std::move(values).value();
}

// Kernel calls that share their source ops with a later kernel call (an op
// the importer decomposed; an int8 op's dequantize, op and quantize) are
// inner steps: the reference is the source op's last output, so only the
// last of them is compared. So is a delegate's operator whose source ops a
// later kernel call finishes (a GatherND whose flattening the delegate took
// before its gather of data-sized indices on portable).
std::set<std::size_t> inner_steps(const std::vector<Unit>& units) {
  // The last instruction of each handle set: every output it logged (an
  // lstm's y, y_h and y_c) is the source op's.
  std::map<std::vector<DebugHandle>, std::int32_t> last;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const NumericRow& row = units[i].row;
    if (row.kind == NumericRowKind::kOperator && !row.debug_handles.empty()) {
      last[row.debug_handles] = row.instruction.value;
    }
  }
  std::set<std::size_t> inner;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const NumericRow& row = units[i].row;
    if (row.debug_handles.empty()) continue;
    const auto later = last.find(row.debug_handles);
    if (row.kind == NumericRowKind::kOperator) {
      if (later->second != row.instruction.value) inner.insert(i);
    } else if (row.kind == NumericRowKind::kDelegateInternal && later != last.end() &&
               later->second > row.instruction.value) {
      inner.insert(i);
    }
  }
  return inner;
}

void summarize(NumericReport* report) {
  std::size_t compared = 0, exceeding = 0, unmapped = 0, no_data = 0, dequantized = 0;
  for (std::size_t i = 0; i < report->rows.size(); ++i) {
    NumericRow& row = report->rows[i];
    compared += row.status == NumericStatus::kCompared;
    dequantized += row.dequantized;
    exceeding += row.exceeds;
    unmapped += row.status == NumericStatus::kUnmapped;
    no_data += row.status == NumericStatus::kNoData;
    report->unreadable_tensors += row.data_unreadable;
    report->damaged_tensor_metadata += row.metadata_damaged;
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
  if (dequantized > 0) {
    d.push_back({Severity::kInfo,
                 std::to_string(dequantized) +
                     " int8 outputs were compared after dequantizing them with their op's output "
                     "scale; int8 kernels round differently from the simulation and the "
                     "difference accumulates downstream: --view quant separates quantization's "
                     "loss from the kernel's (docs/quantization.md)"});
  }
  if (unmapped > 0) {
    d.push_back(
        {Severity::kWarning,
         std::to_string(unmapped) + " logged values map to no source op and were not compared"});
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

Status check_has_references(const etrecord::ETRecord& record) {
  if (record.source == etrecord::RecordSource::kExecuTorch) {
    return Status(Error::kInvalidArgument,
                  "this ETRecord was written by ExecuTorch, whose reference outputs are Python "
                  "pickles that Glassbox does not read: numeric comparison needs an ETRecord from "
                  "glassbox lower --reference-inputs FILE.npy or --reference-seed S");
  }
  if (record.reference_op_outputs.empty()) {
    return Status(Error::kInvalidArgument,
                  "the ETRecord holds no reference op outputs: lower the model with "
                  "--reference-inputs FILE.npy or --reference-seed S");
  }
  return Status();
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
  GLASSBOX_RETURN_IF_ERROR(check_fingerprint(dump, record, options.allow_fingerprint_mismatch,
                                             "; its reference outputs do not apply",
                                             " (compared anyway)", &report.diagnostics));
  GLASSBOX_RETURN_IF_ERROR(check_has_references(record));
  const etdump::RunData* run = nullptr;
  std::uint32_t executions = 0;
  for (const etdump::RunData& r : dump.runs) {
    if (r.name != kExecuteBlock) continue;
    if (executions++ == options.execution) run = &r;
  }
  if (run == nullptr) {
    return Status(Error::kInvalidArgument, "execution " + std::to_string(options.execution) +
                                               " does not exist: the ETDump has " +
                                               std::to_string(executions) +
                                               " executions (\"Execute\" runs)");
  }
  const std::vector<Logged> values = logged_values(*run);
  if (values.empty()) {
    return Status(Error::kInvalidArgument,
                  "execution " + std::to_string(options.execution) +
                      " logged no values: run with --debug-level intermediates and --debug-data");
  }
  const RecordIndex index(record, &report.diagnostics);
  std::map<DebugHandle, OutputQuant> quant;
  if (auto graph = record.edge_graphs.find(std::string(aot::kForwardMethod));
      graph != record.edge_graphs.end()) {
    quant = output_quantization(graph->second);
  }
  UnitCollector collector(index);
  for (const Logged& value : values) collector.add(value);
  const std::set<std::size_t> inner = inner_steps(collector.units());
  for (std::size_t i = 0; i < collector.units().size(); ++i) {
    Unit& unit = collector.units()[i];
    const etrecord::ReferenceTensor* reference =
        find_reference(record, index, collector, &unit.row);
    if (reference != nullptr && inner.contains(i)) {
      unit.row.bound_sizes.clear();  // the source op's, not this step's
      reference = no_reference(&unit.row,
                               "an inner step of its source op, whose output is "
                               "compared at its last step");
    }
    if (reference != nullptr) compare(*reference, debug_data, quant, options, report, &unit);
    report.rows.push_back(std::move(unit.row));
  }
  summarize(&report);
  return report;
}

}  // namespace glassbox::inspector

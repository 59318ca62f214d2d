// The reconcile view: do the parts add up to the whole? Each comparison is
// made run by run (a run missing either side is left out of it), so a gap
// row is the statistics of per-run differences, not a difference of means.

#include <map>

#include "glassbox/inspector/views.h"
#include "src/inspector/builder.h"

namespace glassbox::inspector {
namespace {

using PerRun = std::map<std::uint32_t, double>;

void add_samples(PerRun& to, const std::vector<std::uint32_t>& runs,
                 const std::vector<double>& samples) {
  for (std::size_t i = 0; i < samples.size(); ++i) to[runs[i]] += samples[i];
}

ReconcileRow make_row(ReconcileKind kind, std::string label, InstructionId instruction,
                      std::string backend, std::vector<double> samples) {
  ReconcileRow row{kind, std::move(label), instruction, std::move(backend), std::move(samples), {},
                   0};
  row.stats = PerfStats::of(row.samples);
  return row;
}

// Rows for `whole` against the sum of `parts`, over the runs `whole` has.
void compare(const PerRun& whole, const PerRun& parts, std::vector<double>* whole_samples,
             std::vector<double>* part_samples, std::vector<double>* gap_samples) {
  for (const auto& [run, value] : whole) {
    auto it = parts.find(run);
    const double part = it == parts.end() ? 0 : it->second;
    whole_samples->push_back(value);
    part_samples->push_back(part);
    gap_samples->push_back(value - part);
  }
}

void set_percent(std::vector<ReconcileRow>& rows, std::size_t first) {
  const double whole = rows[first].stats.mean;
  for (std::size_t i = first; i < rows.size(); ++i) {
    rows[i].percent = whole > 0 ? 100.0 * rows[i].stats.mean / whole : 0;
  }
}

}  // namespace

std::vector<ReconcileRow> reconcile_view(const Inspector& inspector) {
  const std::vector<EventGroup>& groups = inspector.groups();
  std::vector<ReconcileRow> rows;
  std::map<std::int32_t, PerRun> calls, inner;
  std::map<std::int32_t, std::string> backends;
  PerRun execute;
  for (const EventGroup& g : groups) {
    if (g.block != kExecuteBlock) continue;
    if (g.role == EventRole::kDelegateCall) {
      add_samples(calls[g.instruction.value], g.sample_runs, g.samples);
      backends[g.instruction.value] = g.backend;
    } else if (g.role == EventRole::kDelegateInternal) {
      add_samples(inner[g.instruction.value], g.sample_runs, g.samples);
    } else if (g.role == EventRole::kFramework && g.name == kMethodExecute) {
      add_samples(execute, g.sample_runs, g.samples);
    }
  }

  for (const auto& [instr, per_run] : calls) {
    std::vector<double> whole, parts, gaps;
    compare(per_run, inner[instr], &whole, &parts, &gaps);
    const InstructionId id(instr);
    const std::size_t first = rows.size();
    rows.push_back(make_row(ReconcileKind::kDelegateCall, delegate_call_label(id, backends[instr]),
                            id, backends[instr], std::move(whole)));
    rows.push_back(make_row(ReconcileKind::kInnerEvents, "delegate events", id, backends[instr],
                            std::move(parts)));
    rows.push_back(make_row(ReconcileKind::kDelegateGap, "unattributed gap", id, backends[instr],
                            std::move(gaps)));
    set_percent(rows, first);
  }

  if (!execute.empty()) {
    PerRun operators;
    for (const OpRow& row : ops_view(inspector))
      add_samples(operators, row.sample_runs, row.samples);
    std::vector<double> whole, parts, gaps;
    compare(execute, operators, &whole, &parts, &gaps);
    const std::size_t first = rows.size();
    rows.push_back(make_row(ReconcileKind::kExecute, std::string(kMethodExecute),
                            kUnsetInstructionId, "", std::move(whole)));
    rows.push_back(make_row(ReconcileKind::kOperatorRows, "operator rows", kUnsetInstructionId, "",
                            std::move(parts)));
    rows.push_back(make_row(ReconcileKind::kFrameworkGap, "unattributed (runtime)",
                            kUnsetInstructionId, "", std::move(gaps)));
    set_percent(rows, first);
  }
  return rows;
}

}  // namespace glassbox::inspector

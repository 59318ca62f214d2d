// The ops view (see views.h): choose the finest events per instruction,
// merge those that share debug handles (layout conversions excepted), sum
// per run.

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "glassbox/inspector/views.h"
#include "src/inspector/builder.h"

namespace glassbox::inspector {
namespace {

// The groups whose time the ops view attributes: per instruction of the
// Execute block, a delegate's internal events if it logged any (else its
// DELEGATE_CALL), and for a kernel call its OPERATOR_CALL (ExecuTorch also
// logs the kernel's own event inside it; counting both would double).
std::vector<std::size_t> attribution_units(const std::vector<EventGroup>& groups) {
  struct PerInstruction {
    std::vector<std::size_t> internal, calls, operator_call, operators;
  };
  std::map<std::int32_t, PerInstruction> by_instruction;
  std::vector<std::size_t> units;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const EventGroup& g = groups[i];
    if (g.block != kExecuteBlock || g.role == EventRole::kFramework) continue;
    PerInstruction& p = by_instruction[g.instruction.value];
    switch (g.role) {
      case EventRole::kDelegateInternal: p.internal.push_back(i); break;
      case EventRole::kDelegateCall: p.calls.push_back(i); break;
      case EventRole::kOperator:
        (g.name == "OPERATOR_CALL" ? p.operator_call : p.operators).push_back(i);
        break;
      case EventRole::kFramework: break;
    }
  }
  for (auto& [instr, p] : by_instruction) {
    const auto& chosen = !p.internal.empty() ? p.internal : p.calls;
    units.insert(units.end(), chosen.begin(), chosen.end());
    const auto& ops = !p.operator_call.empty() ? p.operator_call : p.operators;
    units.insert(units.end(), ops.begin(), ops.end());
  }
  std::sort(units.begin(), units.end());  // First-appearance order.
  return units;
}

// Union-find over units: two units with a common debug handle are one row.
struct Components {
  std::vector<std::size_t> parent;
  explicit Components(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// A delegate's layout conversion (delegate metadata "layout: ..."; the
// XNNPACK delegate's NCHW <-> NHWC copies): a row of its own, so its time
// is not folded into the operator that needed it.
std::optional<std::string> layout_conversion(const EventGroup& g) {
  static constexpr std::string_view kPrefix = "layout: ";
  const auto& m = g.delegate_debug_metadata;
  if (g.role != EventRole::kDelegateInternal || m.size() < kPrefix.size() ||
      !std::equal(kPrefix.begin(), kPrefix.end(), m.begin())) {
    return std::nullopt;
  }
  return std::string(m.begin(), m.end());
}

std::string location_text(const aot::SourceLocation& loc) {
  if (loc.file.empty()) return {};
  return loc.line == 0 ? loc.file : loc.file + ":" + std::to_string(loc.line);
}

template <typename T>
void add_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// Per-run sums of a row's samples, indexed by run: a map of thousands of
// runs per row was a tenth of the ops view on a million-event dump. Every
// row leaves it zeroed for the next.
struct RunSums {
  std::vector<double> sum;
  std::vector<bool> seen;
  explicit RunSums(std::size_t runs) : sum(runs, 0.0), seen(runs, false) {}
};

// The counters of each (group, run), from the occurrences' own: empty when
// none carries any (the common case costs one pass over nothing).
using RunCounters = std::map<std::pair<std::size_t, std::uint32_t>, std::vector<CounterTotal>>;

RunCounters run_counters(const Inspector& inspector) {
  RunCounters out;
  if (inspector.counter_names().empty()) return out;
  const std::vector<Occurrence>& occurrences = inspector.occurrences();
  for (std::size_t i = 0; i < occurrences.size(); ++i) {
    for (const OccurrenceCounter& c : inspector.occurrence_counters(i)) {
      add_counter(out[{occurrences[i].group, occurrences[i].run}],
                  inspector.counter_names()[c.name], c.value);
    }
  }
  return out;
}

OpRow build_row(const std::vector<EventGroup>& groups, const std::vector<std::size_t>& members,
                const RunCounters& counters, RunSums& per_run) {
  OpRow row;
  std::set<DebugHandle> handles;
  std::set<std::uint32_t> seen_handles;
  std::vector<const SourceOp*> ops;
  std::vector<std::string> backends;
  for (std::size_t m : members) {
    const EventGroup& g = groups[m];
    handles.insert(g.debug_handles.begin(), g.debug_handles.end());
    for (const SourceOp& op : g.source_ops) {
      if (seen_handles.insert(op.handle.value).second) ops.push_back(&op);
    }
    row.delegated |= g.delegated || g.role == EventRole::kDelegateCall;
    if (!g.backend.empty()) add_unique(backends, g.backend);
    if (g.identifier.has_value()) add_unique(row.delegate_debug_identifiers, *g.identifier);
    if (g.time_scale != TimeScaleSource::kClock) row.time_scale = g.time_scale;
    add_unique(row.instructions, g.instruction.value);
    row.occurrences += g.occurrences;
    for (const CounterTotal& c : g.counters) add_counter(row.counters, c.name, c.sum);
    for (std::size_t s = 0; s < g.samples.size(); ++s) {
      const std::uint32_t run = g.sample_runs[s];
      if (run >= per_run.sum.size()) {  // Not one of runs(): a hand-built inspector.
        per_run.sum.resize(run + std::size_t{1}, 0.0);
        per_run.seen.resize(run + std::size_t{1}, false);
      }
      per_run.sum[run] += g.samples[s];
      per_run.seen[run] = true;
    }
  }
  std::sort(ops.begin(), ops.end(),
            [](const SourceOp* a, const SourceOp* b) { return a->handle < b->handle; });
  for (const SourceOp* op : ops) {
    row.op_names.push_back(op->name);
    row.op_types.push_back(op->type);
    row.module_hierarchy.push_back(op->module_path());
    row.source_locations.push_back(location_text(op->source_location));
  }
  for (const std::string& b : backends) row.backend += (row.backend.empty() ? "" : ",") + b;
  row.debug_handles.assign(handles.begin(), handles.end());
  std::sort(row.instructions.begin(), row.instructions.end());
  row.mapped = !row.debug_handles.empty();
  row.shared = row.op_names.size() > 1;
  const bool whole_delegate_calls = std::all_of(members.begin(), members.end(), [&](std::size_t m) {
    return groups[m].role == EventRole::kDelegateCall;
  });
  if (whole_delegate_calls) {
    // The delegate logged nothing inside: its ops are all of the delegate's,
    // which name it less well than where it runs (and two such rows must
    // not look alike).
    for (std::size_t i = 0; i < row.instructions.size(); ++i) {
      std::string backend;
      for (std::size_t m : members) {
        if (groups[m].instruction.value == row.instructions[i]) backend = groups[m].backend;
      }
      row.label +=
          (i > 0 ? "+" : "") + delegate_call_label(InstructionId(row.instructions[i]), backend);
    }
  } else if (!row.op_names.empty()) {
    for (std::size_t i = 0; i < row.op_names.size(); ++i) {
      row.label += (i > 0 ? "+" : "") + row.op_names[i];
    }
  } else {
    row.label = groups[members.front()].name;
  }
  row.opaque_delegate_call = whole_delegate_calls;
  if (const auto layout = layout_conversion(groups[members.front()]); layout) {
    row.layout_conversion = *layout;
    row.label = *layout + (row.op_names.empty() ? "" : " (" + row.label + ")");
  }
  for (std::uint32_t run = 0; run < per_run.sum.size(); ++run) {
    if (!per_run.seen[run]) continue;
    row.sample_runs.push_back(run);
    row.samples.push_back(per_run.sum[run]);
    per_run.sum[run] = 0;
    per_run.seen[run] = false;
  }
  if (!counters.empty()) {
    row.sample_counters.resize(row.samples.size());
    for (std::size_t s = 0; s < row.samples.size(); ++s) {
      for (std::size_t m : members) {
        const auto it = counters.find({m, row.sample_runs[s]});
        if (it == counters.end()) continue;
        for (const CounterTotal& c : it->second) add_counter(row.sample_counters[s], c.name, c.sum);
      }
    }
  }
  row.stats = PerfStats::of(row.samples);
  return row;
}

}  // namespace

std::int64_t OpRow::counter_sum(std::string_view name) const {
  for (const CounterTotal& c : counters) {
    if (c.name == name) return c.sum;
  }
  return 0;
}

double OpRow::counter_mean(std::string_view name) const {
  return samples.empty()
             ? 0.0
             : static_cast<double>(counter_sum(name)) / static_cast<double>(samples.size());
}

std::string delegate_call_label(InstructionId instruction, std::string_view backend) {
  return "DELEGATE_CALL (instruction " + std::to_string(instruction.value) +
         (backend.empty() ? "" : ", " + std::string(backend)) + ")";
}

std::vector<OpRow> ops_view(const Inspector& inspector) {
  const std::vector<EventGroup>& groups = inspector.groups();
  const std::vector<std::size_t> units = attribution_units(groups);
  Components components(units.size());
  std::map<std::uint32_t, std::size_t> first_unit_of_handle;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (layout_conversion(groups[units[u]])) continue;
    for (DebugHandle h : groups[units[u]].debug_handles) {
      auto [it, inserted] = first_unit_of_handle.try_emplace(h.value, u);
      if (!inserted) components.unite(it->second, u);
    }
  }
  std::map<std::size_t, std::vector<std::size_t>> members;  // root -> groups
  for (std::size_t u = 0; u < units.size(); ++u) members[components.find(u)].push_back(units[u]);

  std::vector<OpRow> rows;
  RunSums per_run(inspector.runs().size());
  const RunCounters counters = run_counters(inspector);
  for (const auto& [root, group_indices] : members)
    rows.push_back(build_row(groups, group_indices, counters, per_run));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const OpRow& a, const OpRow& b) { return a.stats.mean > b.stats.mean; });
  return rows;
}

}  // namespace glassbox::inspector

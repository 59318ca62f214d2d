// Per-op deltas between two runs of (usually) the same program.

#include <algorithm>
#include <cmath>
#include <map>

#include "glassbox/inspector/views.h"

namespace glassbox::inspector {
namespace {

// Debug handles name a source op in any run of the same model; labels are
// the fallback when there is no ETRecord.
std::string match_key(const OpRow& row) {
  // A layout conversion shares its handles with the op that needed it.
  if (row.debug_handles.empty() || row.label.starts_with("layout: ")) return "label:" + row.label;
  std::string key = "handles:";
  for (DebugHandle h : row.debug_handles) key += std::to_string(h.value) + ",";
  return key;
}

}  // namespace

std::vector<DeltaRow> compare_ops(const Inspector& baseline, const Inspector& current) {
  std::map<std::string, std::size_t> index;
  std::vector<DeltaRow> rows;
  auto row_for = [&](const OpRow& op) -> DeltaRow& {
    auto [it, inserted] = index.try_emplace(match_key(op), rows.size());
    if (inserted) rows.push_back({op.label, op.debug_handles, false, false, 0, 0, 0, 0});
    return rows[it->second];
  };
  for (const OpRow& op : ops_view(baseline)) {
    DeltaRow& row = row_for(op);
    row.in_baseline = true;
    row.baseline_mean += op.stats.mean;
  }
  for (const OpRow& op : ops_view(current)) {
    DeltaRow& row = row_for(op);
    row.in_current = true;
    row.current_mean += op.stats.mean;
    row.label = op.label;  // The current name wins when both exist.
  }
  for (DeltaRow& row : rows) {
    row.delta = row.current_mean - row.baseline_mean;
    row.delta_percent = row.baseline_mean > 0 ? 100.0 * row.delta / row.baseline_mean : 0;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const DeltaRow& a, const DeltaRow& b) {
    return std::fabs(a.delta) > std::fabs(b.delta);
  });
  return rows;
}

}  // namespace glassbox::inspector

// Each view as a sheet of strings: the full column set for csv/tsv
// (times in ns), a narrower one for terminal tables (scaled times). The
// column names of the machine sheets are part of the stable formats
// (docs/inspector.md).

#include <algorithm>
#include <set>

#include "glassbox/inspector/views.h"
#include "glassbox/io/printable.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

std::string yes_no(bool v) { return v ? "true" : "false"; }

std::string handles_text(const std::vector<DebugHandle>& handles, std::string_view sep) {
  std::vector<std::string> items;
  for (DebugHandle h : handles) items.push_back(std::to_string(h.value));
  return join(items, sep);
}

std::vector<std::string> id_texts(const std::vector<aot::DelegateDebugIdentifier>& ids) {
  std::vector<std::string> out;
  for (const auto& id : ids) out.push_back(identifier_text(id));
  return out;
}

// "a.b.c,a.b.d" -> "a.b.{c,d}": a fused row's modules usually share a
// parent, and a terminal column has little room.
std::string compact_paths(const std::vector<std::string>& paths) {
  if (paths.empty()) return "-";
  if (paths.size() == 1) return paths[0];
  std::size_t prefix = paths[0].rfind('.');
  for (const std::string& path : paths) {
    while (prefix != std::string::npos &&
           (path.size() <= prefix || path.compare(0, prefix + 1, paths[0], 0, prefix + 1) != 0)) {
      prefix = prefix == 0 ? std::string::npos : paths[0].rfind('.', prefix - 1);
    }
  }
  if (prefix == std::string::npos) return join(paths, ",");
  std::vector<std::string> rest;
  for (const std::string& path : paths) rest.push_back(path.substr(prefix + 1));
  return paths[0].substr(0, prefix + 1) + "{" + join(rest, ",") + "}";
}

std::vector<std::string> unique(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& s : items) {
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

void set_columns(Sheet& sheet, std::vector<std::pair<std::string, bool>> columns) {
  for (auto& [name, numeric] : columns) {
    sheet.columns.push_back(name);
    sheet.numeric.push_back(numeric);
  }
}

// The ops view's delegate counters: a sum and a mean-per-execution column
// for each name the dump's events carry (none when they carry none, so
// outputs of dumps without counters keep their columns).
void add_counter_columns(Sheet& sheet, const Inspector& inspector, std::string_view sum_suffix,
                         std::string_view mean_suffix) {
  for (const std::string& name : inspector.counter_names()) {
    const std::string column = io::printable(name);
    set_columns(sheet, {{column + std::string(sum_suffix), true},
                        {column + std::string(mean_suffix), true}});
  }
}

void add_counters(std::vector<std::string>& cells, const Inspector& inspector, const OpRow& row,
                  int mean_decimals) {
  for (const std::string& name : inspector.counter_names()) {
    cells.push_back(std::to_string(row.counter_sum(name)));
    cells.push_back(fixed(row.counter_mean(name), mean_decimals));
  }
}

// The stats columns, machine form.
const std::vector<std::string> kStatColumns = {"count", "mean", "p10",    "p50",  "p90",
                                               "min",   "max",  "stddev", "total"};

void add_stat_columns(Sheet& sheet, const TimeScale& scale) {
  for (const std::string& c : kStatColumns) {
    sheet.columns.push_back(c == "count" ? c : c + "_" + scale.unit);
    sheet.numeric.push_back(true);
  }
}

void add_stats(std::vector<std::string>& cells, const PerfStats& s, const TimeScale& scale) {
  cells.push_back(std::to_string(s.count));
  for (double v : {s.mean, s.p10, s.p50, s.p90, s.min, s.max, s.stddev, s.total}) {
    cells.push_back(scale.format(v));
  }
}

std::string unit_header(const std::string& name, const TimeScale& scale) {
  return name + " (" + scale.unit + ")";
}

// A terminal table keeps n, mean, p50 and p90 (the unit is in the title
// line, so headers stay short); min, max, p10 and stddev are in csv/json.
void add_human_stat_columns(Sheet& sheet, const TimeScale& scale) {
  (void)scale;
  sheet.columns.push_back("n");
  sheet.numeric.push_back(true);
  for (const char* c : {"mean", "p50", "p90"}) {
    sheet.columns.push_back(c);
    sheet.numeric.push_back(true);
  }
}

void add_human_stats(std::vector<std::string>& cells, const PerfStats& s, const TimeScale& scale) {
  cells.push_back(std::to_string(s.count));
  for (double v : {s.mean, s.p50, s.p90}) cells.push_back(scale.format(v));
}

Sheet events_sheet(const Inspector& inspector, SheetMode mode, TimeScale* scale) {
  const std::vector<const EventGroup*> rows = events_view(inspector);
  Sheet sheet;
  if (mode == SheetMode::kMachine) {
    *scale = machine_scale(inspector);
    set_columns(sheet, {{"block", false},
                        {"name", false},
                        {"role", false},
                        {"instruction", true},
                        {"delegate_debug_identifier", false},
                        {"delegated", false},
                        {"backend", false},
                        {"resolved", false},
                        {"debug_handles", false},
                        {"op_names", false},
                        {"op_types", false},
                        {"module_hierarchy", false},
                        {"occurrences", true}});
    add_stat_columns(sheet, *scale);
    set_columns(sheet, {{"delegate_debug_metadata", false}});
    for (const EventGroup* g : rows) {
      std::vector<std::string> names, types, modules;
      for (const SourceOp& op : g->source_ops) {
        names.push_back(op.name);
        types.push_back(op.type);
        modules.push_back(op.module_path());
      }
      std::vector<std::string> cells = {g->block,
                                        g->name,
                                        std::string(to_string(g->role)),
                                        std::to_string(g->instruction.value),
                                        identifier_text(g->identifier),
                                        yes_no(g->delegated),
                                        g->backend,
                                        yes_no(g->resolved),
                                        handles_text(g->debug_handles, ";"),
                                        join(names, ";"),
                                        join(types, ";"),
                                        join(modules, ";"),
                                        std::to_string(g->occurrences)};
      add_stats(cells, g->stats, *scale);
      cells.push_back(metadata_text(g->delegate_debug_metadata));
      sheet.rows.push_back(std::move(cells));
    }
    return sheet;
  }
  double largest = 0;
  for (const EventGroup* g : rows) largest = std::max(largest, g->stats.max);
  *scale = human_scale(inspector, largest);
  set_columns(sheet, {{"block", false}, {"event", false}, {"role", false}, {"instr", true}});
  sheet.name_column = 1;
  add_human_stat_columns(sheet, *scale);
  set_columns(sheet, {{"backend", false}, {"op types", false}, {"metadata", false}});
  for (const EventGroup* g : rows) {
    std::vector<std::string> types;
    for (const SourceOp& op : g->source_ops) types.push_back(op.type);
    std::vector<std::string> cells = {
        g->block, g->name + (g->resolved ? "" : " (unmapped)"), std::string(to_string(g->role)),
        g->instruction.is_set() ? std::to_string(g->instruction.value) : "-"};
    add_human_stats(cells, g->stats, *scale);
    cells.push_back(g->backend.empty() ? "-" : g->backend);
    cells.push_back(types.empty() ? "-" : join(types, ","));
    const std::string metadata = metadata_text(g->delegate_debug_metadata);
    cells.push_back(metadata.empty() ? "-" : metadata);
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

Sheet ops_sheet(const Inspector& inspector, SheetMode mode, TimeScale* scale) {
  const std::vector<OpRow> rows = ops_view(inspector);
  double sum = 0, largest = 0;
  for (const OpRow& r : rows) {
    sum += r.stats.mean;
    largest = std::max(largest, r.stats.max);
  }
  auto percent = [sum](const OpRow& r) { return fixed(sum > 0 ? 100 * r.stats.mean / sum : 0, 1); };
  Sheet sheet;
  if (mode == SheetMode::kMachine) {
    *scale = machine_scale(inspector);
    set_columns(sheet, {{"label", false},
                        {"op_names", false},
                        {"op_types", false},
                        {"debug_handles", false},
                        {"module_hierarchy", false},
                        {"source_locations", false},
                        {"delegated", false},
                        {"backend", false},
                        {"delegate_debug_identifiers", false},
                        {"instructions", false},
                        {"shared", false},
                        {"mapped", false},
                        {"occurrences", true}});
    add_stat_columns(sheet, *scale);
    set_columns(sheet, {{"percent", true}});
    add_counter_columns(sheet, inspector, "_sum", "_mean");
    for (const OpRow& r : rows) {
      std::vector<std::string> instructions;
      for (std::int32_t i : r.instructions) instructions.push_back(std::to_string(i));
      std::vector<std::string> cells = {r.label,
                                        join(r.op_names, ";"),
                                        join(r.op_types, ";"),
                                        handles_text(r.debug_handles, ";"),
                                        join(r.module_hierarchy, ";"),
                                        join(r.source_locations, ";"),
                                        yes_no(r.delegated),
                                        r.backend,
                                        join(id_texts(r.delegate_debug_identifiers), ";"),
                                        join(instructions, ";"),
                                        yes_no(r.shared),
                                        yes_no(r.mapped),
                                        std::to_string(r.occurrences)};
      add_stats(cells, r.stats, *scale);
      cells.push_back(percent(r));
      add_counters(cells, inspector, r, 3);
      sheet.rows.push_back(std::move(cells));
    }
    return sheet;
  }
  *scale = human_scale(inspector, largest);
  // Op types and min are left to csv/json: a terminal has no room.
  set_columns(sheet, {{"op", false}, {"module", false}, {"backend", false}, {"ids", false}});
  add_human_stat_columns(sheet, *scale);
  set_columns(sheet, {{"%", true}});
  add_counter_columns(sheet, inspector, "", " mean");
  for (const OpRow& r : rows) {
    std::vector<std::string> cells = {
        // Without an ETRecord nothing maps: a diagnostic says so once.
        r.label + (r.mapped || !inspector.has_etrecord() ? "" : " (unmapped)"),
        compact_paths(unique(r.module_hierarchy)), r.backend.empty() ? "-" : r.backend,
        r.delegate_debug_identifiers.empty() ? "-"
                                             : join(id_texts(r.delegate_debug_identifiers), ",")};
    add_human_stats(cells, r.stats, *scale);
    cells.push_back(percent(r));
    add_counters(cells, inspector, r, 1);
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

Sheet modules_sheet(const Inspector& inspector, SheetMode mode, TimeScale* scale) {
  const std::vector<ModuleRow> rows = modules_view(inspector);
  const double root = rows.empty() ? 0 : rows.front().total_mean;
  auto percent = [root](const ModuleRow& r) {
    return fixed(root > 0 ? 100 * r.total_mean / root : 0, 1);
  };
  Sheet sheet;
  if (mode == SheetMode::kMachine) {
    *scale = machine_scale(inspector);
    set_columns(sheet, {{"module", false},
                        {"type", false},
                        {"depth", true},
                        {"total_mean_" + scale->unit, true},
                        {"shared_mean_" + scale->unit, true},
                        {"ops", true},
                        {"rows", true},
                        {"percent", true}});
    for (const ModuleRow& r : rows) {
      sheet.rows.push_back({r.path, r.type, std::to_string(r.depth), scale->format(r.total_mean),
                            scale->format(r.shared_mean), std::to_string(r.ops),
                            std::to_string(r.rows), percent(r)});
    }
    return sheet;
  }
  *scale = human_scale(inspector, root);
  set_columns(sheet, {{"module", false},
                      {"type", false},
                      {"ops", true},
                      {unit_header("total", *scale), true},
                      {unit_header("shared", *scale), true},
                      {"%", true}});
  // Rows come in tree order; the indentation says whose child a row is, so
  // each shows only its path below its parent ("self_attention" under
  // "encoder.layers.encoder_layer_5"), which keeps deep trees readable in a
  // narrow column. csv and json keep the full path.
  std::vector<std::string> parents;
  for (const ModuleRow& r : rows) {
    parents.resize(r.depth);
    std::string name = r.path.empty() ? "(model)" : r.path;
    if (r.depth > 0 && !parents[r.depth - 1].empty() &&
        name.starts_with(parents[r.depth - 1] + ".")) {
      name = name.substr(parents[r.depth - 1].size() + 1);
    }
    parents.push_back(r.path);
    sheet.rows.push_back({std::string(2 * r.depth, ' ') + name, r.type.empty() ? "-" : r.type,
                          std::to_string(r.ops), scale->format(r.total_mean),
                          scale->format(r.shared_mean), percent(r)});
  }
  return sheet;
}

Sheet reconcile_sheet(const Inspector& inspector, SheetMode mode, TimeScale* scale) {
  const std::vector<ReconcileRow> rows = reconcile_view(inspector);
  Sheet sheet;
  if (mode == SheetMode::kMachine) {
    *scale = machine_scale(inspector);
    set_columns(sheet,
                {{"kind", false}, {"label", false}, {"instruction", true}, {"backend", false}});
    add_stat_columns(sheet, *scale);
    set_columns(sheet, {{"percent", true}});
    for (const ReconcileRow& r : rows) {
      std::vector<std::string> cells = {std::string(to_string(r.kind)), r.label,
                                        std::to_string(r.instruction.value), r.backend};
      add_stats(cells, r.stats, *scale);
      cells.push_back(fixed(r.percent, 1));
      sheet.rows.push_back(std::move(cells));
    }
    return sheet;
  }
  double largest = 0;
  for (const ReconcileRow& r : rows) largest = std::max(largest, r.stats.max);
  *scale = human_scale(inspector, largest);
  set_columns(sheet, {{"what", false}, {"backend", false}});
  add_human_stat_columns(sheet, *scale);
  set_columns(sheet, {{"%", true}});
  for (const ReconcileRow& r : rows) {
    const bool part = r.kind != ReconcileKind::kDelegateCall && r.kind != ReconcileKind::kExecute;
    std::vector<std::string> cells = {(part ? "  " : "") + r.label,
                                      r.backend.empty() ? "-" : r.backend};
    add_human_stats(cells, r.stats, *scale);
    cells.push_back(fixed(r.percent, 1));
    sheet.rows.push_back(std::move(cells));
  }
  return sheet;
}

Sheet types_sheet(const Inspector& inspector, SheetMode mode, TimeScale* scale) {
  const std::vector<TypeRow> rows = types_view(inspector);
  Sheet sheet;
  if (mode == SheetMode::kMachine) {
    *scale = machine_scale(inspector);
    set_columns(sheet, {{"type", false},
                        {"mapped", false},
                        {"count", true},
                        {"total_" + scale->unit, true},
                        {"mean_" + scale->unit, true},
                        {"shared_mean_" + scale->unit, true},
                        {"percent", true},
                        {"backends", false}});
    for (const TypeRow& r : rows) {
      sheet.rows.push_back({r.type, yes_no(r.mapped), std::to_string(r.count),
                            scale->format(r.total), scale->format(r.mean),
                            scale->format(r.shared_mean), fixed(r.percent, 1),
                            join(r.backends, ";")});
    }
    return sheet;
  }
  double largest = 0;
  for (const TypeRow& r : rows) largest = std::max(largest, r.total);
  *scale = human_scale(inspector, largest);
  set_columns(sheet, {{"type", false},
                      {"ops", true},
                      {unit_header("total", *scale), true},
                      {unit_header("mean", *scale), true},
                      {"%", true},
                      {"backends", false}});
  for (const TypeRow& r : rows) {
    sheet.rows.push_back({r.type.empty() ? "(unknown)" : r.type, std::to_string(r.count),
                          scale->format(r.total), scale->format(r.mean), fixed(r.percent, 1),
                          join(r.backends, ",")});
  }
  return sheet;
}

}  // namespace

Sheet make_sheet(const Inspector& inspector, View view, SheetMode mode, TimeScale* scale) {
  switch (view) {
    case View::kEvents: return events_sheet(inspector, mode, scale);
    case View::kOps: return ops_sheet(inspector, mode, scale);
    case View::kModules: return modules_sheet(inspector, mode, scale);
    case View::kReconcile: return reconcile_sheet(inspector, mode, scale);
    case View::kTypes: return types_sheet(inspector, mode, scale);
  }
  return {};
}

Sheet make_comparison_sheet(const Inspector& baseline, const Inspector& current, SheetMode mode,
                            TimeScale* scale) {
  const std::vector<DeltaRow> rows = compare_ops(baseline, current);
  Sheet sheet;
  if (mode == SheetMode::kMachine) {
    *scale = machine_scale(current);
    const std::string u = "_" + scale->unit;
    set_columns(sheet, {{"label", false},
                        {"debug_handles", false},
                        {"in_baseline", false},
                        {"in_current", false},
                        {"baseline_mean" + u, true},
                        {"current_mean" + u, true},
                        {"delta" + u, true},
                        {"delta_percent", true}});
    for (const DeltaRow& r : rows) {
      sheet.rows.push_back({r.label, handles_text(r.debug_handles, ";"), yes_no(r.in_baseline),
                            yes_no(r.in_current), scale->format(r.baseline_mean),
                            scale->format(r.current_mean), scale->format(r.delta),
                            fixed(r.delta_percent, 1)});
    }
    return sheet;
  }
  double largest = 0;
  for (const DeltaRow& r : rows) largest = std::max({largest, r.baseline_mean, r.current_mean});
  *scale = human_scale(current, largest);
  set_columns(sheet, {{"op", false},
                      {unit_header("baseline", *scale), true},
                      {unit_header("current", *scale), true},
                      {unit_header("delta", *scale), true},
                      {"delta %", true}});
  for (const DeltaRow& r : rows) {
    sheet.rows.push_back({r.label, r.in_baseline ? scale->format(r.baseline_mean) : "-",
                          r.in_current ? scale->format(r.current_mean) : "-",
                          scale->format(r.delta),
                          r.in_baseline && r.in_current ? fixed(r.delta_percent, 1) : "-"});
  }
  return sheet;
}

}  // namespace glassbox::inspector

// The JSON form of every view: one document with the context (time unit
// and where it came from, runs, coverage, diagnostics) and the rows. Its
// keys are the stable interface described in docs/inspector.md.

#include <cmath>
#include <nlohmann/json.hpp>

#include "glassbox/inspector/views.h"
#include "src/inspector/format_internal.h"

namespace glassbox::inspector {
namespace {

using Json = nlohmann::ordered_json;

// Times to 0.1 ns (or tick), as in csv: more digits are clock noise, and
// fewer digits keep goldens stable.
double t(double value) {
  const double rounded = std::round(value * 10) / 10;
  return rounded == 0 ? 0.0 : rounded;
}

Json identifier_json(const Identifier& id) {
  if (!id.has_value()) return nullptr;
  if (const auto* i = std::get_if<std::int64_t>(&*id)) return *i;
  return std::get<std::string>(*id);
}

Json handles_json(const std::vector<DebugHandle>& handles) {
  Json out = Json::array();
  for (DebugHandle h : handles) out.push_back(h.value);
  return out;
}

Json string_or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

void add_stats(Json& row, const PerfStats& s) {
  row["count"] = s.count;
  row["mean_ns"] = t(s.mean);
  row["p10_ns"] = t(s.p10);
  row["p50_ns"] = t(s.p50);
  row["p90_ns"] = t(s.p90);
  row["min_ns"] = t(s.min);
  row["max_ns"] = t(s.max);
  row["stddev_ns"] = t(s.stddev);
  row["total_ns"] = t(s.total);
}

Json header(const Inspector& inspector, std::string_view view) {
  Json doc;
  doc["format"] = "glassbox-inspector";
  doc["version"] = 1;
  doc["view"] = view;
  const TimeInfo& time = inspector.time();
  Json scales = Json::array();
  for (const TimeInfo::DelegateScale& s : time.delegate_scales) {
    scales.push_back({{"backend", s.backend},
                      {"numerator", s.ns_per_tick.numerator},
                      {"denominator", s.ns_per_tick.denominator},
                      {"source", to_string(s.source)}});
  }
  doc["time"] = {{"unit", time.unit},
                 {"source", to_string(time.source)},
                 {"ns_per_tick", time.ns_per_tick},
                 {"delegate_scales", scales},
                 {"delegate_converter", time.delegate_converter}};
  std::size_t executions = 0, skipped = 0;
  for (const RunInfo& run : inspector.runs()) {
    if (run.name != "Execute") continue;
    ++executions;
    skipped += !run.used;
  }
  doc["runs"] = {{"executions", executions}, {"used", executions - skipped}, {"skipped", skipped}};
  doc["etrecord"] = inspector.has_etrecord();
  doc["coverage"] = {{"mapped_identifiers", inspector.mapped_identifiers()},
                     {"logged_identifiers", inspector.logged_identifiers()}};
  Json diagnostics = Json::array();
  for (const Diagnostic& d : inspector.diagnostics()) {
    diagnostics.push_back({{"severity", to_string(d.severity)}, {"message", d.message}});
  }
  doc["diagnostics"] = diagnostics;
  return doc;
}

Json events_rows(const Inspector& inspector) {
  Json rows = Json::array();
  for (const EventGroup* g : events_view(inspector)) {
    Json row;
    row["block"] = g->block;
    row["name"] = g->name;
    row["role"] = to_string(g->role);
    row["instruction"] = g->instruction.is_set() ? Json(g->instruction.value) : Json(nullptr);
    row["delegate_debug_identifier"] = identifier_json(g->identifier);
    row["delegated"] = g->delegated;
    row["backend"] = string_or_null(g->backend);
    row["resolved"] = g->resolved;
    row["debug_handles"] = handles_json(g->debug_handles);
    Json names = Json::array(), types = Json::array(), modules = Json::array();
    for (const SourceOp& op : g->source_ops) {
      names.push_back(op.name);
      types.push_back(op.type);
      modules.push_back(op.module_path());
    }
    row["op_names"] = names;
    row["op_types"] = types;
    row["module_hierarchy"] = modules;
    row["occurrences"] = g->occurrences;
    row["time_scale"] = to_string(g->time_scale);
    row["delegate_debug_metadata"] = string_or_null(metadata_text(g->delegate_debug_metadata));
    add_stats(row, g->stats);
    rows.push_back(std::move(row));
  }
  return rows;
}

Json ops_rows(const Inspector& inspector) {
  Json rows = Json::array();
  for (const OpRow& r : ops_view(inspector)) {
    Json row;
    row["label"] = r.label;
    row["op_names"] = r.op_names;
    row["op_types"] = r.op_types;
    row["debug_handles"] = handles_json(r.debug_handles);
    row["module_hierarchy"] = r.module_hierarchy;
    row["source_locations"] = r.source_locations;
    row["delegated"] = r.delegated;
    row["backend"] = string_or_null(r.backend);
    Json ids = Json::array();
    for (const auto& id : r.delegate_debug_identifiers) ids.push_back(identifier_json(id));
    row["delegate_debug_identifiers"] = ids;
    row["instructions"] = r.instructions;
    row["shared"] = r.shared;
    row["mapped"] = r.mapped;
    row["occurrences"] = r.occurrences;
    row["time_scale"] = to_string(r.time_scale);
    add_stats(row, r.stats);
    // Only for a dump with counters: other outputs keep their bytes.
    if (!inspector.counter_names().empty()) {
      Json counters = Json::object();
      for (const std::string& name : inspector.counter_names()) {
        counters[name] = {{"sum", r.counter_sum(name)},
                          {"mean", std::round(r.counter_mean(name) * 1000) / 1000}};
      }
      row["counters"] = std::move(counters);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Json modules_rows(const Inspector& inspector) {
  Json rows = Json::array();
  for (const ModuleRow& r : modules_view(inspector)) {
    rows.push_back({{"module", r.path},
                    {"type", string_or_null(r.type)},
                    {"depth", r.depth},
                    {"total_mean_ns", t(r.total_mean)},
                    {"shared_mean_ns", t(r.shared_mean)},
                    {"ops", r.ops},
                    {"rows", r.rows}});
  }
  return rows;
}

Json reconcile_rows(const Inspector& inspector) {
  Json rows = Json::array();
  for (const ReconcileRow& r : reconcile_view(inspector)) {
    Json row;
    row["kind"] = to_string(r.kind);
    row["label"] = r.label;
    row["instruction"] = r.instruction.is_set() ? Json(r.instruction.value) : Json(nullptr);
    row["backend"] = string_or_null(r.backend);
    add_stats(row, r.stats);
    row["percent"] = std::round(r.percent * 10) / 10;
    rows.push_back(std::move(row));
  }
  return rows;
}

Json types_rows(const Inspector& inspector) {
  Json rows = Json::array();
  for (const TypeRow& r : types_view(inspector)) {
    rows.push_back({{"type", r.type},
                    {"mapped", r.mapped},
                    {"count", r.count},
                    {"total_ns", t(r.total)},
                    {"mean_ns", t(r.mean)},
                    {"shared_mean_ns", t(r.shared_mean)},
                    {"percent", std::round(r.percent * 10) / 10},
                    {"backends", r.backends}});
  }
  return rows;
}

std::string dump(const Json& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string render_json(const Inspector& inspector, View view) {
  Json doc = header(inspector, to_string(view));
  switch (view) {
    case View::kEvents: doc["rows"] = events_rows(inspector); break;
    case View::kOps: doc["rows"] = ops_rows(inspector); break;
    case View::kModules: doc["rows"] = modules_rows(inspector); break;
    case View::kReconcile: doc["rows"] = reconcile_rows(inspector); break;
    case View::kTypes: doc["rows"] = types_rows(inspector); break;
  }
  return dump(doc);
}

std::string render_comparison_json(const Inspector& baseline, const Inspector& current) {
  Json doc = header(current, "compare");
  Json rows = Json::array();
  for (const DeltaRow& r : compare_ops(baseline, current)) {
    rows.push_back({{"label", r.label},
                    {"debug_handles", handles_json(r.debug_handles)},
                    {"in_baseline", r.in_baseline},
                    {"in_current", r.in_current},
                    {"baseline_mean_ns", t(r.baseline_mean)},
                    {"current_mean_ns", t(r.current_mean)},
                    {"delta_ns", t(r.delta)},
                    {"delta_percent", std::round(r.delta_percent * 10) / 10}});
  }
  doc["rows"] = rows;
  return dump(doc);
}

}  // namespace glassbox::inspector

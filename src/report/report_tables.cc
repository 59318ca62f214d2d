// The summary, the ops table, the module tree and the op types of the report
// data: the Inspector's ops, modules and types views, reshaped for the page.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "src/report/report_json.h"

namespace glassbox::report {

using inspector::Inspector;
using inspector::ModuleRow;
using inspector::OpRow;

double round_time(double value) { return std::round(value * 10.0) / 10.0; }

Json identifier_json(const aot::DelegateDebugIdentifier& id) {
  if (const auto* i = std::get_if<std::int64_t>(&id)) return *i;
  return std::get<std::string>(id);
}

namespace {

double sum_of_means(const std::vector<OpRow>& ops) {
  double sum = 0;
  for (const OpRow& r : ops) sum += r.stats.mean;
  return sum;
}

Json executions_json(const Inspector& inspector) {
  std::uint32_t total = 0, used = 0;
  for (const inspector::RunInfo& run : inspector.runs()) {
    if (run.name != "Execute") continue;
    ++total;
    used += run.used;
  }
  return Json{{"total", total}, {"used", used}, {"skipped", total - used}};
}

// Every module path each op of the row sits in (its whole hierarchy, not
// only the innermost module), from the groups' source ops.
std::set<std::string> module_paths_of(
    const OpRow& row, const std::map<std::uint32_t, const inspector::SourceOp*>& ops) {
  std::set<std::string> paths;
  for (DebugHandle h : row.debug_handles) {
    auto it = ops.find(h.value);
    if (it == ops.end()) continue;
    paths.insert("");  // The model holds every mapped op.
    for (const aot::ModuleFrame& frame : it->second->module_hierarchy) paths.insert(frame.path);
  }
  if (paths.empty()) paths.insert("");  // Unmapped time still belongs to the model.
  return paths;
}

}  // namespace

Json summary_json(const Inspector& inspector, const std::vector<OpRow>& ops,
                  const ReportOptions& options) {
  std::set<std::string> backends;
  for (const OpRow& r : ops) {
    if (!r.backend.empty()) backends.insert(r.backend);
  }
  Json diagnostics = Json::array();
  for (const inspector::Diagnostic& d : inspector.diagnostics()) {
    diagnostics.push_back({{"severity", to_string(d.severity)}, {"message", d.message}});
  }
  const inspector::TracerCounters& counters = inspector.counters();
  return Json{
      {"title", options.title},
      {"backends", Json(std::vector<std::string>(backends.begin(), backends.end()))},
      {"executions", executions_json(inspector)},
      {"time",
       {{"unit", inspector.time().unit},
        {"source", to_string(inspector.time().source)},
        {"ns_per_tick", inspector.time().ns_per_tick}}},
      {"etrecord", inspector.has_etrecord()},
      {"coverage",
       {{"mapped_identifiers", inspector.mapped_identifiers()},
        {"logged_identifiers", inspector.logged_identifiers()}}},
      {"counters",
       {{"dropped_events", counters.dropped_events},
        {"rejected_events", counters.rejected_events},
        {"tensor_data_dropped", counters.tensor_data_dropped}}},
      {"fingerprint", to_string(inspector.fingerprint_check())},
      {"ops_mean_total", round_time(sum_of_means(ops))},
      {"diagnostics", diagnostics},
  };
}

Json ops_json(const Inspector& inspector, const std::vector<OpRow>& ops,
              const std::vector<ModuleRow>& modules) {
  std::map<std::uint32_t, const inspector::SourceOp*> op_by_handle;
  for (const inspector::EventGroup& g : inspector.groups()) {
    for (const inspector::SourceOp& op : g.source_ops)
      op_by_handle.try_emplace(op.handle.value, &op);
  }
  std::map<std::string, std::size_t> module_index;
  for (std::size_t i = 0; i < modules.size(); ++i) module_index.try_emplace(modules[i].path, i);

  const double sum = sum_of_means(ops);
  Json rows = Json::array();
  for (const OpRow& r : ops) {
    Json ids = Json::array();
    for (const aot::DelegateDebugIdentifier& id : r.delegate_debug_identifiers) {
      ids.push_back(identifier_json(id));
    }
    Json handles = Json::array();
    for (DebugHandle h : r.debug_handles) handles.push_back(h.value);
    Json in_modules = Json::array();
    for (const std::string& path : module_paths_of(r, op_by_handle)) {
      auto it = module_index.find(path);
      if (it != module_index.end()) in_modules.push_back(it->second);
    }
    std::sort(in_modules.begin(), in_modules.end());
    rows.push_back({
        {"label", r.label},
        {"op_names", r.op_names},
        {"op_types", r.op_types},
        {"modules", r.module_hierarchy},
        {"debug_handles", handles},
        {"backend", r.backend},
        {"identifiers", ids},
        {"instructions", r.instructions},
        {"fused", r.shared},
        // Several delegate identifiers summed back into one row: one
        // source op the delegate ran as several steps.
        {"decomposed", r.delegate_debug_identifiers.size() > 1},
        {"mapped", r.mapped},
        {"occurrences", r.occurrences},
        {"n", r.stats.count},
        {"mean", round_time(r.stats.mean)},
        {"p50", round_time(r.stats.p50)},
        {"p90", round_time(r.stats.p90)},
        {"min", round_time(r.stats.min)},
        {"max", round_time(r.stats.max)},
        {"percent", round_time(sum > 0 ? 100 * r.stats.mean / sum : 0)},
        {"in_modules", in_modules},
    });
    // The delegate counters, in the dump's order, only when it has any:
    // a report of a dump without them keeps its bytes.
    if (!inspector.counter_names().empty()) {
      Json counters = Json::array();
      for (const std::string& name : inspector.counter_names()) {
        counters.push_back({{"name", name},
                            {"sum", r.counter_sum(name)},
                            {"mean", round_time(r.counter_mean(name))}});
      }
      rows.back()["counters"] = std::move(counters);
    }
  }
  return rows;
}

Json modules_json(const std::vector<ModuleRow>& modules) {
  Json rows = Json::array();
  // Depth first: a row's parent is the nearest earlier row one level up.
  std::vector<std::int64_t> last_at_depth;
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const ModuleRow& m = modules[i];
    const std::int64_t parent =
        m.depth == 0 || m.depth > last_at_depth.size() ? -1 : last_at_depth[m.depth - 1];
    last_at_depth.resize(m.depth + 1);
    last_at_depth[m.depth] = static_cast<std::int64_t>(i);
    rows.push_back({{"path", m.path},
                    {"type", m.type},
                    {"depth", m.depth},
                    {"parent", parent},
                    {"total", round_time(m.total_mean)},
                    {"shared", round_time(m.shared_mean)},
                    {"ops", m.ops},
                    {"rows", m.rows}});
  }
  return rows;
}

Json types_json(const std::vector<inspector::TypeRow>& types) {
  Json rows = Json::array();
  for (const inspector::TypeRow& t : types) {
    rows.push_back({{"type", t.type},
                    {"mapped", t.mapped},
                    {"count", t.count},
                    {"total", round_time(t.total)},
                    {"mean", round_time(t.mean)},
                    {"shared", round_time(t.shared_mean)},
                    {"percent", round_time(t.percent)},
                    {"backends", t.backends}});
  }
  return rows;
}

}  // namespace glassbox::report

// The comparison charts' data: numeric error along execution order, per-op
// time deltas against a baseline run, and the per-layer comparison with
// another program of the same source model.

#include <algorithm>
#include <cmath>

#include "src/report/report_json.h"

namespace glassbox::report {
namespace {

using inspector::Comparator;

// Source op names as one label: "conv2d+relu".
std::string joined(const std::vector<std::string>& names) {
  std::string label;
  for (const std::string& name : names) label += (label.empty() ? "" : "+") + name;
  return label;
}

std::string row_label(const inspector::NumericRow& row) {
  if (row.kind == inspector::NumericRowKind::kProgramOutput) {
    return "output " + std::to_string(row.output_index);
  }
  const std::string label = joined(row.op_names);
  return label.empty() ? "(unmapped)" : label;
}

}  // namespace

// JSON has no inf or NaN: they are spelled as strings, as in
// `inspect --numeric --format json`.
Json metric_json(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

bool fails_below(Comparator metric) {
  return metric == Comparator::kSnr || metric == Comparator::kCosine;
}

Json numeric_json(const inspector::NumericReport& report) {
  Json rows = Json::array();
  for (const inspector::NumericRow& row : report.rows) {
    Json ids = Json::array();
    for (const aot::DelegateDebugIdentifier& id : row.identifiers)
      ids.push_back(identifier_json(id));
    const bool compared = row.status == inspector::NumericStatus::kCompared;
    rows.push_back(
        {{"order", row.order},
         {"kind", to_string(row.kind)},
         {"label", row_label(row)},
         {"instruction", row.instruction.is_set() ? Json(row.instruction.value) : Json()},
         {"backend", row.backend},
         {"identifiers", ids},
         {"reference_op", row.reference_op},
         {"status", to_string(row.status)},
         {"value", compared ? metric_json(row.threshold_value) : Json()},
         {"exceeds", row.exceeds},
         {"first_failure", row.first_failure},
         {"note", row.note}});
  }
  // Errors and differences span decades: a log axis, except for snr (dB,
  // already logarithmic) and cosine (close to 1).
  const bool log_scale =
      !fails_below(report.threshold_metric) && report.threshold_metric != Comparator::kCosine;
  return Json{{"execution", report.execution},
              {"metric", to_string(report.threshold_metric)},
              {"threshold", metric_json(report.threshold)},
              {"fails_when", fails_below(report.threshold_metric) ? "below" : "above"},
              {"scale", log_scale ? "log" : "linear"},
              {"first_failure", report.first_failure ? Json(*report.first_failure) : Json()},
              {"rows", rows}};
}

Json quant_json(const inspector::QuantReport& report) {
  auto db = [](const std::optional<double>& v) { return v ? metric_json(*v) : Json(); };
  Json rows = Json::array();
  for (const inspector::QuantRow& row : report.rows) {
    rows.push_back({{"label", joined(row.op_names)},
                    {"module", row.module},
                    {"isolated_sqnr_db", db(row.isolated_sqnr_db)},
                    {"quant_sqnr_db", db(row.quant_sqnr_db)},
                    {"kernel_sqnr_db", db(row.kernel_sqnr_db)},
                    {"sqnr_db", db(row.sqnr_db)},
                    {"clipped_fraction", db(row.clipped_fraction)}});
  }
  return Json{{"execution", report.execution}, {"rows", rows}};
}

Json baseline_json(const inspector::Inspector& baseline, const inspector::Inspector& current) {
  std::vector<inspector::DeltaRow> deltas = inspector::compare_ops(baseline, current);
  // Regressions first, the largest on top; compare_ops' |delta| order breaks ties.
  std::stable_sort(
      deltas.begin(), deltas.end(),
      [](const inspector::DeltaRow& a, const inspector::DeltaRow& b) { return a.delta > b.delta; });
  Json rows = Json::array();
  for (const inspector::DeltaRow& d : deltas) {
    Json handles = Json::array();
    for (DebugHandle h : d.debug_handles) handles.push_back(h.value);
    rows.push_back({{"label", d.label},
                    {"debug_handles", handles},
                    {"in_baseline", d.in_baseline},
                    {"in_current", d.in_current},
                    {"baseline", round_time(d.baseline_mean)},
                    {"current", round_time(d.current_mean)},
                    {"delta", round_time(d.delta)},
                    {"delta_percent", round_time(d.delta_percent)}});
  }
  return Json{{"rows", rows}};
}

namespace {

Json optional_time(const std::optional<double>& ns) { return ns ? Json(round_time(*ns)) : Json(); }

Json compare_rows_json(const std::vector<inspector::RunCompareRow>& rows) {
  Json out = Json::array();
  for (const inspector::RunCompareRow& r : rows) {
    out.push_back({{"label", joined(r.op_names)},
                   // B's names, when the join was by structure and they differ.
                   {"label_b", r.op_names_b == r.op_names ? "" : joined(r.op_names_b)},
                   {"op_types", r.op_types},
                   {"module", r.module},
                   {"backend_a", r.backend_a},
                   {"backend_b", r.backend_b},
                   {"a", optional_time(r.mean_ns_a)},
                   {"b", optional_time(r.mean_ns_b)},
                   {"ratio", r.ratio ? Json(std::round(*r.ratio * 1000) / 1000) : Json()},
                   {"delta", round_time(r.delta_ns)}});
  }
  return out;
}

}  // namespace

Json compare_json(const inspector::RunComparison& comparison) {
  Json types = Json::array();
  for (const inspector::RunRollupRow& t : comparison.by_type) {
    types.push_back({{"type", t.key},
                     {"ops", t.ops},
                     {"a", round_time(t.mean_ns_a)},
                     {"b", round_time(t.mean_ns_b)},
                     {"delta", round_time(t.delta_ns)}});
  }
  return Json{{"name_a", comparison.name_a},
              {"name_b", comparison.name_b},
              {"join", to_string(comparison.join)},
              {"total_a", round_time(comparison.total_ns_a)},
              {"total_b", round_time(comparison.total_ns_b)},
              {"rows", compare_rows_json(comparison.rows)},
              {"only_a", compare_rows_json(comparison.only_a)},
              {"only_b", compare_rows_json(comparison.only_b)},
              {"by_type", types}};
}

}  // namespace glassbox::report

#pragma once
// Private: the sections of the report data, one builder each. Every time is
// in the Inspector's unit (ns, or ticks) rounded to 0.1, so the data is
// deterministic and small.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "glassbox/inspector/compare_runs.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/inspector/quant.h"
#include "glassbox/inspector/views.h"
#include "glassbox/report/report.h"

namespace glassbox::report {

// Keys stay in the order written: the golden data reads like the docs.
using Json = nlohmann::ordered_json;

/// A metric as JSON: inf and NaN (which JSON lacks) spelled as strings, as
/// in `inspect --numeric --format json`.
Json metric_json(double value);

/// True for metrics where lower is worse (snr, cosine).
bool fails_below(inspector::Comparator metric);

/// The graph section: the ETRecord's edge graph with each node's ops-table
/// row, delegate call, numeric error and int8 SQNR (report_graph.cc); null
/// when the record has no graph.
Json graph_json(const etrecord::ETRecord& record, const std::vector<inspector::OpRow>& ops,
                const inspector::NumericReport* numeric, const inspector::QuantReport* quant);

/// `value` rounded to one decimal.
double round_time(double value);

/// An identifier as JSON in its own type (an int id is a number).
Json identifier_json(const aot::DelegateDebugIdentifier& id);

/// Model, backends, executions, time unit, coverage, counters, fingerprint,
/// diagnostics.
Json summary_json(const inspector::Inspector& inspector, const std::vector<inspector::OpRow>& ops,
                  const ReportOptions& options);

/// The ops table; each row lists the indices of the modules (into
/// modules_json's rows) it has an op in, so a module can filter the table.
Json ops_json(const inspector::Inspector& inspector, const std::vector<inspector::OpRow>& ops,
              const std::vector<inspector::ModuleRow>& modules);

/// The module tree, depth first, each row with its parent's index.
Json modules_json(const std::vector<inspector::ModuleRow>& modules);

/// The types view (time per source op type), for the "time by op type"
/// chart.
Json types_json(const std::vector<inspector::TypeRow>& types);

/// One execution's events, lanes and the groups they belong to; null when
/// the dump holds no execution to show.
StatusOr<Json> timeline_json(const inspector::Inspector& inspector, const ReportOptions& options);

/// The numeric comparison along execution order.
Json numeric_json(const inspector::NumericReport& report);
/// The quant chart's data: per quantized op (worst isolated SQNR first) its
/// label and the four SQNRs (report_comparisons.cc).
Json quant_json(const inspector::QuantReport& report);

/// The per-layer comparison with another program (report_comparisons.cc):
/// rows both runs have (largest change first), rows only one has, the op
/// type rollup.
Json compare_json(const inspector::RunComparison& comparison);

/// Per-op deltas against a baseline, regressions first.
Json baseline_json(const inspector::Inspector& baseline, const inspector::Inspector& current);

/// `data` as text: one member per line at the top (and inside its objects),
/// one element per line in arrays of rows, compact within a row, so that a
/// golden diff shows which row changed.
std::string dump_by_rows(const Json& data);

}  // namespace glassbox::report

#pragma once
/// @file
/// One self-contained HTML page per run: summary, the ops table, top ops,
/// the module tree, the model's graph (with an ETRecord), one execution's
/// timeline, and (when given) the numeric
/// comparison, per-op deltas against a baseline and the per-layer
/// comparison with another program of the same model.
///
///   report::ReportInputs in{.current = &inspector};
///   GLASSBOX_ASSIGN_OR_RETURN(std::string html, report::render_report(in, {}));
///
/// Everything is aggregated here, in C++, from the Inspector's views; the
/// page embeds only what each chart draws, as one JSON object (the "report
/// data", documented in docs/report.md), plus its own CSS and JS. The page
/// opens offline: it loads nothing at view time (its Content-Security-Policy
/// forbids it).
///
/// The timeline carries ONE execution: `ReportOptions::execution`, or by
/// default the median one (by Method::execute time). When that execution
/// holds more than `timeline_event_limit` events, only the longest ones are
/// kept (ties: the earlier first), and the page says so.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/compare_runs.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/inspector/quant.h"

namespace glassbox::report {

struct ReportInputs {
  /// The run being reported. Required.
  const inspector::Inspector* current = nullptr;
  /// An earlier run of the same program: per-op deltas. Optional.
  const inspector::Inspector* baseline = nullptr;
  /// The numeric comparison of `current`'s logged values. Optional.
  const inspector::NumericReport* numeric = nullptr;
  /// The quant view of an int8 model's run (SQNR per quantized op). Optional.
  const inspector::QuantReport* quant = nullptr;
  /// The ETRecord `current` was joined with: its edge graph becomes the
  /// graph section (nodes shaded by time, error or SQNR). Optional.
  const etrecord::ETRecord* etrecord = nullptr;
  /// `current` against another program of the same source model, per
  /// source op (compare_runs.h): the per-layer comparison chart. Optional.
  const inspector::RunComparison* comparison = nullptr;
};

struct ReportOptions {
  /// What the page calls the model (its title).
  std::string title = "model";
  /// The execution the timeline shows: 0-based among the dump's "Execute"
  /// runs, as `inspect --execution`. nullopt: the median one.
  std::optional<std::uint32_t> execution;
  /// Most events the timeline carries; above it the longest are kept.
  std::size_t timeline_event_limit = 20000;
};

/// The execution the timeline will show (0-based among "Execute" runs):
/// `options.execution` when set, else the median used execution by
/// Method::execute time (the lower median; ties go to the earlier run).
/// kInvalidArgument when the asked execution does not exist or was skipped
/// as warm-up; kNotFound when the dump holds no used execution.
StatusOr<std::uint32_t> timeline_execution(const inspector::Inspector& inspector,
                                           const ReportOptions& options);

/// The report data: one JSON object, deterministic (same inputs, same
/// bytes), times in the Inspector's unit rounded to 0.1.
StatusOr<std::string> report_data(const ReportInputs& inputs, const ReportOptions& options);

/// The page around `data` (report data JSON): inlined CSS, JS and data.
/// `data` is embedded so that no text inside it can end the script block.
std::string report_page(std::string_view data);

/// report_page(report_data(...)).
StatusOr<std::string> render_report(const ReportInputs& inputs, const ReportOptions& options);

}  // namespace glassbox::report

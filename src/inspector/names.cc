// The names of the Inspector's enums, as they appear in every output format
// (docs/inspector.md): changing one changes the stable formats.

#include <string>

#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/views.h"

namespace glassbox::inspector {

std::string_view to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kNanoseconds: return "ns";
    case TimeUnit::kMicroseconds: return "us";
    case TimeUnit::kMilliseconds: return "ms";
    case TimeUnit::kTicks: return "ticks";
  }
  return "?";
}

StatusOr<TimeUnit> parse_time_unit(std::string_view text) {
  for (TimeUnit unit : {TimeUnit::kNanoseconds, TimeUnit::kMicroseconds, TimeUnit::kMilliseconds,
                        TimeUnit::kTicks}) {
    if (text == to_string(unit)) return unit;
  }
  return Status(Error::kInvalidArgument,
                "time unit must be ns, us, ms or ticks, got \"" + std::string(text) + "\"");
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "?";
}

std::string_view to_string(TimeUnitSource source) {
  switch (source) {
    case TimeUnitSource::kDump: return "dump";
    case TimeUnitSource::kAssumedNanoseconds: return "assumed";
    case TimeUnitSource::kOverride: return "override";
  }
  return "?";
}

std::string_view to_string(TimeScaleSource source) {
  switch (source) {
    case TimeScaleSource::kClock: return "clock";
    case TimeScaleSource::kDump: return "delegate scale from dump";
    case TimeScaleSource::kOption: return "option";
    case TimeScaleSource::kConverter: return "converter";
  }
  return "?";
}

std::string_view to_string(FingerprintCheck check) {
  switch (check) {
    case FingerprintCheck::kNoETRecord: return "no_etrecord";
    case FingerprintCheck::kNotInDump: return "not_in_dump";
    case FingerprintCheck::kMatch: return "match";
    case FingerprintCheck::kMismatchAllowed: return "mismatch_allowed";
  }
  return "?";
}

std::string_view to_string(EventRole role) {
  switch (role) {
    case EventRole::kFramework: return "framework";
    case EventRole::kOperator: return "operator";
    case EventRole::kDelegateCall: return "delegate_call";
    case EventRole::kDelegateInternal: return "delegate";
  }
  return "?";
}

std::string identifier_text(const Identifier& id) {
  if (!id.has_value()) return {};
  if (const auto* i = std::get_if<std::int64_t>(&*id)) return std::to_string(*i);
  return std::get<std::string>(*id);
}

std::string_view to_string(ReconcileKind kind) {
  switch (kind) {
    case ReconcileKind::kDelegateCall: return "delegate_call";
    case ReconcileKind::kInnerEvents: return "inner_events";
    case ReconcileKind::kDelegateGap: return "delegate_gap";
    case ReconcileKind::kExecute: return "execute";
    case ReconcileKind::kOperatorRows: return "operator_rows";
    case ReconcileKind::kFrameworkGap: return "framework_gap";
  }
  return "?";
}

std::string_view to_string(View view) {
  switch (view) {
    case View::kEvents: return "events";
    case View::kOps: return "ops";
    case View::kModules: return "modules";
    case View::kReconcile: return "reconcile";
    case View::kTypes: return "types";
  }
  return "?";
}

std::string_view to_string(Format format) {
  switch (format) {
    case Format::kTable: return "table";
    case Format::kCsv: return "csv";
    case Format::kTsv: return "tsv";
    case Format::kJson: return "json";
    case Format::kChrome: return "chrome";
  }
  return "?";
}

StatusOr<View> parse_view(std::string_view text) {
  for (View v : {View::kEvents, View::kOps, View::kModules, View::kReconcile, View::kTypes}) {
    if (text == to_string(v)) return v;
  }
  return Status(
      Error::kInvalidArgument,
      "view must be events, ops, modules, reconcile or types, got \"" + std::string(text) + "\"");
}

StatusOr<Format> parse_format(std::string_view text) {
  for (Format f : {Format::kTable, Format::kCsv, Format::kTsv, Format::kJson, Format::kChrome}) {
    if (text == to_string(f)) return f;
  }
  return Status(Error::kInvalidArgument, "format must be table, csv, tsv, json or chrome, got \"" +
                                             std::string(text) + "\"");
}

}  // namespace glassbox::inspector

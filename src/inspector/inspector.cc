// One dump's part of the Inspector: time unit, fingerprint and counter
// checks, then the grouping (group.cc). aggregate.cc merges prepared dumps
// and joins them with the ETRecord (resolve.cc); create is one dump of it.

#include "glassbox/inspector/inspector.h"

#include <algorithm>
#include <string>

#include "glassbox/inspector/aggregate.h"
#include "src/inspector/builder.h"
#include "src/inspector/record_index.h"

namespace glassbox::inspector {
namespace {

void add_diagnostic(Inspector& inspector, Severity severity, std::string message) {
  InspectorBuilder::diagnostics(inspector).push_back({severity, std::move(message)});
}

TimeInfo time_info(const etdump::ETDumpFile& dump, const InspectorOptions& options) {
  TimeInfo time;
  if (options.time_unit.has_value()) {
    time.source = TimeUnitSource::kOverride;
    switch (*options.time_unit) {
      case TimeUnit::kNanoseconds: time.ns_per_tick = 1; break;
      case TimeUnit::kMicroseconds: time.ns_per_tick = 1e3; break;
      case TimeUnit::kMilliseconds: time.ns_per_tick = 1e6; break;
      case TimeUnit::kTicks:
        time.ns_per_tick = 1;
        time.unit = "ticks";
        break;
    }
  } else if (dump.tick_ratio.has_value()) {
    time.source = TimeUnitSource::kDump;
    time.ns_per_tick = dump.tick_ratio->ns_per_tick();
  } else {
    time.source = TimeUnitSource::kAssumedNanoseconds;
  }
  return time;
}

std::string ratio_text(const TickRatio& ratio) {
  return std::to_string(ratio.numerator) + "/" + std::to_string(ratio.denominator);
}

void check_time(const etdump::ETDumpFile& dump, const InspectorOptions& options,
                Inspector& inspector) {
  if (options.time_unit.has_value()) {
    add_diagnostic(inspector, Severity::kInfo,
                   "time unit overridden: raw timestamps read as " +
                       std::string(to_string(*options.time_unit)) +
                       (dump.tick_ratio.has_value()
                            ? " (the dump's own tick ratio, " + ratio_text(*dump.tick_ratio) +
                                  " ns per tick, is ignored)"
                            : std::string()));
  } else if (!dump.tick_ratio.has_value()) {
    add_diagnostic(
        inspector, Severity::kWarning,
        "the ETDump records no tick ratio (written by ExecuTorch?): timestamps are assumed "
        "to be nanoseconds; use --time-unit if they are not");
  }
}

Status check_same_program(const etdump::ETDumpFile& dump, const etrecord::ETRecord& record,
                          const InspectorOptions& options, Inspector& inspector) {
  for (const std::string& note : record.notes)
    add_diagnostic(inspector, Severity::kInfo, "ETRecord: " + note);
  // ExecuTorch's ETRecords have no fingerprint: the join itself checks the
  // dump's ids against the record's maps instead (resolve.cc).
  if (record.fingerprint.empty()) return Status();
  if (!dump.program_fingerprint.has_value()) {
    InspectorBuilder::set_fingerprint_check(inspector, FingerprintCheck::kNotInDump);
    add_diagnostic(
        inspector, Severity::kInfo,
        "the ETDump records no program fingerprint (written by ExecuTorch?): cannot check "
        "that it belongs to the ETRecord's program");
    return Status();
  }
  InspectorBuilder::set_fingerprint_check(inspector, *dump.program_fingerprint == record.fingerprint
                                                         ? FingerprintCheck::kMatch
                                                         : FingerprintCheck::kMismatchAllowed);
  return check_fingerprint(
      dump, record, options.allow_fingerprint_mismatch,
      "; pass the matching ETRecord, or --allow-fingerprint-mismatch to join them anyway",
      " (joined anyway: --allow-fingerprint-mismatch); names may be wrong",
      &InspectorBuilder::diagnostics(inspector));
}

void check_counters(const etdump::ETDumpFile& dump, Inspector& inspector) {
  std::uint64_t dropped = 0, rejected = 0, tensors = 0;
  for (const etdump::RunData& run : dump.runs) {
    dropped += run.dropped_events.value_or(0);
    rejected += run.rejected_events.value_or(0);
    tensors += run.tensor_data_dropped.value_or(0);
  }
  // The file-level counter covers events dropped outside any block too.
  if (dump.dropped_events.has_value()) dropped = std::max(dropped, *dump.dropped_events);
  InspectorBuilder::counters(inspector) = TracerCounters{dropped, rejected, tensors};
  if (dropped > 0) {
    add_diagnostic(inspector, Severity::kWarning,
                   std::to_string(dropped) +
                       " events were dropped because the tracer's buffer was full: statistics are "
                       "incomplete; give ETDumpGen a bigger buffer");
  }
  if (dump.dropped_blocks.value_or(0) > 0) {
    add_diagnostic(
        inspector, Severity::kWarning,
        std::to_string(*dump.dropped_blocks) +
            " event blocks (executions) were refused because the tracer's buffer was full: "
            "later executions are missing; give ETDumpGen a bigger buffer");
  }
  if (rejected > 0) {
    add_diagnostic(
        inspector, Severity::kWarning,
        std::to_string(rejected) +
            " events were rejected by the tracer as invalid calls (a delegate event with both "
            "or neither of a name and an int id?)");
  }
  if (tensors > 0) {
    add_diagnostic(
        inspector, Severity::kInfo,
        std::to_string(tensors) + " logged tensors have no data (no data sink, or it was full)");
  }
}

// `dump` has the runs, counters and time scales; `events` its profile events
// (in `dump` itself, or left in an ETDumpBuffer's bytes).
StatusOr<PreparedDump> prepare_dump(const etdump::ETDumpFile& dump,
                                    const ProfileEventSource& events,
                                    const etrecord::ETRecord* etrecord,
                                    const InspectorOptions& options) {
  Inspector inspector = InspectorBuilder::make();
  InspectorBuilder::time(inspector) = time_info(dump, options);
  check_time(dump, options, inspector);
  if (etrecord != nullptr) {
    GLASSBOX_RETURN_IF_ERROR(check_same_program(dump, *etrecord, options, inspector));
  }
  check_counters(dump, inspector);

  std::uint32_t executions = 0;
  for (const etdump::RunData& run : dump.runs) executions += run.name == kExecuteBlock;
  if (options.skip_first_runs > 0 && options.skip_first_runs >= executions) {
    return Status(Error::kInvalidArgument,
                  "cannot skip the first " + std::to_string(options.skip_first_runs) +
                      " runs: the ETDump has " + std::to_string(executions) +
                      " executions (\"Execute\" runs)");
  }
  if (executions == 0) {
    add_diagnostic(inspector, Severity::kWarning,
                   "the ETDump has no \"Execute\" run: nothing was executed while tracing");
  }

  const DelegateTimeConverter* converter = nullptr;
  if (options.delegate_time_scale_converter) {
    if (options.time_unit == TimeUnit::kTicks) {
      add_diagnostic(inspector, Severity::kInfo,
                     "raw ticks asked for: the delegate time scale converter is not applied");
    } else {
      converter = &options.delegate_time_scale_converter;
      InspectorBuilder::time(inspector).delegate_converter = true;
      add_diagnostic(inspector, Severity::kInfo,
                     "delegate events converted by the delegate time scale converter (an option)");
    }
  }
  InspectorBuilder::group(dump, events, options.skip_first_runs, converter,
                          options.keep_occurrences, inspector);
  // Time scales are per dump (each dump says what its delegates count in),
  // so they are applied here, before dumps are merged; they need each
  // delegate event's backend, which only the ETRecord knows.
  // Indexing the ETRecord per dump is only worth it when a scale exists:
  // most dumps have none, and build() resolves every group once anyway.
  const bool scaled = !dump.delegate_time_scales.empty() || !options.delegate_time_scales.empty();
  if (etrecord != nullptr) {
    InspectorBuilder::set_has_etrecord(inspector, true);
    if (scaled) InspectorBuilder::assign_backends(*etrecord, inspector);
  }
  InspectorBuilder::scale_delegate_times(dump, options, inspector);
  return InspectorBuilder::prepared(std::move(inspector));
}

}  // namespace

StatusOr<PreparedDump> InspectorAggregator::prepare(const etdump::ETDumpFile& dump,
                                                    const etrecord::ETRecord* etrecord,
                                                    const InspectorOptions& options) {
  return prepare_dump(dump, ProfileEventSource::of(dump), etrecord, options);
}

StatusOr<PreparedDump> InspectorAggregator::prepare(const etdump::ETDumpBuffer& dump,
                                                    const etrecord::ETRecord* etrecord,
                                                    const InspectorOptions& options) {
  return prepare_dump(dump.skeleton(), ProfileEventSource::of(dump), etrecord, options);
}

std::span<const OccurrenceCounter> Inspector::occurrence_counters(std::size_t i) const {
  const auto it =
      std::lower_bound(occurrence_counter_ranges_.begin(), occurrence_counter_ranges_.end(), i,
                       [](const CounterRange& range, std::size_t occurrence) {
                         return range.occurrence < occurrence;
                       });
  if (it == occurrence_counter_ranges_.end() || it->occurrence != i) return {};
  return std::span<const OccurrenceCounter>(occurrence_counter_values_)
      .subspan(it->begin, it->end - it->begin);
}

StatusOr<Inspector> Inspector::create(const etdump::ETDumpFile& dump,
                                      const etrecord::ETRecord* etrecord,
                                      std::span<const std::uint8_t> debug_data,
                                      const InspectorOptions& options) {
  InspectorAggregator aggregator(etrecord, options);
  GLASSBOX_RETURN_IF_ERROR(aggregator.add(dump));
  return std::move(aggregator).build(debug_data);
}

StatusOr<Inspector> Inspector::create(const etdump::ETDumpBuffer& dump,
                                      const etrecord::ETRecord* etrecord,
                                      std::span<const std::uint8_t> debug_data,
                                      const InspectorOptions& options) {
  InspectorAggregator aggregator(etrecord, options);
  GLASSBOX_ASSIGN_OR_RETURN(PreparedDump prepared,
                            InspectorAggregator::prepare(dump, etrecord, options));
  aggregator.merge(std::move(prepared));
  return std::move(aggregator).build(debug_data);
}

void InspectorBuilder::finish(Inspector& inspector) {
  for (EventGroup& group : inspector.groups_) group.stats = PerfStats::of(group.samples);
}

}  // namespace glassbox::inspector

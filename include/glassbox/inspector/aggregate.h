#pragma once
/// @file
/// Many ETDumps of one program, aggregated into one Inspector: the same
/// views and statistics as for one file, with samples pooled across dumps
/// (every dump's "Execute" runs are runs of the result, `skip_first_runs`
/// applies to each dump). Inspector::create is the one-dump case of this.
///
///   InspectorAggregator aggregator(&record, options);
///   for (const std::string& path : sorted_paths) {   // any thread:
///     StatusOr<PreparedDump> prepared =
///         InspectorAggregator::prepare(dump, &record, options);
///     ...                                          // in path order:
///     aggregator.merge(std::move(*prepared));
///   }
///   GLASSBOX_ASSIGN_OR_RETURN(Inspector insp, std::move(aggregator).build());
///
/// Memory. `prepare` groups one dump on its own (the expensive part: decode
/// and grouping can run on many threads); `merge` folds it into the
/// aggregation state, after which the dump and the prepared dump can be
/// dropped. The state is the groups' sample vectors (exact percentiles need
/// every sample), one RunInfo per run and, only when the options'
/// `keep_occurrences`, every event occurrence (for timelines; it grows with
/// the input).
///
/// Determinism. Groups appear in the order they were first seen over the
/// merges, runs in merge order: merging the same dumps in the same order
/// gives the same Inspector whichever threads prepared them.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// One dump grouped on its own, not yet resolved against the ETRecord.
class PreparedDump {
 public:
  /// Profile events the dump held (for progress and throughput).
  std::uint64_t events() const {
    std::uint64_t n = 0;
    for (const EventGroup& group : grouped_.groups()) n += group.occurrences;
    return n;
  }

 private:
  friend class InspectorAggregator;
  friend class InspectorBuilder;
  explicit PreparedDump(Inspector grouped) : grouped_(std::move(grouped)) {}
  Inspector grouped_;
};

class InspectorAggregator {
 public:
  /// `etrecord` (may be null) must outlive the aggregator. Occurrences are
  /// kept when `options.keep_occurrences`.
  InspectorAggregator(const etrecord::ETRecord* etrecord, InspectorOptions options);

  /// Groups `dump` and checks it against `etrecord` (time unit, fingerprint,
  /// counters). Thread-safe: reads only its arguments.
  ///
  /// Errors: as Inspector::create (kMismatch for a dump of another program
  /// unless allowed, kInvalidArgument when skip_first_runs leaves nothing).
  static StatusOr<PreparedDump> prepare(const etdump::ETDumpFile& dump,
                                        const etrecord::ETRecord* etrecord,
                                        const InspectorOptions& options);
  /// The same for a dump kept as bytes: its profile events are grouped
  /// where they lie, never decoded into an ETDumpFile (a fraction of the
  /// memory on large dumps).
  static StatusOr<PreparedDump> prepare(const etdump::ETDumpBuffer& dump,
                                        const etrecord::ETRecord* etrecord,
                                        const InspectorOptions& options);

  /// Folds a dump prepared with this aggregator's ETRecord and options into
  /// the result. Call in a deterministic order (e.g. by path).
  void merge(PreparedDump prepared);

  /// prepare + merge.
  Status add(const etdump::ETDumpFile& dump);

  /// Dumps merged so far.
  std::size_t dumps() const { return dumps_; }

  /// Resolves the groups through the ETRecord and computes the statistics.
  /// `debug_data` is kept for value inspection (one-dump use).
  Inspector build(std::span<const std::uint8_t> debug_data = {}) &&;

 private:
  const etrecord::ETRecord* etrecord_;
  InspectorOptions options_;
  bool keep_occurrences_;
  Inspector result_;
  std::size_t dumps_ = 0;
  /// Group key (see group_key in aggregate.cc) -> index into the groups.
  std::unordered_map<std::string, std::uint32_t> group_index_;
  std::unordered_set<std::string> diagnostic_messages_;
  std::uint64_t diagnostics_dropped_ = 0;
};

}  // namespace glassbox::inspector

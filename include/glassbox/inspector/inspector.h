#pragma once
/// @file
/// The Inspector: joins an ETDump (what happened at run time) with an
/// optional ETRecord (what the program was made from) into event groups with
/// timing statistics, each resolved to the source operators it came from.
///
///   ETDumpFile --.                          .-> events view  (views.h)
///                +--> Inspector::create --> +-> ops / modules / reconcile
///   ETRecord ----'      (group, resolve,    '-> formats (formats.h):
///                        check)                 table csv tsv json chrome
///
///   GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump,
///                             etdump::load_etdump_file("run.etdp"));
///   GLASSBOX_ASSIGN_OR_RETURN(etrecord::ETRecord record,
///                             etrecord::ETRecord::load("m.etrecord"));
///   GLASSBOX_ASSIGN_OR_RETURN(inspector::Inspector insp,
///                             inspector::Inspector::create(dump, &record));
///   for (const inspector::OpRow& row : inspector::ops_view(insp)) ...
///
/// Grouping. Events are grouped by (event block name, instruction id,
/// delegate debug identifier (int or string, never converted into each
/// other), event name) across runs. A run is one `RunData`; runs named
/// "Execute" are the executions, and `skip_first_runs` drops the first N of
/// them (warm-up). Other blocks ("Default": Method::init, load_method) are
/// kept as they are.
///
/// Repeated events. When one group occurs several times in one run (a loop,
/// or several worker threads logging the same identifier), the run's sample
/// is the SUM of those durations (work time, which for concurrent threads
/// can exceed wall time), and `occurrences` counts every event. Nothing is
/// collapsed to the last occurrence as ExecuTorch does.
///
/// Resolution. Delegate events resolve through the ETRecord's delegate map:
/// instruction id -> delegate entry, identifier -> debug handles by EXACT key
/// (int to int, string to string; ExecuTorch's substring fallback is not
/// reproduced). Other events with an instruction id resolve through the
/// debug handle map. Handles then name edge-graph nodes.
///
/// Time. Durations are nanoseconds, converted with the dump's tick ratio.
/// Files written by ExecuTorch carry none: nanoseconds are assumed and a
/// diagnostic says so. `InspectorOptions::time_unit` overrides either.
///
/// Delegate time. A delegate that counts its own ticks (cycles) declares a
/// per-backend scale at init, which the dump records
/// (`ETDumpFile::delegate_time_scales`); its delegate-internal events then
/// convert with that scale, not the tick ratio. The backend of an event is
/// the ETRecord's (its delegate map names the backend of each delegate
/// call), so scales apply only with an ETRecord. For dumps without them
/// (ExecuTorch's), `InspectorOptions::delegate_time_scales` gives a ratio
/// per backend and `delegate_time_scale_converter` a function, as
/// ExecuTorch's Inspector takes it. Each group says which applied
/// (`EventGroup::time_scale`). A delegate's counter has its own origin:
/// when the delegate declared its clock's offset from the host clock
/// (`DelegateTimeScale::host_offset_ns`) its events are placed on the host
/// timeline at ticks * ns_per_tick + offset; otherwise, in timelines, its
/// events are shifted to start with their DELEGATE_CALL.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etrecord/etrecord.h"

namespace glassbox::inspector {

/// What the raw timestamps of a dump are, when the caller says so.
enum class TimeUnit : std::uint8_t {
  kNanoseconds,
  kMicroseconds,
  kMilliseconds,
  /// Raw ticks, not converted: every "_ns" value is then a tick count and
  /// `TimeInfo::unit` says "ticks".
  kTicks,
};

/// "ns", "us", "ms" or "ticks".
std::string_view to_string(TimeUnit unit);
/// The inverse of to_string; kInvalidArgument for anything else.
StatusOr<TimeUnit> parse_time_unit(std::string_view text);

struct InspectorOptions {
  /// Overrides the dump's tick ratio (or the nanoseconds assumed for files
  /// without one).
  std::optional<TimeUnit> time_unit;
  /// Executions ("Execute" runs) to ignore at the start: warm-up.
  std::uint32_t skip_first_runs = 0;
  /// Downgrades a fingerprint mismatch between ETDump and ETRecord from an
  /// error (create() fails) to an error-severity diagnostic.
  bool allow_fingerprint_mismatch = false;
  /// Nanoseconds per delegate tick for the delegate-internal events of a
  /// backend (named as in the ETRecord's delegate map, e.g. "DemoBackend"):
  /// for dumps that record no scale (ExecuTorch's), or to replace the
  /// dump's. Needs an ETRecord to find the events' backend.
  std::map<std::string, TickRatio, std::less<>> delegate_time_scales;
  /// ExecuTorch's `delegate_time_scale_converter`: called with each
  /// delegate-internal event's name (its identifier's text, as ExecuTorch
  /// names it) and its raw start, then end time; returns that time in
  /// nanoseconds (the display unit). When set it applies to every
  /// delegate-internal event, with or without an ETRecord, and wins over
  /// every ratio. Not applied when `time_unit` is kTicks (raw ticks asked
  /// for), like the ratios.
  std::function<double(std::string_view event_name, double raw_time)> delegate_time_scale_converter;
  /// False: Inspector::occurrences() stays empty. The views and their
  /// statistics need only each group's samples; a timeline (the chrome
  /// format, the report's timeline, export's event rows) needs every
  /// occurrence, 32 bytes an event.
  bool keep_occurrences = true;
};

/// Parses "BACKEND=NUM/DEN" (`--delegate-time-scale`): nanoseconds per
/// delegate tick, both positive integers. kInvalidArgument, saying the
/// expected form, for anything else.
StatusOr<std::pair<std::string, TickRatio>> parse_delegate_time_scale(std::string_view text);

enum class Severity : std::uint8_t { kInfo, kWarning, kError };
/// "info", "warning" or "error".
std::string_view to_string(Severity severity);

/// One check's result, in plain words.
struct Diagnostic {
  Severity severity = Severity::kInfo;
  std::string message;
  friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

/// Where the time unit came from.
enum class TimeUnitSource : std::uint8_t {
  kDump,                ///< The dump's tick ratio (Glassbox-written files).
  kAssumedNanoseconds,  ///< No ratio in the file (ExecuTorch): ns assumed.
  kOverride,            ///< InspectorOptions::time_unit.
};
/// "dump", "assumed" or "override".
std::string_view to_string(TimeUnitSource source);

/// What converted a group's raw times.
enum class TimeScaleSource : std::uint8_t {
  kClock,      ///< The tracer's clock: TimeInfo (every non-delegate event).
  kDump,       ///< The delegate's own scale, recorded in the dump.
  kOption,     ///< InspectorOptions::delegate_time_scales.
  kConverter,  ///< InspectorOptions::delegate_time_scale_converter.
};
/// "clock", "delegate scale from dump", "option" or "converter".
std::string_view to_string(TimeScaleSource source);

struct TimeInfo {
  TimeUnitSource source = TimeUnitSource::kDump;
  /// Nanoseconds per raw tick as applied (1 for kTicks).
  double ns_per_tick = 1.0;
  /// "ns", or "ticks" when TimeUnit::kTicks was asked for.
  std::string unit = "ns";
  /// The delegate time scales applied (kDump or kOption), by backend.
  struct DelegateScale {
    std::string backend;
    TickRatio ns_per_tick;
    TimeScaleSource source = TimeScaleSource::kDump;
    /// The delegate's declared host clock offset (from the dump), which
    /// placed its events on the host timeline; absent when none was.
    std::optional<std::int64_t> host_offset_ns;
  };
  std::vector<DelegateScale> delegate_scales;
  /// True when a delegate_time_scale_converter converted delegate events.
  bool delegate_converter = false;
};

/// Timing statistics over samples (one sample per run). Empty samples give
/// all zeros. Percentiles interpolate linearly between the two nearest
/// ranks; stddev is the population standard deviation.
struct PerfStats {
  std::uint64_t count = 0;  ///< Samples (runs in which the group occurred).
  double total = 0;         ///< Sum of the samples.
  double min = 0;
  double max = 0;
  double mean = 0;
  double p10 = 0;
  double p50 = 0;
  double p90 = 0;
  double stddev = 0;

  /// The statistics of `samples` (copied and sorted inside).
  static PerfStats of(std::span<const double> samples);
};

/// One source operator (edge-graph node) an event resolved to.
struct SourceOp {
  DebugHandle handle;
  std::string name;                                ///< Node name, e.g. "conv2d_1".
  std::string type;                                ///< Op type, e.g. "conv2d".
  std::vector<aot::ModuleFrame> module_hierarchy;  ///< Root first.
  aot::SourceLocation source_location;

  /// The innermost module's dotted path, "" when the op has no module.
  std::string module_path() const {
    return module_hierarchy.empty() ? std::string() : module_hierarchy.back().path;
  }
};

/// What kind of event a group holds.
enum class EventRole : std::uint8_t {
  kFramework,         ///< Method::execute, Method::init, ... (no instruction)
  kOperator,          ///< OPERATOR_CALL or a kernel's own event
  kDelegateCall,      ///< DELEGATE_CALL: the whole delegate, seen from outside
  kDelegateInternal,  ///< logged by a delegate with its debug identifier
};
/// "framework", "operator", "delegate_call" or "delegate".
std::string_view to_string(EventRole role);

/// Identifier an event carried: absent, int, or string.
using Identifier = std::optional<aot::DelegateDebugIdentifier>;

/// "" when absent, "7" for an int, "tan.sin" for a string (unquoted).
std::string identifier_text(const Identifier& id);

/// All occurrences of one (block, instruction, identifier, name) across the
/// runs used, with their statistics and what they resolved to.
/// Glassbox: a named delegate counter (cycles, MACs, DMA bytes) summed over
/// the events of a group or an ops row.
struct CounterTotal {
  std::string name;
  std::int64_t sum = 0;
  friend bool operator==(const CounterTotal&, const CounterTotal&) = default;
};

/// One counter of one occurrence: `name` indexes Inspector::counter_names().
struct OccurrenceCounter {
  std::uint32_t name = 0;
  std::int64_t value = 0;
};

struct EventGroup {
  std::string block;  ///< The run name, e.g. "Execute".
  /// The event's name, or the identifier's text for delegate events without
  /// a name (as ExecuTorch displays them).
  std::string name;
  InstructionId instruction;
  Identifier identifier;
  EventRole role = EventRole::kFramework;

  /// Resolution (empty without an ETRecord).
  bool delegated = false;                  ///< A delegate's internal event.
  std::string backend;                     ///< For delegate events and DELEGATE_CALL.
  std::vector<DebugHandle> debug_handles;  ///< Sorted, unique.
  std::vector<SourceOp> source_ops;        ///< In handle order.
  /// False for a delegate event whose identifier is not in its map.
  bool resolved = true;
  /// The delegate debug metadata the group's first event carried (what a
  /// delegate says about the op, e.g. "conv+relu, fused" or XNNPACK's
  /// operator type); empty when none.
  std::vector<std::uint8_t> delegate_debug_metadata;

  /// What converted the group's raw times (delegate events of a backend
  /// with a time scale, or any with a converter; else the clock).
  TimeScaleSource time_scale = TimeScaleSource::kClock;
  /// One sample per run in which the group occurred: the sum of its
  /// durations in that run (ns unless TimeInfo says ticks).
  std::vector<double> samples;
  /// The runs (indices into Inspector::runs()) the samples belong to.
  std::vector<std::uint32_t> sample_runs;
  std::uint64_t occurrences = 0;  ///< Events over all runs used.
  PerfStats stats;
  /// The counters its events carried, summed over the runs used, by name
  /// in the order first seen; empty when none did.
  std::vector<CounterTotal> counters;
};

/// What the tracer counted but could not record, over the whole dump.
struct TracerCounters {
  std::uint64_t dropped_events = 0;       ///< Buffer full.
  std::uint64_t rejected_events = 0;      ///< Invalid calls.
  std::uint64_t tensor_data_dropped = 0;  ///< Logged tensors without data.
};

/// What the ETDump-vs-ETRecord fingerprint check found.
enum class FingerprintCheck : std::uint8_t {
  kNoETRecord,       ///< Nothing to check against.
  kNotInDump,        ///< The dump records none (written by ExecuTorch?).
  kMatch,            ///< Same program.
  kMismatchAllowed,  ///< Different programs, joined anyway.
};
/// "no_etrecord", "not_in_dump", "match" or "mismatch_allowed".
std::string_view to_string(FingerprintCheck check);

/// One run of the dump.
struct RunInfo {
  std::string name;
  bool used = true;  ///< False for skipped warm-up runs.
};

/// One event occurrence, for timelines (chrome) and nesting. Its logging
/// thread is Inspector::occurrence_thread(i): kept apart, so that the 24
/// bytes of a million occurrences of one thread carry no thread at all.
struct Occurrence {
  std::uint32_t group = 0;  ///< Index into Inspector::groups().
  std::uint32_t run = 0;    ///< Index into Inspector::runs().
  double start = 0;         ///< ns (or ticks), as in the dump's clock.
  double end = 0;
};

class Inspector {
 public:
  /// Groups, resolves and checks. `etrecord` may be null (names then come
  /// from the events alone); it is copied from as needed and need not
  /// outlive the call. `debug_data` (the debug-data file's bytes) is kept
  /// for value inspection; it may be empty.
  ///
  /// Errors: kMismatch when the ETDump and ETRecord fingerprints differ and
  /// `allow_fingerprint_mismatch` is off; kInvalidArgument when
  /// skip_first_runs leaves no execution to analyse.
  static StatusOr<Inspector> create(const etdump::ETDumpFile& dump,
                                    const etrecord::ETRecord* etrecord = nullptr,
                                    std::span<const std::uint8_t> debug_data = {},
                                    const InspectorOptions& options = {});
  /// The same for a dump kept as bytes (etdump::ETDumpBuffer): its profile
  /// events are grouped where they lie, so a large dump costs little more
  /// than its own size.
  static StatusOr<Inspector> create(const etdump::ETDumpBuffer& dump,
                                    const etrecord::ETRecord* etrecord = nullptr,
                                    std::span<const std::uint8_t> debug_data = {},
                                    const InspectorOptions& options = {});

  const std::vector<EventGroup>& groups() const { return groups_; }
  const std::vector<RunInfo>& runs() const { return runs_; }
  /// Every profile event of the runs used, in file order.
  const std::vector<Occurrence>& occurrences() const { return occurrences_; }
  /// The logging thread's index of occurrences()[i], 0 when unknown.
  std::int32_t occurrence_thread(std::size_t i) const {
    return occurrence_threads_.empty() ? 0 : occurrence_threads_[i];
  }
  /// The names of the delegate counters the events of the runs used carry,
  /// in the order first seen (the ops view's counter columns); empty when
  /// none do.
  const std::vector<std::string>& counter_names() const { return counter_names_; }
  /// The counters of occurrences()[i]; empty for an occurrence without.
  std::span<const OccurrenceCounter> occurrence_counters(std::size_t i) const;
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const TimeInfo& time() const { return time_; }
  bool has_etrecord() const { return has_etrecord_; }
  const std::vector<std::uint8_t>& debug_data() const { return debug_data_; }

  /// The delegate map's coverage: identifiers in the ETRecord's maps, and
  /// how many of them were logged (both 0 without an ETRecord).
  std::size_t mapped_identifiers() const { return mapped_identifiers_; }
  std::size_t logged_identifiers() const { return logged_identifiers_; }

  /// The dump's counters (also reported as diagnostics).
  const TracerCounters& counters() const { return counters_; }
  FingerprintCheck fingerprint_check() const { return fingerprint_check_; }

 private:
  friend class InspectorBuilder;
  friend class InspectorAggregator;
  Inspector() = default;

  std::vector<EventGroup> groups_;
  std::vector<RunInfo> runs_;
  std::vector<Occurrence> occurrences_;
  // Per occurrence; empty while every one so far was thread 0.
  std::vector<std::int32_t> occurrence_threads_;
  std::vector<std::string> counter_names_;
  // The counters of the few occurrences that carry any, by occurrence
  // (ascending): [begin, end) of occurrence_counter_values_.
  struct CounterRange {
    std::uint32_t occurrence = 0;
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
  };
  std::vector<CounterRange> occurrence_counter_ranges_;
  std::vector<OccurrenceCounter> occurrence_counter_values_;
  std::vector<Diagnostic> diagnostics_;
  TimeInfo time_;
  bool has_etrecord_ = false;
  std::vector<std::uint8_t> debug_data_;
  std::size_t mapped_identifiers_ = 0;
  std::size_t logged_identifiers_ = 0;
  TracerCounters counters_;
  FingerprintCheck fingerprint_check_ = FingerprintCheck::kNoETRecord;
};

}  // namespace glassbox::inspector

#pragma once
// Private: the steps of Inspector::create, one file each (inspector.cc
// orchestrates and checks; group.cc groups; resolve.cc joins the ETRecord
// through record_index.h, as numeric.cc does).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/inspector/aggregate.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {

/// The block whose runs are executions (skip_first_runs, ops, reconcile,
/// numeric).
inline constexpr std::string_view kExecuteBlock = "Execute";
/// Framework events ExecuTorch logs at instruction 0; never resolved.
inline constexpr std::string_view kMethodExecute = "Method::execute";

using DelegateTimeConverter = std::function<double(std::string_view, double)>;

/// A dump's profile events in file order, wherever they live: an
/// ETDumpFile's runs, or an ETDumpBuffer's bytes (not materialised).
struct ProfileEventSource {
  std::function<void(const etdump::ProfileEventVisitor&)> visit;
  std::size_t count = 0;  ///< How many visit yields (to reserve for).

  static ProfileEventSource of(const etdump::ETDumpFile& dump);
  static ProfileEventSource of(const etdump::ETDumpBuffer& dump);
};

class InspectorBuilder {
 public:
  /// Fills runs_ from `dump`'s runs, and groups_ (unresolved) and
  /// occurrences_ from `events` (its profile events), using inspector.time_
  /// to convert, and `converter` (may be null) for delegate-internal
  /// events; occurrences_ only when `keep_occurrences`. Adds diagnostics
  /// for bad durations.
  static void group(const etdump::ETDumpFile& dump, const ProfileEventSource& events,
                    std::uint32_t skip_first_runs, const DelegateTimeConverter* converter,
                    bool keep_occurrences, Inspector& inspector);
  /// Applies the delegate time scales of the dump and the options to the
  /// resolved delegate-internal groups (delegate_time.cc), and places
  /// events on a delegate's own clock in the timeline.
  static void scale_delegate_times(const etdump::ETDumpFile& dump, const InspectorOptions& options,
                                   Inspector& inspector);
  /// Sets the backend of every delegate-internal group from `record`'s
  /// delegate map (what scale_delegate_times needs before resolve runs).
  static void assign_backends(const etrecord::ETRecord& record, Inspector& inspector);
  /// Resolves groups_ through `record` and adds the coverage diagnostics.
  static void resolve(const etrecord::ETRecord& record, Inspector& inspector);
  /// Computes each group's stats from its samples.
  static void finish(Inspector& inspector);

  static Inspector make() { return Inspector(); }
  static PreparedDump prepared(Inspector grouped) { return PreparedDump(std::move(grouped)); }
  static std::vector<EventGroup>& groups(Inspector& i) { return i.groups_; }
  static std::vector<RunInfo>& runs(Inspector& i) { return i.runs_; }
  static std::vector<Occurrence>& occurrences(Inspector& i) { return i.occurrences_; }
  static std::vector<Diagnostic>& diagnostics(Inspector& i) { return i.diagnostics_; }
  static TimeInfo& time(Inspector& i) { return i.time_; }
  static void set_has_etrecord(Inspector& i, bool v) { i.has_etrecord_ = v; }
  static void set_debug_data(Inspector& i, std::vector<std::uint8_t> d) {
    i.debug_data_ = std::move(d);
  }
  static TracerCounters& counters(Inspector& i) { return i.counters_; }
  static void set_fingerprint_check(Inspector& i, FingerprintCheck check) {
    i.fingerprint_check_ = check;
  }
  static void set_coverage(Inspector& i, std::size_t mapped, std::size_t logged) {
    i.mapped_identifiers_ = mapped;
    i.logged_identifiers_ = logged;
  }
};

// Adds `value` to the total named `name`, appending it when new. Sums
// wrap (two's complement) rather than trap on a counter past 63 bits.
inline void add_counter(std::vector<CounterTotal>& totals, std::string_view name,
                        std::int64_t value) {
  auto it = std::find_if(totals.begin(), totals.end(),
                         [&](const CounterTotal& t) { return t.name == name; });
  if (it == totals.end()) it = totals.insert(it, CounterTotal{std::string(name), 0});
  it->sum = static_cast<std::int64_t>(static_cast<std::uint64_t>(it->sum) +
                                      static_cast<std::uint64_t>(value));
}

}  // namespace glassbox::inspector

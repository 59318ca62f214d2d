// Merging prepared dumps: runs appended, groups matched by their key,
// samples pooled; then one join with the ETRecord for all of them.

#include "glassbox/inspector/aggregate.h"

#include <algorithm>
#include <string>
#include <utility>

#include "src/inspector/builder.h"

namespace glassbox::inspector {
namespace {

// Beyond this many distinct diagnostics (each dump can add its own counts),
// the rest are counted, not kept: the state must not grow with the input.
constexpr std::size_t kMaxDiagnostics = 200;

// What makes two groups of different dumps the same group (inspector.h,
// "Grouping"): block, instruction, identifier with its kind, name.
std::string group_key(const EventGroup& group) {
  std::string key = group.block;
  key += '\0';
  key += std::to_string(group.instruction.value);
  if (group.identifier.has_value()) {
    key += std::holds_alternative<std::string>(*group.identifier) ? "\0s" : "\0i";
    key += identifier_text(group.identifier);
  }
  key += '\0';
  key += group.name;
  return key;
}

}  // namespace

InspectorAggregator::InspectorAggregator(const etrecord::ETRecord* etrecord,
                                         InspectorOptions options)
    : etrecord_(etrecord),
      options_(options),
      keep_occurrences_(options.keep_occurrences),
      result_(InspectorBuilder::make()) {}

Status InspectorAggregator::add(const etdump::ETDumpFile& dump) {
  GLASSBOX_ASSIGN_OR_RETURN(PreparedDump prepared, prepare(dump, etrecord_, options_));
  merge(std::move(prepared));
  return Status();
}

void InspectorAggregator::merge(PreparedDump prepared) {
  Inspector& part = prepared.grouped_;
  if (!keep_occurrences_) {
    part.occurrences_ = {};
    part.occurrence_threads_ = {};
    part.occurrence_counter_ranges_ = {};
    part.occurrence_counter_values_ = {};
  }
  if (dumps_++ == 0) {
    // The first dump is the result as it stands: one-dump inspection is
    // exactly the grouping of that dump.
    result_ = std::move(part);
    for (std::uint32_t g = 0; g < result_.groups_.size(); ++g) {
      group_index_.emplace(group_key(result_.groups_[g]), g);
    }
    for (const Diagnostic& d : result_.diagnostics_) diagnostic_messages_.insert(d.message);
    return;
  }

  const auto run_offset = static_cast<std::uint32_t>(result_.runs_.size());
  for (RunInfo& run : part.runs_) result_.runs_.push_back(std::move(run));

  // Counter names: the part's as the result's.
  std::vector<std::uint32_t> counter_remap(part.counter_names_.size());
  for (std::size_t n = 0; n < part.counter_names_.size(); ++n) {
    auto& names = result_.counter_names_;
    const auto it = std::find(names.begin(), names.end(), part.counter_names_[n]);
    counter_remap[n] = static_cast<std::uint32_t>(it - names.begin());
    if (it == names.end()) names.push_back(part.counter_names_[n]);
  }

  std::vector<std::uint32_t> remap(part.groups_.size());
  for (std::uint32_t g = 0; g < part.groups_.size(); ++g) {
    EventGroup& group = part.groups_[g];
    auto [it, inserted] = group_index_.try_emplace(
        group_key(group), static_cast<std::uint32_t>(result_.groups_.size()));
    remap[g] = it->second;
    for (std::uint32_t& run : group.sample_runs) run += run_offset;
    if (inserted) {
      result_.groups_.push_back(std::move(group));
      continue;
    }
    EventGroup& into = result_.groups_[it->second];
    into.samples.insert(into.samples.end(), group.samples.begin(), group.samples.end());
    into.sample_runs.insert(into.sample_runs.end(), group.sample_runs.begin(),
                            group.sample_runs.end());
    into.occurrences += group.occurrences;
    for (const CounterTotal& c : group.counters) add_counter(into.counters, c.name, c.sum);
    if (into.delegate_debug_metadata.empty()) {
      into.delegate_debug_metadata = std::move(group.delegate_debug_metadata);
    }
  }

  if (keep_occurrences_) {
    // Threads: kept once either side has a thread other than 0.
    std::vector<std::int32_t>& threads = result_.occurrence_threads_;
    if (!threads.empty() || !part.occurrence_threads_.empty()) {
      threads.resize(result_.occurrences_.size(), 0);  // the 0s of a side that had none
      if (part.occurrence_threads_.empty()) {
        threads.resize(threads.size() + part.occurrences_.size(), 0);
      } else {
        threads.insert(threads.end(), part.occurrence_threads_.begin(),
                       part.occurrence_threads_.end());
      }
    }
    const auto occurrence_offset = static_cast<std::uint32_t>(result_.occurrences_.size());
    const auto value_offset = static_cast<std::uint32_t>(result_.occurrence_counter_values_.size());
    for (Inspector::CounterRange range : part.occurrence_counter_ranges_) {
      range.occurrence += occurrence_offset;
      range.begin += value_offset;
      range.end += value_offset;
      result_.occurrence_counter_ranges_.push_back(range);
    }
    for (OccurrenceCounter c : part.occurrence_counter_values_) {
      c.name = counter_remap[c.name];
      result_.occurrence_counter_values_.push_back(c);
    }
    for (Occurrence o : part.occurrences_) {
      o.group = remap[o.group];
      o.run += run_offset;
      result_.occurrences_.push_back(o);
    }
  }

  for (Diagnostic& d : part.diagnostics_) {
    if (diagnostic_messages_.contains(d.message)) continue;
    if (diagnostic_messages_.size() >= kMaxDiagnostics) {
      ++diagnostics_dropped_;
      continue;
    }
    diagnostic_messages_.insert(d.message);
    result_.diagnostics_.push_back(std::move(d));
  }

  TracerCounters& counters = result_.counters_;
  counters.dropped_events += part.counters_.dropped_events;
  counters.rejected_events += part.counters_.rejected_events;
  counters.tensor_data_dropped += part.counters_.tensor_data_dropped;
  // One dump without a fingerprint makes the whole check "not in dump".
  if (part.fingerprint_check_ != result_.fingerprint_check_ &&
      part.fingerprint_check_ != FingerprintCheck::kMatch) {
    result_.fingerprint_check_ = part.fingerprint_check_;
  }
  // Each dump's delegate time scales, listed once.
  for (TimeInfo::DelegateScale& scale : part.time_.delegate_scales) {
    bool known = false;
    for (const TimeInfo::DelegateScale& have : result_.time_.delegate_scales) {
      known |= have.backend == scale.backend && have.ns_per_tick == scale.ns_per_tick &&
               have.source == scale.source;
    }
    if (!known) result_.time_.delegate_scales.push_back(std::move(scale));
  }
  // One dump whose unit was assumed makes the result's unit assumed.
  if (part.time_.source == TimeUnitSource::kAssumedNanoseconds) {
    result_.time_.source = TimeUnitSource::kAssumedNanoseconds;
  }
}

Inspector InspectorAggregator::build(std::span<const std::uint8_t> debug_data) && {
  Inspector inspector = std::move(result_);
  std::vector<Diagnostic>& diagnostics = inspector.diagnostics_;
  if (diagnostics_dropped_ > 0) {
    diagnostics.push_back({Severity::kInfo, std::to_string(diagnostics_dropped_) +
                                                " more per-dump diagnostics not shown"});
  }
  if (dumps_ > 1) {
    diagnostics.push_back(
        {Severity::kInfo, std::to_string(dumps_) + " ETDumps aggregated: samples pooled"});
  }
  if (etrecord_ != nullptr) {
    inspector.has_etrecord_ = true;
    InspectorBuilder::resolve(*etrecord_, inspector);
  } else {
    diagnostics.push_back(
        {Severity::kInfo,
         "no ETRecord: events are named from the ETDump alone, without source operators"});
  }
  InspectorBuilder::finish(inspector);
  inspector.debug_data_.assign(debug_data.begin(), debug_data.end());
  return inspector;
}

}  // namespace glassbox::inspector

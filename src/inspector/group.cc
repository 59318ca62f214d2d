// Grouping: every profile event of the runs used goes to the group of its
// (block, instruction, identifier, name), and each run contributes one
// sample per group, the sum of that group's durations in the run (see
// inspector.h, "Repeated events").

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/inspector/builder.h"

namespace glassbox::inspector {
namespace {

// Framework events: ExecuTorch logs them at instruction 0, so the name, not
// the instruction id, tells them apart there.
constexpr std::array<std::string_view, 3> kFrameworkNames = {"Method::init", "Program::load_method",
                                                             "Method::execute"};

enum class IdKind : std::uint8_t { kNone, kInt, kString };

// Views into the dump's strings, which outlive the grouping: no string is
// copied per event, only once per new group.
struct Key {
  std::string_view block;
  std::int32_t instruction = -1;
  IdKind id_kind = IdKind::kNone;
  std::int64_t id_int = 0;
  std::string_view id_str;
  std::string_view name;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    const std::hash<std::string_view> h;
    std::size_t seed = h(k.name);
    auto mix = [&seed](std::size_t v) {
      seed ^= v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    };
    mix(h(k.block));
    mix(std::hash<std::int64_t>()(k.instruction));
    mix(static_cast<std::size_t>(k.id_kind));
    mix(std::hash<std::int64_t>()(k.id_int));
    mix(h(k.id_str));
    return seed;
  }
};

Key key_of(std::string_view block, const etdump::ProfileEventRef& e) {
  Key key;
  key.block = block;
  key.instruction = e.instruction_id.value;
  // An int id wins when a (malformed) event carries both.
  if (e.delegate_debug_id_int.is_set()) {
    key.id_kind = IdKind::kInt;
    key.id_int = e.delegate_debug_id_int.value;
  } else if (e.delegate_debug_id_str.has_value() && !e.delegate_debug_id_str->empty()) {
    key.id_kind = IdKind::kString;
    key.id_str = *e.delegate_debug_id_str;
  }
  if (e.name.has_value()) key.name = *e.name;
  return key;
}

EventGroup make_group(const Key& key) {
  EventGroup group;
  group.block = std::string(key.block);
  group.instruction = InstructionId(key.instruction);
  if (key.id_kind == IdKind::kInt) group.identifier = aot::DelegateDebugIdentifier(key.id_int);
  if (key.id_kind == IdKind::kString) {
    group.identifier = aot::DelegateDebugIdentifier(std::string(key.id_str));
  }
  group.name = key.name.empty() ? identifier_text(group.identifier) : std::string(key.name);
  bool framework = false;
  for (std::string_view n : kFrameworkNames) framework |= key.name == n;
  if (group.identifier.has_value()) {
    group.role = EventRole::kDelegateInternal;
  } else if (key.name == "DELEGATE_CALL") {
    group.role = EventRole::kDelegateCall;
  } else if (framework || key.instruction < 0) {
    group.role = EventRole::kFramework;
  } else {
    group.role = EventRole::kOperator;
  }
  return group;
}

}  // namespace

ProfileEventSource ProfileEventSource::of(const etdump::ETDumpFile& dump) {
  ProfileEventSource source;
  for (const etdump::RunData& run : dump.runs) source.count += run.events.size();
  source.visit = [&dump](const etdump::ProfileEventVisitor& each) {
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
      for (const etdump::Event& event : dump.runs[r].events) {
        // Values and allocations carry no time.
        if (const etdump::ProfileEvent* e = event.profile()) {
          each(r, etdump::ProfileEventRef::of(*e));
        }
      }
    }
  };
  return source;
}

ProfileEventSource ProfileEventSource::of(const etdump::ETDumpBuffer& dump) {
  return {[&dump](const etdump::ProfileEventVisitor& each) { dump.for_each_profile_event(each); },
          dump.profile_events()};
}

void InspectorBuilder::group(const etdump::ETDumpFile& dump, const ProfileEventSource& events,
                             std::uint32_t skip_first_runs, const DelegateTimeConverter* converter,
                             bool keep_occurrences, Inspector& inspector) {
  const double ns_per_tick = inspector.time_.ns_per_tick;
  std::unordered_map<Key, std::uint32_t, KeyHash> index;
  std::uint64_t reversed = 0;
  std::uint32_t executions = 0;
  if (keep_occurrences) inspector.occurrences_.reserve(events.count);

  for (const etdump::RunData& run : dump.runs) {
    RunInfo info{run.name, true};
    if (run.name == kExecuteBlock) info.used = executions++ >= skip_first_runs;
    inspector.runs_.push_back(info);
  }
  // A group takes at most one sample per used run from the one it first
  // appears in on: reserving that up front spares a million-event dump the
  // copies and fresh pages of growing thousands of samples by doubling. The
  // reservations together stay within one sample per event.
  std::vector<std::uint32_t> used_runs_from(dump.runs.size() + 1, 0);
  for (std::size_t r = dump.runs.size(); r-- > 0;) {
    used_runs_from[r] = used_runs_from[r + 1] + (inspector.runs_[r].used ? 1 : 0);
  }
  std::uint64_t unreserved = events.count;
  // The dump's counter names as the inspector's (added when first used).
  std::vector<std::uint32_t> counter_names(dump.counter_names.size(), 0);
  std::vector<bool> counter_name_used(dump.counter_names.size(), false);
  events.visit([&](std::size_t r, const etdump::ProfileEventRef& e) {
    if (!inspector.runs_[r].used) return;
    const auto run_index = static_cast<std::uint32_t>(r);
    const Key key = key_of(dump.runs[r].name, e);
    auto [it, inserted] =
        index.try_emplace(key, static_cast<std::uint32_t>(inspector.groups_.size()));
    if (inserted) {
      inspector.groups_.push_back(make_group(key));
      const auto reserve = std::min<std::uint64_t>(used_runs_from[r], unreserved);
      unreserved -= reserve;
      inspector.groups_.back().samples.reserve(reserve);
      inspector.groups_.back().sample_runs.reserve(reserve);
      if (converter != nullptr && inspector.groups_.back().role == EventRole::kDelegateInternal) {
        inspector.groups_.back().time_scale = TimeScaleSource::kConverter;
      }
    }
    EventGroup& group = inspector.groups_[it->second];
    if (inserted && e.delegate_debug_metadata.has_value()) {
      group.delegate_debug_metadata.assign(e.delegate_debug_metadata->begin(),
                                           e.delegate_debug_metadata->end());
    }

    // A clock read out of order (or a bad post-time log) gives end <
    // start; count it as zero and say so rather than wrap around.
    double duration = 0;
    double start = static_cast<double>(e.start_time) * ns_per_tick;
    if (group.time_scale == TimeScaleSource::kConverter) {
      // ExecuTorch's contract: the event's name (its identifier's text)
      // and a raw time in, the time in the display unit out.
      const std::string identifier = identifier_text(group.identifier);
      start = (*converter)(identifier, static_cast<double>(e.start_time));
      const double end = (*converter)(identifier, static_cast<double>(e.end_time));
      if (end >= start) {
        duration = end - start;
      } else {
        ++reversed;
      }
    } else if (e.end_time >= e.start_time) {
      duration = static_cast<double>(e.end_time - e.start_time) * ns_per_tick;
    } else {
      ++reversed;
    }
    if (group.sample_runs.empty() || group.sample_runs.back() != run_index) {
      group.sample_runs.push_back(run_index);
      group.samples.push_back(duration);
    } else {
      group.samples.back() += duration;
    }
    ++group.occurrences;
    if (!e.counters.empty()) [[unlikely]] {
      const auto begin = static_cast<std::uint32_t>(inspector.occurrence_counter_values_.size());
      for (const etdump::Counter& c : e.counters) {
        // The reader checks the range; a dump built by hand may not.
        if (c.name >= counter_names.size()) continue;
        if (!counter_name_used[c.name]) {
          counter_name_used[c.name] = true;
          counter_names[c.name] = static_cast<std::uint32_t>(inspector.counter_names_.size());
          inspector.counter_names_.push_back(dump.counter_names[c.name]);
        }
        add_counter(group.counters, inspector.counter_names_[counter_names[c.name]], c.value);
        if (keep_occurrences) {
          inspector.occurrence_counter_values_.push_back({counter_names[c.name], c.value});
        }
      }
      const auto end = static_cast<std::uint32_t>(inspector.occurrence_counter_values_.size());
      if (end != begin) {
        inspector.occurrence_counter_ranges_.push_back(
            {static_cast<std::uint32_t>(inspector.occurrences_.size()), begin, end});
      }
    }
    if (keep_occurrences) {
      const std::int32_t thread = e.thread_index.value_or(0);
      std::vector<std::int32_t>& threads = inspector.occurrence_threads_;
      // The first thread other than 0 gives every earlier occurrence its 0.
      if (thread != 0 && threads.empty()) threads.resize(inspector.occurrences_.size(), 0);
      if (thread != 0 || !threads.empty()) threads.push_back(thread);
      inspector.occurrences_.push_back({it->second, run_index, start, start + duration});
    }
  });
  if (reversed > 0) {
    inspector.diagnostics_.push_back(
        {Severity::kWarning, std::to_string(reversed) +
                                 " profile events end before they start; their duration is "
                                 "counted as 0"});
  }
}

}  // namespace glassbox::inspector

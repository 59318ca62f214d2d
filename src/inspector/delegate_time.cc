// Delegate time scales (see inspector.h, "Delegate time"): the ratios a
// delegate recorded in the dump or the caller gave per backend, applied
// once the ETRecord has named each group's backend; and the timeline
// placement of events counted on a delegate's own clock.

#include <charconv>
#include <map>
#include <set>
#include <string>

#include "src/inspector/builder.h"
#include "src/inspector/record_index.h"

namespace glassbox::inspector {
namespace {

void add(Inspector& inspector, Severity severity, std::string message) {
  InspectorBuilder::diagnostics(inspector).push_back({severity, std::move(message)});
}

std::string ratio_text(const TickRatio& ratio) {
  return std::to_string(ratio.numerator) + "/" + std::to_string(ratio.denominator);
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "'" : ", '") + name + "'";
  return out;
}

bool parse_positive(std::string_view text, std::uint64_t* out) {
  const char* end = text.data() + text.size();
  const auto [at, error] = std::from_chars(text.data(), end, *out);
  return error == std::errc() && at == end && *out > 0;
}

// A delegate's counter has its own origin: each (run, instruction)'s
// scaled events are shifted so the earliest starts with that run's
// DELEGATE_CALL at the instruction (left in place when there is none).
// Groups marked in `placed` are on the host timeline already (their
// delegate declared its clock's offset) and stay where they are.
void align_to_delegate_calls(Inspector& inspector, const std::vector<bool>& placed = {}) {
  auto is_placed = [&placed](std::uint32_t group) {
    return group < placed.size() && placed[group];
  };
  const std::vector<EventGroup>& groups = InspectorBuilder::groups(inspector);
  std::vector<Occurrence>& occurrences = InspectorBuilder::occurrences(inspector);
  using RunInstruction = std::pair<std::uint32_t, std::int32_t>;
  std::map<RunInstruction, double> call_start, first_scaled;
  for (const Occurrence& o : occurrences) {
    const EventGroup& g = groups[o.group];
    const RunInstruction key{std::uint32_t{o.run}, g.instruction.value};
    if (g.role == EventRole::kDelegateCall) {
      call_start.try_emplace(key, o.start);
    } else if (g.time_scale != TimeScaleSource::kClock && !is_placed(o.group)) {
      auto [it, inserted] = first_scaled.try_emplace(key, o.start);
      if (!inserted && o.start < it->second) it->second = o.start;
    }
  }
  if (first_scaled.empty()) return;
  for (Occurrence& o : occurrences) {
    const EventGroup& g = groups[o.group];
    if (g.time_scale == TimeScaleSource::kClock || g.role == EventRole::kDelegateCall ||
        is_placed(o.group)) {
      continue;
    }
    const RunInstruction key{std::uint32_t{o.run}, g.instruction.value};
    const auto call = call_start.find(key);
    if (call == call_start.end()) continue;
    const double shift = call->second - first_scaled.at(key);
    o.start += shift;
    o.end += shift;
  }
}

}  // namespace

StatusOr<std::pair<std::string, TickRatio>> parse_delegate_time_scale(std::string_view text) {
  const std::size_t equals = text.rfind('=');
  const std::size_t slash = text.rfind('/');
  std::uint64_t numerator = 0, denominator = 0;
  if (equals == std::string_view::npos || equals == 0 || slash == std::string_view::npos ||
      slash < equals || !parse_positive(text.substr(equals + 1, slash - equals - 1), &numerator) ||
      !parse_positive(text.substr(slash + 1), &denominator)) {
    return Status(Error::kInvalidArgument,
                  "a delegate time scale is BACKEND=NUM/DEN (nanoseconds per delegate tick, "
                  "positive integers, e.g. DemoBackend=4/1), got \"" +
                      std::string(text) + "\"");
  }
  return std::pair<std::string, TickRatio>{std::string(text.substr(0, equals)),
                                           TickRatio{numerator, denominator}};
}

void InspectorBuilder::assign_backends(const etrecord::ETRecord& record, Inspector& inspector) {
  std::vector<Diagnostic> ignored;  // resolve() reports on the record once
  const RecordIndex index(record, &ignored);
  for (EventGroup& group : inspector.groups_) {
    if (group.role != EventRole::kDelegateInternal) continue;
    if (const aot::DelegateMapEntry* entry = index.delegate_entry(group.instruction)) {
      group.backend = entry->backend;
    }
  }
}

void InspectorBuilder::scale_delegate_times(const etdump::ETDumpFile& dump,
                                            const InspectorOptions& options, Inspector& inspector) {
  TimeInfo& time = inspector.time_;
  // Every scale in force, by backend: the option replaces the dump's.
  std::map<std::string, TimeInfo::DelegateScale, std::less<>> scales;
  for (const etdump::DelegateTimeScale& s : dump.delegate_time_scales) {
    scales[s.backend] = {s.backend, s.ns_per_tick, TimeScaleSource::kDump, s.host_offset_ns};
  }
  for (const auto& [backend, ratio] : options.delegate_time_scales) {
    const auto it = scales.find(backend);
    if (it != scales.end() && !(it->second.ns_per_tick == ratio)) {
      add(inspector, Severity::kInfo,
          "delegate time scale of backend '" + backend + "': " + ratio_text(ratio) +
              " ns per tick given as an option replaces the dump's " +
              ratio_text(it->second.ns_per_tick));
    }
    if (it != scales.end() && it->second.host_offset_ns) {
      // The offset was measured against the declared clock, not this one.
      add(inspector, Severity::kInfo,
          "delegate time scale of backend '" + backend +
              "' given as an option: the dump's host clock offset is not used, its events are "
              "aligned to their DELEGATE_CALL");
    }
    scales[backend] = {backend, ratio, TimeScaleSource::kOption, std::nullopt};
  }
  if (scales.empty()) {
    align_to_delegate_calls(inspector);  // converted events, if any
    return;
  }
  std::set<std::string> names;
  for (const auto& [backend, scale] : scales) names.insert(backend);
  if (options.time_unit == TimeUnit::kTicks) {
    add(inspector, Severity::kInfo,
        "raw ticks asked for: the delegate time scales of " + joined(names) + " are not applied");
    return;
  }
  if (time.delegate_converter) {
    add(inspector, Severity::kInfo,
        "the delegate time scale converter converts every delegate event: the time scales of " +
            joined(names) + " are not used");
    align_to_delegate_calls(inspector);
    return;
  }
  if (!inspector.has_etrecord()) {
    add(inspector, Severity::kWarning,
        "delegate events of " + joined(names) +
            " are counted in the backend's own ticks, but without an ETRecord no event can be "
            "attributed to a backend: every delegate event is shown in the clock's unit, wrong "
            "for those; pass the ETRecord");
    return;
  }

  std::set<std::string> used;
  const double clock_ns_per_tick = time.ns_per_tick;
  std::vector<double> factor_of(inspector.groups_.size(), 1.0);
  std::vector<double> shift_of(inspector.groups_.size(), 0.0);
  std::vector<bool> placed(inspector.groups_.size(), false);
  for (std::size_t i = 0; i < inspector.groups_.size(); ++i) {
    EventGroup& group = inspector.groups_[i];
    if (group.role != EventRole::kDelegateInternal) continue;
    const auto it = scales.find(group.backend);
    if (it == scales.end()) continue;
    used.insert(group.backend);
    group.time_scale = it->second.source;
    factor_of[i] = it->second.ns_per_tick.ns_per_tick() / clock_ns_per_tick;
    if (const auto& offset = it->second.host_offset_ns) {
      // Durations (samples) do not move; occurrences (in ns by now) land
      // on the host clock.
      shift_of[i] = static_cast<double>(*offset);
      placed[i] = true;
    }
    for (double& sample : group.samples) sample *= factor_of[i];
  }
  for (Occurrence& o : inspector.occurrences_) {
    o.start = o.start * factor_of[o.group] + shift_of[o.group];
    o.end = o.end * factor_of[o.group] + shift_of[o.group];
  }
  align_to_delegate_calls(inspector, placed);

  for (const auto& [backend, scale] : scales) {
    if (used.count(backend) == 0) {
      add(inspector,
          scale.source == TimeScaleSource::kOption ? Severity::kWarning : Severity::kInfo,
          "delegate time scale of backend '" + backend +
              "' not applied: no delegate event of the ETRecord's delegates belongs to it");
      continue;
    }
    time.delegate_scales.push_back(scale);
    add(inspector, Severity::kInfo,
        "delegate events of backend '" + backend + "' are in its own ticks: converted with " +
            ratio_text(scale.ns_per_tick) + " ns per tick (" +
            std::string(scale.source == TimeScaleSource::kDump ? "the delegate's, from the dump"
                                                               : "given as an option") +
            ")" +
            (scale.host_offset_ns ? ", placed on the host timeline with its declared offset of " +
                                        std::to_string(*scale.host_offset_ns) + " ns"
                                  : std::string()));
  }
}

}  // namespace glassbox::inspector

// The rules over a dump and its ETRecord (conformance.h, check_artifacts):
// every one walks the same index of delegate events, built once.

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph.h"
#include "glassbox/conformance/conformance.h"

namespace glassbox::conformance {
namespace {

constexpr std::string_view kDelegateCall = "DELEGATE_CALL";
// How far events on a delegate's own clock, placed with its declared
// offset, may stray past their DELEGATE_CALL: the offset is a measurement
// (a synchronisation of two counters), and a simulated counter converts
// with rounding. 1 us is far below any real misplacement (a wrong offset
// or ratio misses by the whole run) and far above the sub-100 ns jitter
// of a real synchronisation. (example_npu once strayed 10 ns, once in ~80
// runs, when its simulated counter ran ahead of the host; it now waits for
// the host clock to reach its counter before returning.)
constexpr long double kSyncedClockSlackNs = 1000;
// A failing rule names this many offenders, then counts the rest.
constexpr std::size_t kNamed = 3;

// Failures of one rule: the first few named, the total counted.
class Offenders {
 public:
  void add(std::string what) {
    if (named_.size() < kNamed) named_.push_back(std::move(what));
    ++count_;
  }
  bool empty() const { return count_ == 0; }
  std::string text() const {
    std::string out;
    for (const std::string& n : named_) out += (out.empty() ? "" : "; ") + n;
    if (count_ > named_.size()) out += "; and " + std::to_string(count_ - named_.size()) + " more";
    return out;
  }

 private:
  std::vector<std::string> named_;
  std::size_t count_ = 0;
};

RuleResult verdict(std::string rule, const Offenders& offenders, const std::string& label,
                   std::string pass_detail) {
  if (offenders.empty()) return {std::move(rule), Outcome::kPass, std::move(pass_detail)};
  return {std::move(rule), Outcome::kFail, label + offenders.text()};
}

// The delegate map of the record's method: "forward", or its only method.
const aot::InstructionDelegateMap* delegate_map_of(const etrecord::ETRecord& record) {
  const auto forward = record.delegate_map.find(aot::kForwardMethod);
  if (forward != record.delegate_map.end()) return &forward->second;
  if (record.delegate_map.size() == 1) return &record.delegate_map.begin()->second;
  return nullptr;
}

// Nanoseconds as an integer: the rules compare, they do not measure.
std::string fixed(long double ns) { return std::to_string(static_cast<long long>(ns)); }

std::string run_text(std::size_t run) { return "run " + std::to_string(run); }

// A logged identifier: nullopt when the event carries none.
std::optional<aot::DelegateDebugIdentifier> identifier_of(const etdump::ProfileEvent& e) {
  if (e.delegate_debug_id_int.value != -1) {
    return aot::DelegateDebugIdentifier(std::int64_t{e.delegate_debug_id_int.value});
  }
  if (e.delegate_debug_id_str.has_value()) {
    return aot::DelegateDebugIdentifier(*e.delegate_debug_id_str);
  }
  return std::nullopt;
}

struct DelegateEvent {
  std::size_t run = 0;
  std::int32_t instruction = -1;
  std::int32_t thread = 0;
  std::optional<aot::DelegateDebugIdentifier> id;
  Ticks start = 0, end = 0;
  std::size_t metadata_bytes = 0;
};

// Host nanoseconds of a delegate's events: its declared clock when it
// declared one (`placed` when it declared the offset too, else only
// durations and order mean anything), else the dump's clock.
struct DelegateClock {
  long double ns_per_tick = 1;
  long double offset_ns = 0;
  bool placed = true;
  long double slack_ns = 0;  // kSyncedClockSlackNs for a declared offset
  long double ns(Ticks t) const { return static_cast<long double>(t) * ns_per_tick + offset_ns; }
};

class Index {
 public:
  Index(const etdump::ETDumpFile& dump, const aot::InstructionDelegateMap* map) : map_(map) {
    host_ns_per_tick_ = dump.tick_ratio ? static_cast<long double>(dump.tick_ratio->numerator) /
                                              static_cast<long double>(dump.tick_ratio->denominator)
                                        : 1;
    for (const etdump::DelegateTimeScale& s : dump.delegate_time_scales) {
      DelegateClock clock;
      clock.ns_per_tick = static_cast<long double>(s.ns_per_tick.numerator) /
                          static_cast<long double>(s.ns_per_tick.denominator);
      clock.offset_ns = static_cast<long double>(s.host_offset_ns.value_or(0));
      clock.placed = s.host_offset_ns.has_value();
      if (clock.placed) clock.slack_ns = kSyncedClockSlackNs;
      scales_[s.backend] = clock;
    }
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
      for (const etdump::Event& event : dump.runs[r].events) {
        const etdump::ProfileEvent* e = event.profile();
        if (e == nullptr) continue;
        const std::int32_t instruction = e->instruction_id.value;
        std::optional<aot::DelegateDebugIdentifier> id = identifier_of(*e);
        if (!id && e->name == kDelegateCall) {
          calls_[{r, instruction}].push_back({host_ns(e->start_time), host_ns(e->end_time)});
          continue;
        }
        // An event without an identifier is a delegate's only at a
        // delegate call (elsewhere it is a kernel's or the framework's).
        if (!id && !is_delegate_call(instruction)) continue;
        events_.push_back({r, instruction, e->thread_index.value_or(0), std::move(id),
                           e->start_time, e->end_time,
                           e->delegate_debug_metadata ? e->delegate_debug_metadata->size() : 0});
      }
    }
  }

  bool is_delegate_call(std::int32_t instruction) const {
    return map_ != nullptr && map_->contains(InstructionId(instruction));
  }
  const aot::InstructionDelegateMap* map() const { return map_; }
  const std::vector<DelegateEvent>& events() const { return events_; }
  const std::map<std::pair<std::size_t, std::int32_t>,
                 std::vector<std::pair<long double, long double>>>&
  calls() const {
    return calls_;
  }
  long double host_ns(Ticks t) const { return static_cast<long double>(t) * host_ns_per_tick_; }
  DelegateClock clock_of(std::int32_t instruction) const {
    if (map_ != nullptr) {
      const auto entry = map_->find(InstructionId(instruction));
      if (entry != map_->end()) {
        const auto scale = scales_.find(entry->second.backend);
        if (scale != scales_.end()) return scale->second;
      }
    }
    return {host_ns_per_tick_, 0, true};
  }

 private:
  const aot::InstructionDelegateMap* map_;
  long double host_ns_per_tick_ = 1;
  std::map<std::string, DelegateClock, std::less<>> scales_;
  std::vector<DelegateEvent> events_;
  // (run, instruction) -> DELEGATE_CALL windows in host ns.
  std::map<std::pair<std::size_t, std::int32_t>, std::vector<std::pair<long double, long double>>>
      calls_;
};

std::string at(const DelegateEvent& e) {
  return (e.id ? aot::describe(*e.id) : std::string("an event without identifier")) +
         " at instruction " + std::to_string(e.instruction) + " of " + run_text(e.run);
}

RuleResult logged_in_map(const Index& index, const std::string& label) {
  Offenders offenders;
  std::set<std::pair<std::int32_t, aot::DelegateDebugIdentifier>> seen;
  for (const DelegateEvent& e : index.events()) {
    if (!e.id || !seen.insert({e.instruction, *e.id}).second) continue;
    if (!index.is_delegate_call(e.instruction)) {
      offenders.add(aot::describe(*e.id) + " logged at instruction " +
                    std::to_string(e.instruction) + ", which is no delegate call of the ETRecord");
      continue;
    }
    const aot::DelegateMapEntry& entry = index.map()->at(InstructionId(e.instruction));
    if (!entry.delegate_map || !entry.delegate_map->contains(*e.id)) {
      offenders.add(aot::describe(*e.id) + " logged at instruction " +
                    std::to_string(e.instruction) + " is not in the map of its delegate (" +
                    entry.backend + ")");
    }
  }
  return verdict("coverage.logged_in_map", offenders, label,
                 std::to_string(seen.size()) + " logged identifiers, each in its delegate's map");
}

RuleResult map_logged(const etdump::ETDumpFile& dump, const Index& index,
                      const std::string& label) {
  Offenders offenders;
  std::size_t mapped = 0;
  if (index.map() != nullptr) {
    std::map<std::pair<std::size_t, std::int32_t>, std::set<aot::DelegateDebugIdentifier>> logged;
    for (const DelegateEvent& e : index.events()) {
      if (e.id) logged[{e.run, e.instruction}].insert(*e.id);
    }
    for (const auto& [instruction, entry] : *index.map()) {
      if (!entry.delegate_map) continue;
      mapped += entry.delegate_map->size();
      bool ran = false;
      for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        const std::pair<std::size_t, std::int32_t> key{r, instruction.value};
        // An execution ran the call when it logged it or anything inside.
        if (!index.calls().contains(key) && !logged.contains(key)) continue;
        ran = true;
        const std::set<aot::DelegateDebugIdentifier>& in_run = logged[key];
        for (const auto& [id, handles] : *entry.delegate_map) {
          if (!in_run.contains(id)) {
            offenders.add(aot::describe(id) + " of the map of instruction " +
                          std::to_string(instruction.value) + " (" + entry.backend +
                          ") is not logged in " + run_text(r));
          }
        }
      }
      if (!ran && !entry.delegate_map->empty()) {
        offenders.add("the delegate call at instruction " + std::to_string(instruction.value) +
                      " (" + entry.backend + ") logs nothing in any run");
      }
    }
  }
  return verdict(
      "coverage.map_logged", offenders, label,
      std::to_string(mapped) + " mapped identifiers, each logged where its delegate ran");
}

RuleResult ids_set(const etdump::ETDumpFile& dump, const Index& index, const std::string& label) {
  Offenders offenders;
  for (const DelegateEvent& e : index.events()) {
    if (!e.id) {
      offenders.add("an event without identifier at delegate call instruction " +
                    std::to_string(e.instruction) + " of " + run_text(e.run));
    } else if (const auto* i = std::get_if<std::int64_t>(&*e.id); i != nullptr && *i < 0) {
      offenders.add("int identifier " + std::to_string(*i) + " at instruction " +
                    std::to_string(e.instruction) + " of " + run_text(e.run));
    } else if (const auto* s = std::get_if<std::string>(&*e.id); s != nullptr && s->empty()) {
      offenders.add("an empty string identifier at instruction " + std::to_string(e.instruction) +
                    " of " + run_text(e.run));
    }
  }
  for (std::size_t r = 0; r < dump.runs.size(); ++r) {
    const std::uint64_t rejected = dump.runs[r].rejected_events.value_or(0);
    if (rejected > 0) {
      offenders.add(run_text(r) + ": the tracer refused " + std::to_string(rejected) +
                    " call(s) as invalid (a delegate event with both or neither of a name and "
                    "an int identifier, or an end without its start)");
    }
  }
  return verdict("ids.set", offenders, label, "every delegate event carries a valid identifier");
}

RuleResult balanced(const Index& index, const std::string& label) {
  Offenders offenders;
  // Events on a clock with no declared offset: only their spread per call
  // is comparable with the call's duration.
  std::map<std::pair<std::size_t, std::int32_t>, std::pair<long double, long double>> spreads;
  for (const DelegateEvent& e : index.events()) {
    if (e.end < e.start) {
      offenders.add(at(e) + " ends before it starts (" + std::to_string(e.start) + " > " +
                    std::to_string(e.end) + " ticks)");
      continue;
    }
    const auto calls = index.calls().find({e.run, e.instruction});
    if (calls == index.calls().end()) {
      offenders.add(at(e) + " has no DELEGATE_CALL around it");
      continue;
    }
    const DelegateClock clock = index.clock_of(e.instruction);
    const long double start = clock.ns(e.start), end = clock.ns(e.end);
    if (!clock.placed) {
      auto [it, fresh] = spreads.try_emplace({e.run, e.instruction}, start, end);
      if (!fresh)
        it->second = {std::min(it->second.first, start), std::max(it->second.second, end)};
      continue;
    }
    const bool inside = std::any_of(calls->second.begin(), calls->second.end(), [&](const auto& w) {
      return w.first - clock.slack_ns <= start && end <= w.second + clock.slack_ns;
    });
    if (!inside) {
      // By how much, against the first call: a clock that runs ahead of
      // the host's shows here.
      const auto& w = calls->second.front();
      const std::string by = start < w.first ? "starts " + fixed(w.first - start) + " ns before"
                                             : "ends " + fixed(end - w.second) + " ns after";
      offenders.add(at(e) + " lies outside its DELEGATE_CALL (" + by + " it)");
    }
  }
  for (const auto& [key, spread] : spreads) {
    long double longest = 0;
    for (const auto& w : index.calls().at(key)) longest = std::max(longest, w.second - w.first);
    if (spread.second - spread.first > longest) {
      offenders.add("the events at instruction " + std::to_string(key.second) + " of " +
                    run_text(key.first) + " span " + fixed(spread.second - spread.first) +
                    " ns in their declared clock, longer than their DELEGATE_CALL (" +
                    fixed(longest) + " ns)");
    }
  }
  return verdict("events.balanced", offenders, label,
                 std::to_string(index.events().size()) +
                     " delegate events, each ending after it starts, inside its DELEGATE_CALL");
}

RuleResult monotonic(const Index& index, const std::string& label) {
  Offenders offenders;
  std::map<std::tuple<std::size_t, std::int32_t, std::int32_t>, long double> last_end;
  for (const DelegateEvent& e : index.events()) {
    const long double end = index.clock_of(e.instruction).ns(e.end);
    auto [it, fresh] = last_end.try_emplace({e.run, e.instruction, e.thread}, end);
    if (fresh) continue;
    if (end < it->second) {
      offenders.add(at(e) + " ends " + fixed(it->second - end) +
                    " ns before the event logged before it");
    }
    it->second = std::max(it->second, end);
  }
  return verdict("time.monotonic", offenders, label,
                 "delegate events' times never go back, in each delegate's declared clock");
}

RuleResult metadata_limits(const Index& index, const ArtifactOptions& options) {
  Offenders offenders;
  std::size_t largest = 0;
  for (const DelegateEvent& e : index.events()) {
    largest = std::max(largest, e.metadata_bytes);
    if (e.metadata_bytes > options.max_metadata_bytes) {
      offenders.add(at(e) + " carries " + std::to_string(e.metadata_bytes) +
                    " bytes of metadata (limit " + std::to_string(options.max_metadata_bytes) +
                    ")");
    }
  }
  return verdict("metadata.limits", offenders, options.label,
                 "largest delegate metadata " + std::to_string(largest) + " bytes (limit " +
                     std::to_string(options.max_metadata_bytes) + ")");
}

}  // namespace

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "PASS";
    case Outcome::kFail: return "FAIL";
    case Outcome::kSkip: return "SKIP";
    case Outcome::kInfo: return "INFO";
  }
  return "?";
}

bool all_passed(std::span<const RuleResult> results) {
  return std::all_of(results.begin(), results.end(), [](const RuleResult& r) { return r.pass(); });
}

std::vector<RuleResult> check_artifacts(const etdump::ETDumpFile& dump,
                                        const etrecord::ETRecord& record,
                                        const ArtifactOptions& options) {
  const Index index(dump, delegate_map_of(record));
  return {logged_in_map(index, options.label), map_logged(dump, index, options.label),
          ids_set(dump, index, options.label), balanced(index, options.label),
          monotonic(index, options.label),     metadata_limits(index, options)};
}

}  // namespace glassbox::conformance

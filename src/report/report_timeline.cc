// The timeline of one execution: which one (given, or the median), its
// events by lane (logging thread) with their nesting depth, and, when the
// execution is huge, only its longest events.

#include <algorithm>
#include <map>

#include "src/report/report_json.h"

namespace glassbox::report {
namespace {

using inspector::EventGroup;
using inspector::Inspector;
using inspector::Occurrence;

constexpr std::string_view kExecuteBlock = "Execute";
constexpr std::string_view kMethodExecute = "Method::execute";

// Run indices (into Inspector::runs()) of the dump's executions, in order.
std::vector<std::uint32_t> execution_runs(const Inspector& inspector) {
  std::vector<std::uint32_t> runs;
  for (std::uint32_t r = 0; r < inspector.runs().size(); ++r) {
    if (inspector.runs()[r].name == kExecuteBlock) runs.push_back(r);
  }
  return runs;
}

struct Span {
  double start = 0;
  double end = 0;
  double method_execute = 0;
  bool has_method_execute = false;
  bool any = false;
  double length() const { return has_method_execute ? method_execute : end - start; }
};

// Per run: its events' extent and its Method::execute time.
std::vector<Span> run_spans(const Inspector& inspector) {
  std::vector<Span> spans(inspector.runs().size());
  for (const Occurrence& o : inspector.occurrences()) {
    Span& s = spans[o.run];
    s.start = s.any ? std::min(s.start, o.start) : o.start;
    s.end = s.any ? std::max(s.end, o.end) : o.end;
    s.any = true;
    if (inspector.groups()[o.group].name == kMethodExecute) {
      s.method_execute += o.end - o.start;
      s.has_method_execute = true;
    }
  }
  return spans;
}

// Metadata is the delegate's own bytes: text when it is printable ASCII
// (labels, op types), else hex, so nothing unreadable reaches the page.
std::string metadata_text(const std::vector<std::uint8_t>& bytes) {
  const bool printable =
      std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b >= 0x20 && b < 0x7f; });
  if (printable) return std::string(bytes.begin(), bytes.end());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex = "0x";
  for (std::uint8_t b : bytes) {
    hex += kHex[b >> 4];
    hex += kHex[b & 0xf];
  }
  return hex;
}

Json group_json(const EventGroup& g) {
  Json ops = Json::array(), types = Json::array(), modules = Json::array(), handles = Json::array();
  for (const inspector::SourceOp& op : g.source_ops) {
    ops.push_back(op.name);
    types.push_back(op.type);
    modules.push_back(op.module_path());
  }
  for (DebugHandle h : g.debug_handles) handles.push_back(h.value);
  return Json{{"name", g.name},
              {"role", to_string(g.role)},
              {"identifier", g.identifier ? identifier_json(*g.identifier) : Json()},
              {"instruction", g.instruction.is_set() ? Json(g.instruction.value) : Json()},
              {"backend", g.backend},
              {"op_names", ops},
              {"op_types", types},
              {"modules", modules},
              {"debug_handles", handles},
              {"metadata", metadata_text(g.delegate_debug_metadata)},
              {"mapped", !(g.delegated && !g.resolved)}};
}

// The longest `limit` occurrences (ties: earlier start, then file order).
void keep_longest(std::vector<std::uint32_t>& chosen, const std::vector<Occurrence>& all,
                  std::size_t limit) {
  if (chosen.size() <= limit) return;
  std::stable_sort(chosen.begin(), chosen.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double da = all[a].end - all[a].start, db = all[b].end - all[b].start;
    if (da != db) return da > db;
    return all[a].start < all[b].start;
  });
  chosen.resize(limit);
}

}  // namespace

StatusOr<std::uint32_t> timeline_execution(const Inspector& inspector,
                                           const ReportOptions& options) {
  const std::vector<std::uint32_t> runs = execution_runs(inspector);
  if (options.execution.has_value()) {
    const std::uint32_t k = *options.execution;
    if (k >= runs.size()) {
      return Status(Error::kInvalidArgument, "--execution " + std::to_string(k) +
                                                 ": the ETDump has " + std::to_string(runs.size()) +
                                                 " executions (0-based)");
    }
    if (!inspector.runs()[runs[k]].used) {
      return Status(Error::kInvalidArgument,
                    "--execution " + std::to_string(k) + " was skipped as warm-up (--skip-first)");
    }
    return k;
  }
  const std::vector<Span> spans = run_spans(inspector);
  std::vector<std::uint32_t> used;
  for (std::uint32_t k = 0; k < runs.size(); ++k) {
    if (inspector.runs()[runs[k]].used) used.push_back(k);
  }
  if (used.empty()) return Status(Error::kNotFound, "the ETDump holds no execution to show");
  std::stable_sort(used.begin(), used.end(), [&](std::uint32_t a, std::uint32_t b) {
    return spans[runs[a]].length() < spans[runs[b]].length();
  });
  return used[(used.size() - 1) / 2];
}

StatusOr<Json> timeline_json(const Inspector& inspector, const ReportOptions& options) {
  StatusOr<std::uint32_t> execution = timeline_execution(inspector, options);
  if (!execution.ok()) {
    if (execution.status().error() == Error::kNotFound) return Json();
    return execution.status();
  }
  const std::uint32_t run = execution_runs(inspector)[*execution];
  const std::vector<Occurrence>& all = inspector.occurrences();

  std::vector<std::uint32_t> chosen;
  for (std::uint32_t i = 0; i < all.size(); ++i) {
    if (all[i].run == run) chosen.push_back(i);
  }
  const std::size_t total = chosen.size();
  keep_longest(chosen, all, options.timeline_event_limit);

  std::map<std::int32_t, std::uint32_t> lane_of;
  auto thread_of = [&inspector](std::uint32_t i) { return inspector.occurrence_thread(i); };
  for (std::uint32_t i : chosen) lane_of.try_emplace(thread_of(i), 0);
  std::uint32_t next_lane = 0;
  Json lanes = Json::array();
  for (auto& [thread, lane] : lane_of) {
    lane = next_lane++;
    lanes.push_back({{"thread", thread}});
  }

  // Parents first (by lane, start, longest first), so depth is a stack.
  std::stable_sort(chosen.begin(), chosen.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (thread_of(a) != thread_of(b)) return lane_of[thread_of(a)] < lane_of[thread_of(b)];
    if (all[a].start != all[b].start) return all[a].start < all[b].start;
    return (all[a].end - all[a].start) > (all[b].end - all[b].start);
  });
  double origin = 0;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    origin = k == 0 ? all[chosen[k]].start : std::min(origin, all[chosen[k]].start);
  }

  std::map<std::uint32_t, std::uint32_t> local_group;
  Json groups = Json::array();
  Json events = Json::array();
  std::vector<double> open_ends;  // Ends of the enclosing events in this lane.
  std::int64_t current_lane = -1;
  double extent = 0;
  for (std::uint32_t i : chosen) {
    const Occurrence& o = all[i];
    const std::uint32_t lane = lane_of[thread_of(i)];
    if (lane != current_lane) open_ends.clear();
    current_lane = lane;
    while (!open_ends.empty() && open_ends.back() <= o.start) open_ends.pop_back();
    const std::size_t depth = open_ends.size();
    open_ends.push_back(std::max(o.end, o.start));
    auto [it, added] = local_group.try_emplace(o.group, static_cast<std::uint32_t>(groups.size()));
    if (added) groups.push_back(group_json(inspector.groups()[o.group]));
    const double duration = std::max(0.0, o.end - o.start);
    extent = std::max(extent, o.start - origin + duration);
    events.push_back(
        Json::array({lane, it->second, round_time(o.start - origin), round_time(duration), depth}));
  }
  const std::vector<std::uint32_t> runs = execution_runs(inspector);
  std::uint32_t used = 0;
  for (std::uint32_t r : runs) used += inspector.runs()[r].used;
  return Json{{"execution", *execution},
              {"chosen", options.execution.has_value() ? "given" : "median"},
              {"executions_used", used},
              {"events_in_execution", total},
              {"events_shown", chosen.size()},
              {"event_limit", options.timeline_event_limit},
              {"extent", round_time(extent)},
              {"lanes", lanes},
              {"groups", groups},
              {"events", events}};
}

}  // namespace glassbox::report

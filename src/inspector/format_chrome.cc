// Chrome Trace Event JSON. Written by hand rather than through a JSON tree:
// a dump can hold a million occurrences, and each group's name and args are
// rendered once and reused for all of its occurrences.

#include <algorithm>
#include <map>
#include <utility>

#include "glassbox/inspector/formats.h"
#include "src/inspector/text.h"

namespace glassbox::inspector {
namespace {

struct Track {
  std::uint32_t run = 0;
  std::int32_t thread = 0;
  auto operator<=>(const Track&) const = default;
};

std::string group_name(const EventGroup& g) {
  if (g.source_ops.empty()) return g.name;
  std::string ops;
  for (const SourceOp& op : g.source_ops) ops += (ops.empty() ? "" : "+") + op.name;
  return g.name + " [" + ops + "]";
}

std::string group_args(const EventGroup& g) {
  std::string names, types, modules, handles;
  for (const SourceOp& op : g.source_ops) {
    names += (names.empty() ? "" : ",") + json_string(op.name);
    types += (types.empty() ? "" : ",") + json_string(op.type);
    modules += (modules.empty() ? "" : ",") + json_string(op.module_path());
  }
  for (DebugHandle h : g.debug_handles) {
    handles += (handles.empty() ? "" : ",") + std::to_string(h.value);
  }
  std::string args =
      "{\"role\":" + json_string(to_string(g.role)) + ",\"block\":" + json_string(g.block);
  if (g.instruction.is_set()) args += ",\"instruction\":" + std::to_string(g.instruction.value);
  if (g.identifier.has_value()) {
    args += ",\"delegate_debug_identifier\":";
    args += std::holds_alternative<std::int64_t>(*g.identifier)
                ? identifier_text(g.identifier)
                : json_string(identifier_text(g.identifier));
  }
  if (!g.backend.empty()) args += ",\"backend\":" + json_string(g.backend);
  args += ",\"debug_handles\":[" + handles + "],\"op_names\":[" + names + "],\"op_types\":[" +
          types + "],\"module_path\":[" + modules + "]";
  if (g.delegated && !g.resolved) args += ",\"unmapped\":true";
  if (g.time_scale != TimeScaleSource::kClock) {
    args += ",\"time_scale\":" + json_string(to_string(g.time_scale));
  }
  return args;  // Closed per occurrence, after "run".
}

// Microseconds with three decimals: nanosecond precision survives.
std::string micros(double ns) { return fixed(ns / 1000.0, 3); }

}  // namespace

Status write_chrome_trace(const Inspector& inspector, const io::ChunkSink& write) {
  const std::vector<Occurrence>& occurrences = inspector.occurrences();
  const std::vector<EventGroup>& groups = inspector.groups();

  std::map<Track, std::uint32_t> tids;
  double origin = 0;
  bool first = true;
  for (std::size_t i = 0; i < occurrences.size(); ++i) {
    const Occurrence& o = occurrences[i];
    tids.try_emplace(Track{o.run, inspector.occurrence_thread(i)}, 0);
    if (first || o.start < origin) origin = o.start;
    first = false;
  }
  std::uint32_t next_tid = 1;
  for (auto& [track, tid] : tids) tid = next_tid++;

  std::vector<std::string> names, args;
  for (const EventGroup& g : groups) {
    names.push_back(json_string(group_name(g)));
    args.push_back(group_args(g));
  }

  // Parents first: by track, start, then longest first, so viewers that
  // expect sorted input nest DELEGATE_CALL around its inner events.
  std::vector<std::uint32_t> order(occurrences.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::uint32_t> tid_of(occurrences.size());
  for (std::size_t i = 0; i < occurrences.size(); ++i) {
    tid_of[i] = tids[Track{occurrences[i].run, inspector.occurrence_thread(i)}];
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const Occurrence& x = occurrences[a];
    const Occurrence& y = occurrences[b];
    if (tid_of[a] != tid_of[b]) return tid_of[a] < tid_of[b];
    if (x.start != y.start) return x.start < y.start;
    return (x.end - x.start) > (y.end - y.start);
  });

  const std::string unit = inspector.time().unit;
  std::string out =
      "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"glassbox inspect\","
      "\"time_unit\":" +
      json_string(unit) + ",\"time_source\":" + json_string(to_string(inspector.time().source)) +
      "},\"traceEvents\":[\n";
  out +=
      "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"glassbox\"}"
      "}";
  for (const auto& [track, tid] : tids) {
    std::string label = "run " + std::to_string(track.run) + " " + inspector.runs()[track.run].name;
    if (track.thread != 0) label += ", thread " + std::to_string(track.thread);
    out += ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) +
           ",\"name\":\"thread_name\",\"args\":{\"name\":" + json_string(label) + "}}";
    out += ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":" + std::to_string(tid) +
           ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}";
  }
  const bool has_counters = !inspector.counter_names().empty();
  std::vector<std::string> counter_keys;
  for (const std::string& name : inspector.counter_names()) {
    counter_keys.push_back(json_string(name) + ":");
  }
  constexpr std::size_t kChunk = 1 << 20;
  out.reserve(kChunk + 4096);
  for (std::uint32_t i : order) {
    if (out.size() >= kChunk) {
      GLASSBOX_RETURN_IF_ERROR(write(out));
      out.clear();
    }
    const Occurrence& o = occurrences[i];
    const EventGroup& g = groups[o.group];
    out += ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":";
    out += std::to_string(tid_of[i]);
    out += ",\"name\":";
    out += names[o.group];
    out += ",\"cat\":\"";
    out += to_string(g.role);
    out += "\",\"ts\":";
    out += micros(o.start - origin);
    out += ",\"dur\":";
    out += micros(o.end - o.start);
    out += ",\"args\":";
    out += args[o.group];
    out += ",\"run\":";
    out += std::to_string(o.run);
    // The event's own delegate counters, by name, in its args (an object
    // of their own: a counter may be called "run").
    if (has_counters) {
      const std::span<const OccurrenceCounter> counters = inspector.occurrence_counters(i);
      for (std::size_t k = 0; k < counters.size(); ++k) {
        out += k == 0 ? ",\"counters\":{" : ",";
        out += counter_keys[counters[k].name];
        out += std::to_string(counters[k].value);
      }
      if (!counters.empty()) out += '}';
    }
    out += "}}";
  }
  out += "\n]}\n";
  return write(out);
}

std::string to_chrome_trace(const Inspector& inspector) {
  std::string trace;
  // Appending to a string cannot fail.
  (void)write_chrome_trace(inspector, [&trace](std::string_view chunk) {
    trace.append(chunk);
    return Status();
  });
  return trace;
}

}  // namespace glassbox::inspector

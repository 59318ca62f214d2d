#include "glassbox/etdump/raw_trace.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "glassbox/core/raw_trace.h"

namespace glassbox::etdump {
namespace {

std::optional<std::string_view> backend_of(const std::optional<std::string_view>& id) {
  if (!id.has_value() || !id->starts_with(kRawTraceIdPrefix)) return std::nullopt;
  return id->substr(kRawTraceIdPrefixLength);
}

// What the sink keeps of one trace's events while its decoder runs: the
// host's own copies, checked one by one.
struct Collector {
  const ProfileEvent* trace = nullptr;
  std::map<std::string, std::uint32_t, std::less<>>* counter_index = nullptr;
  std::vector<std::string>* new_counter_names = nullptr;
  std::size_t existing_counter_names = 0;
  std::vector<ProfileEvent> events;
  std::string refusal;  // why the host refused an event ("" while none)

  int refuse(std::string why) {
    refusal = "event " + std::to_string(events.size()) + " " + std::move(why);
    return 1;
  }

  std::uint32_t counter_name(std::string_view name) {
    const auto found = counter_index->find(name);
    if (found != counter_index->end()) return found->second;
    const auto index =
        static_cast<std::uint32_t>(existing_counter_names + new_counter_names->size());
    new_counter_names->emplace_back(name);
    counter_index->emplace(std::string(name), index);
    return index;
  }

  int take(const GlassboxDecodedEvent* e) {
    if (e == nullptr) return refuse("is null");
    if (events.size() == kMaxDecodedEventsPerTrace) {
      return refuse("is past the limit of " + std::to_string(kMaxDecodedEventsPerTrace) +
                    " events a trace");
    }
    const bool has_int = e->delegate_debug_id_int != -1;
    const bool has_str = e->delegate_debug_id_str != nullptr;
    if (has_int == has_str) {
      return refuse(has_int ? "has both an int and a string identifier" : "has no identifier");
    }
    if (has_int && e->delegate_debug_id_int < 0) {
      return refuse("has int identifier " + std::to_string(e->delegate_debug_id_int) +
                    " (identifiers are 0..2147483647)");
    }
    if (has_str && (e->delegate_debug_id_str[0] == '\0' ||
                    std::string_view(e->delegate_debug_id_str).starts_with(kRawTraceIdPrefix))) {
      return refuse("has an empty or reserved string identifier");
    }
    if (e->end_ticks < e->start_ticks) {
      return refuse("ends (" + std::to_string(e->end_ticks) + ") before it starts (" +
                    std::to_string(e->start_ticks) + ")");
    }
    if ((e->metadata == nullptr && e->metadata_size != 0) ||
        (e->counters == nullptr && e->num_counters != 0)) {
      return refuse("has null metadata or counters with a count");
    }
    ProfileEvent out;
    out.chain_index = trace->chain_index;
    out.instruction_id = trace->instruction_id;
    out.thread_index = trace->thread_index;
    out.time_source = trace->time_source;
    if (has_int) {
      out.delegate_debug_id_int = DelegateDebugIntId(e->delegate_debug_id_int);
    } else {
      out.delegate_debug_id_str = std::string(e->delegate_debug_id_str);
    }
    // As ETDumpGen writes a delegate event: metadata present, maybe empty.
    out.delegate_debug_metadata.emplace(e->metadata, e->metadata + e->metadata_size);
    out.start_time = e->start_ticks;
    out.end_time = e->end_ticks;
    std::set<std::string_view> names;
    for (std::size_t k = 0; k < e->num_counters; ++k) {
      const GlassboxDecodedCounter& c = e->counters[k];
      if (c.name == nullptr || c.name[0] == '\0') return refuse("has a counter without a name");
      if (!names.insert(c.name).second) {
        return refuse("has counter '" + std::string(c.name) + "' twice");
      }
      out.counters.push_back({counter_name(c.name), c.value});
    }
    events.push_back(std::move(out));
    return 0;
  }
};

extern "C" int collect_decoded_event(void* context, const GlassboxDecodedEvent* event) {
  return static_cast<Collector*>(context)->take(event);
}

GlassboxRawTraceClock clock_of(const ETDumpFile& dump, std::string_view backend) {
  GlassboxRawTraceClock clock{};
  for (const DelegateTimeScale& scale : dump.delegate_time_scales) {
    if (scale.backend != backend) continue;
    clock.ns_per_tick_numerator = scale.ns_per_tick.numerator;
    clock.ns_per_tick_denominator = scale.ns_per_tick.denominator;
    if (scale.host_offset_ns.has_value()) {
      clock.host_offset_ns = *scale.host_offset_ns;
      clock.has_host_offset = 1;
    }
  }
  return clock;
}

}  // namespace

std::optional<std::string_view> raw_trace_backend(const ProfileEventRef& event) {
  return backend_of(event.delegate_debug_id_str);
}

std::optional<std::string_view> raw_trace_backend(const ProfileEvent& event) {
  if (!event.delegate_debug_id_str.has_value()) return std::nullopt;
  return backend_of(std::string_view(*event.delegate_debug_id_str));
}

std::size_t count_raw_traces(const ETDumpFile& dump) {
  std::size_t n = 0;
  for (const RunData& run : dump.runs) {
    for (const Event& event : run.events) {
      const ProfileEvent* p = event.profile();
      n += p != nullptr && raw_trace_backend(*p).has_value() ? 1 : 0;
    }
  }
  return n;
}

StatusOr<RawTraceExpansion> expand_raw_traces(ETDumpFile* dump,
                                              const RawTraceDecoderLookup& lookup) {
  // First every backend's decoder, so a missing one is found before any
  // decoding, and named with all its traces.
  std::map<std::string, std::size_t, std::less<>> traces_of;
  for (const RunData& run : dump->runs) {
    for (const Event& event : run.events) {
      const ProfileEvent* p = event.profile();
      if (const auto backend = p != nullptr ? raw_trace_backend(*p) : std::nullopt) {
        ++traces_of[std::string(*backend)];
      }
    }
  }
  RawTraceExpansion done;
  if (traces_of.empty()) return done;
  std::map<std::string, GlassboxRawTraceDecoder, std::less<>> decoders;
  for (const auto& [backend, count] : traces_of) {
    const GlassboxRawTraceDecoder decoder = lookup ? lookup(backend) : nullptr;
    if (decoder == nullptr) {
      return Status(Error::kNotFound,
                    std::to_string(count) + " raw trace(s) of backend '" + backend +
                        "' need its decoder: load the backend's plug-in (--plugin PATH or "
                        "GLASSBOX_PLUGINS)");
    }
    decoders.emplace(backend, decoder);
  }

  std::map<std::string, std::uint32_t, std::less<>> counter_index;
  for (std::size_t i = 0; i < dump->counter_names.size(); ++i) {
    counter_index.emplace(dump->counter_names[i], static_cast<std::uint32_t>(i));
  }
  std::vector<std::string> new_counter_names;
  // The expanded runs are built aside and swapped in at the end: on error
  // the dump is as it was.
  std::vector<std::vector<Event>> expanded(dump->runs.size());
  for (std::size_t r = 0; r < dump->runs.size(); ++r) {
    const std::vector<Event>& events = dump->runs[r].events;
    std::vector<Event>& out = expanded[r];
    out.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
      const ProfileEvent* p = events[i].profile();
      const auto backend = p != nullptr ? raw_trace_backend(*p) : std::nullopt;
      if (!backend.has_value()) {
        out.push_back(events[i]);
        continue;
      }
      Collector collector;
      collector.trace = p;
      collector.counter_index = &counter_index;
      collector.new_counter_names = &new_counter_names;
      collector.existing_counter_names = dump->counter_names.size();
      const std::vector<std::uint8_t> none;
      const std::vector<std::uint8_t>& bytes =
          p->delegate_debug_metadata.has_value() ? *p->delegate_debug_metadata : none;
      const GlassboxRawTraceClock clock = clock_of(*dump, *backend);
      char error[256] = {};
      const int failed =
          decoders.find(*backend)->second(bytes.data(), bytes.size(), &clock,
                                          &collect_decoded_event, &collector, error, sizeof(error));
      error[sizeof(error) - 1] = '\0';
      const std::string trace = "raw trace of backend '" + std::string(*backend) + "' (event " +
                                std::to_string(i) + " of run " + std::to_string(r) + ")";
      if (!collector.refusal.empty()) {
        return Status(Error::kCorruptData, trace + ": the decoder gave " + collector.refusal);
      }
      if (failed != 0) {
        return Status(Error::kCorruptData,
                      trace + " does not decode: " +
                          (error[0] != '\0' ? std::string(error) : "the decoder gave no reason"));
      }
      ++done.traces;
      done.events += collector.events.size();
      for (ProfileEvent& e : collector.events) out.push_back(Event{std::move(e)});
    }
  }
  for (std::size_t r = 0; r < dump->runs.size(); ++r) dump->runs[r].events = std::move(expanded[r]);
  for (std::string& name : new_counter_names) dump->counter_names.push_back(std::move(name));
  return done;
}

}  // namespace glassbox::etdump

#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runtime {

// Out of line so the vtable is emitted in one object file.
EventTracer::~EventTracer() = default;

Error EventTracer::set_delegate_time_scale(const char* /*backend*/, TickRatio /*ns_per_tick*/) {
  return Error::kNotSupported;
}

Error EventTracer::set_delegate_clock_offset(const char* /*backend*/,
                                             std::int64_t /*host_offset_ns*/) {
  return Error::kNotSupported;
}

Error EventTracer::log_profiling_delegate_with_counters(const char* name, DelegateDebugIntId id,
                                                        Ticks start_time, Ticks end_time,
                                                        Span<const DelegateCounter> /*counters*/,
                                                        const void* metadata,
                                                        std::size_t metadata_len,
                                                        TimeSource time_source) {
  return log_profiling_delegate(name, id, start_time, end_time, metadata, metadata_len,
                                time_source);
}

Error EventTracer::end_profiling_delegate_with_counters(const EventTracerEntry& entry,
                                                        Span<const DelegateCounter> /*counters*/,
                                                        const void* metadata,
                                                        std::size_t metadata_len) {
  return end_profiling_delegate(entry, metadata, metadata_len);
}

Error EventTracer::log_profiling_delegates(Span<const DelegateEventDesc> events,
                                           const DelegateEventTimes* times,
                                           TimeSource time_source) {
  Error first = Error::kOk;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const DelegateEventDesc& e = events[i];
    const Error error = log_profiling_delegate(e.name, e.int_id, times[i].start, times[i].end,
                                               e.metadata, e.metadata_len, time_source);
    if (first == Error::kOk) first = error;
  }
  return first;
}

}  // namespace glassbox::runtime

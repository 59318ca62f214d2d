#pragma once
/// @file
/// The hooks a delegate calls to log its internal events, as ExecuTorch's
/// delegate-debugging guide describes them, plus its older macro spellings.
///
/// Identifiers: pass EITHER a name (the string identifier the AOT half put
/// in its debug handle map) with no int id, OR an int identifier with a null
/// name. Int identifiers are 0..INT32_MAX. "No int id" may be spelled
/// `kUnsetDelegateDebugIntId`, -1, or `static_cast<uint32_t>(-1)` (the
/// ExecuTorch spellings). Anything else (both, neither, an id out of range)
/// is refused with Error::kInvalidArgument and counted in the ETDump, never an
/// abort.
///
/// Real-time logging:
///
///   EventTracerEntry e = event_tracer_start_profiling_delegate(
///       tracer, nullptr, DelegateDebugIntId(0));
///   run_op();
///   event_tracer_end_profiling_delegate(tracer, e, "conv_relu");
///
/// Post-time logging (timestamps taken while running, logged afterwards):
///
///   Ticks t0 = tracer->clock().now(); run_op(); Ticks t1 = ...now();
///   event_tracer_log_profiling_delegate(tracer, "tan.sin",
///       kUnsetDelegateDebugIntId, t0, t1);
///
/// Every hook is a no-op on a null tracer and vanishes when tracing is
/// built off. Unlike ExecuTorch, the hooks honour the tracer's levels in this
/// one place: profiling hooks record only at ProfilingLevel::kAllEvents (the
/// default), output hooks only at DebugLevel::kIntermediateOutputs.
/// Calling the `EventTracer` methods directly bypasses the levels.

#include <concepts>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>

#include "glassbox/config.h"
#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runtime {

/// The name ExecuTorch's older examples use for the entry type.
using EventEntry = EventTracerEntry;

namespace internal {

/// An int id no tracer accepts: what an out-of-range integer becomes.
inline constexpr DelegateDebugIntId kInvalidDelegateDebugIntId{
    std::numeric_limits<std::int32_t>::min()};

/// Maps the integer spellings delegate code uses onto DelegateDebugIntId.
template <std::integral I>
constexpr DelegateDebugIntId to_delegate_int_id(I value) {
  if constexpr (std::is_same_v<I, bool>) {
    return kInvalidDelegateDebugIntId;
  } else if constexpr (std::is_signed_v<I>) {
    if (value == -1) return kUnsetDelegateDebugIntId;
    if (value < 0 || static_cast<std::int64_t>(value) > std::numeric_limits<std::int32_t>::max()) {
      return kInvalidDelegateDebugIntId;
    }
    return DelegateDebugIntId(static_cast<std::int32_t>(value));
  } else {
    // ExecuTorch passes static_cast<DebugHandle>(-1), a uint32_t.
    if (static_cast<std::uint64_t>(value) == std::numeric_limits<std::uint32_t>::max()) {
      return kUnsetDelegateDebugIntId;
    }
    if (static_cast<std::uint64_t>(value) >
        static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
      return kInvalidDelegateDebugIntId;
    }
    return DelegateDebugIntId(static_cast<std::int32_t>(value));
  }
}

/// ExecuTorch's signatures type the id as a DebugHandle. With a name, both
/// of its "unset" spellings (0, as its header comments say, and
/// uint32 -1) mean "no int id"; without a name the value is the int id.
inline DelegateDebugIntId to_delegate_int_id(const char* name, DebugHandle id) {
  if (name != nullptr && (id.value == 0 || id.value == std::numeric_limits<std::uint32_t>::max())) {
    return kUnsetDelegateDebugIntId;
  }
  return to_delegate_int_id(id.value);
}

inline bool delegate_profiling_on(const EventTracer* tracer) {
  return tracer != nullptr && tracer->profiling_level() >= ProfilingLevel::kAllEvents;
}

inline bool delegate_output_logging_on(const EventTracer* tracer) {
  return tracer != nullptr && tracer->debug_level() >= DebugLevel::kIntermediateOutputs;
}

}  // namespace internal

/// Whether the profiling hooks record on this tracer (it is set, at
/// ProfilingLevel::kAllEvents, and tracing is built in). A post-time
/// delegate asks once per execute, so that at lower levels it reads no
/// clock at all.
inline bool event_tracer_records_delegate_profiling(const EventTracer* tracer) {
  if constexpr (kTracingEnabled) return internal::delegate_profiling_on(tracer);
  return false;
}

/// Whether the output hooks record on this tracer (DebugLevel::
/// kIntermediateOutputs): a delegate that must convert an output before
/// logging it asks first.
inline bool event_tracer_records_delegate_outputs(const EventTracer* tracer) {
  if constexpr (kTracingEnabled) return internal::delegate_output_logging_on(tracer);
  return false;
}

// ---- Real-time: start / end ---------------------------------------------

inline EventTracerEntry event_tracer_start_profiling_delegate(EventTracer* tracer, const char* name,
                                                              DelegateDebugIntId id) {
  if constexpr (kTracingEnabled) {
    if (internal::delegate_profiling_on(tracer)) {
      return tracer->start_profiling_delegate(name, id);
    }
  }
  return null_event_tracer_entry();
}
template <std::integral I>
EventTracerEntry event_tracer_start_profiling_delegate(EventTracer* tracer, const char* name,
                                                       I id) {
  return event_tracer_start_profiling_delegate(tracer, name, internal::to_delegate_int_id(id));
}
inline EventTracerEntry event_tracer_start_profiling_delegate(EventTracer* tracer, const char* name,
                                                              DebugHandle id) {
  return event_tracer_start_profiling_delegate(tracer, name,
                                               internal::to_delegate_int_id(name, id));
}

/// Ends a delegate event, copying `metadata_len` bytes of `metadata`.
inline Error event_tracer_end_profiling_delegate(EventTracer* tracer, const EventTracerEntry& entry,
                                                 const void* metadata, std::size_t metadata_len) {
  if constexpr (kTracingEnabled) {
    // The entry's own tracer decides: an entry that was never started (level
    // off, null tracer) has none and ends as a no-op.
    if (tracer != nullptr && entry.tracer == tracer) {
      return tracer->end_profiling_delegate(entry, metadata, metadata_len);
    }
  }
  return Error::kOk;
}
inline Error event_tracer_end_profiling_delegate(EventTracer* tracer,
                                                 const EventTracerEntry& entry) {
  return event_tracer_end_profiling_delegate(tracer, entry, nullptr, 0);
}
/// ExecuTorch's form: metadata as a C string (copied without its terminator).
inline Error event_tracer_end_profiling_delegate(EventTracer* tracer, const EventTracerEntry& entry,
                                                 const char* metadata) {
  return event_tracer_end_profiling_delegate(tracer, entry, metadata,
                                             metadata ? std::strlen(metadata) : 0);
}

// ---- Post-time: log with timestamps -------------------------------------

inline Error event_tracer_log_profiling_delegate(EventTracer* tracer, const char* name,
                                                 DelegateDebugIntId id, Ticks start_time,
                                                 Ticks end_time, const void* metadata,
                                                 std::size_t metadata_len,
                                                 TimeSource time_source = TimeSource::kMeasured) {
  if constexpr (kTracingEnabled) {
    if (internal::delegate_profiling_on(tracer)) {
      return tracer->log_profiling_delegate(name, id, start_time, end_time, metadata, metadata_len,
                                            time_source);
    }
  }
  return Error::kOk;
}
inline Error event_tracer_log_profiling_delegate(EventTracer* tracer, const char* name,
                                                 DelegateDebugIntId id, Ticks start_time,
                                                 Ticks end_time, const char* metadata = nullptr) {
  return event_tracer_log_profiling_delegate(tracer, name, id, start_time, end_time, metadata,
                                             metadata ? std::strlen(metadata) : 0);
}
template <std::integral I>
Error event_tracer_log_profiling_delegate(EventTracer* tracer, const char* name, I id,
                                          Ticks start_time, Ticks end_time,
                                          const char* metadata = nullptr) {
  return event_tracer_log_profiling_delegate(tracer, name, internal::to_delegate_int_id(id),
                                             start_time, end_time, metadata);
}
inline Error event_tracer_log_profiling_delegate(EventTracer* tracer, const char* name,
                                                 DebugHandle id, Ticks start_time, Ticks end_time,
                                                 const char* metadata = nullptr) {
  return event_tracer_log_profiling_delegate(tracer, name, internal::to_delegate_int_id(name, id),
                                             start_time, end_time, metadata);
}

/// Logs a delegate's finished events in one call (EventTracer::
/// log_profiling_delegates): `events[i]` took `times[i]`. Below profiling
/// level `all`, or without a tracer, logs nothing.
inline Error event_tracer_log_profiling_delegates(EventTracer* tracer,
                                                  Span<const DelegateEventDesc> events,
                                                  const DelegateEventTimes* times,
                                                  TimeSource time_source = TimeSource::kMeasured) {
  if constexpr (kTracingEnabled) {
    if (internal::delegate_profiling_on(tracer)) {
      return tracer->log_profiling_delegates(events, times, time_source);
    }
  }
  return Error::kOk;
}

// ---- Counters: named numbers on an event ---------------------------------

/// Logs a finished delegate event (as `event_tracer_log_profiling_delegate`)
/// with named numeric counters: what the hardware counted while the
/// operator ran. The Inspector shows each name as a column of the ops view
/// (sum and mean per operator). Names are strings that outlive the tracer
/// (literals), interned once; values are copied:
///
///   const DelegateCounter counters[] = {
///       {"cycles", end_cycles - start_cycles}, {"macs", op.macs},
///       {"dma_bytes", op.bytes_read + op.bytes_written}};
///   event_tracer_log_profiling_delegate_with_counters(
///       tracer, nullptr, DelegateDebugIntId(3), start_cycles, end_cycles,
///       counters);
///
/// Errors as `EventTracer::log_profiling_delegate_with_counters`; a tracer
/// that stores no counters logs the event alone. Below profiling level
/// `all`, or without a tracer, logs nothing.
inline Error event_tracer_log_profiling_delegate_with_counters(
    EventTracer* tracer, const char* name, DelegateDebugIntId id, Ticks start_time, Ticks end_time,
    Span<const DelegateCounter> counters, const void* metadata = nullptr,
    std::size_t metadata_len = 0, TimeSource time_source = TimeSource::kMeasured) {
  if constexpr (kTracingEnabled) {
    if (internal::delegate_profiling_on(tracer)) {
      return tracer->log_profiling_delegate_with_counters(name, id, start_time, end_time, counters,
                                                          metadata, metadata_len, time_source);
    }
  }
  return Error::kOk;
}

/// Ends a real-time delegate event (as `event_tracer_end_profiling_delegate`)
/// with counters attached.
inline Error event_tracer_end_profiling_delegate_with_counters(EventTracer* tracer,
                                                               const EventTracerEntry& entry,
                                                               Span<const DelegateCounter> counters,
                                                               const void* metadata = nullptr,
                                                               std::size_t metadata_len = 0) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr && entry.tracer == tracer) {
      return tracer->end_profiling_delegate_with_counters(entry, counters, metadata, metadata_len);
    }
  }
  return Error::kOk;
}

// ---- Time scale: once at init --------------------------------------------

/// Declares, once in the backend's `init`, that its delegate-internal events
/// carry times in its own ticks (cycles): nanoseconds = ticks * ns_per_tick.
/// Such a backend logs post-time with its own counter's values:
///
///   // init: a 250 MHz cycle counter, 4 ns per cycle
///   event_tracer_set_delegate_time_scale(context.event_tracer(), "MyNpu",
///                                        TickRatio{4, 1});
///   // execute, after the work:
///   event_tracer_log_profiling_delegate(tracer, nullptr, DelegateDebugIntId(3),
///                                       start_cycles, end_cycles);
///
/// The ETDump records the ratio beside its tick ratio and the Inspector
/// applies it to every delegate-internal event of that backend (it finds an
/// event's backend through the ETRecord's delegate map). Real-time
/// start/end hooks read `tracer->clock()`, so a backend that declares a
/// scale must log all its events post-time. Errors as
/// `EventTracer::set_delegate_time_scale`; a no-op on a null tracer.
inline Error event_tracer_set_delegate_time_scale(EventTracer* tracer, const char* backend,
                                                  TickRatio ns_per_tick) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr) return tracer->set_delegate_time_scale(backend, ns_per_tick);
  }
  return Error::kOk;
}

/// The same, for a counter that runs at `ticks_per_second` (its frequency).
inline Error event_tracer_set_delegate_ticks_per_second(EventTracer* tracer, const char* backend,
                                                        std::uint64_t ticks_per_second) {
  // In lowest terms; a zero frequency becomes a zero denominator, which
  // the tracer refuses.
  constexpr std::uint64_t kNsPerSecond = 1000000000;
  const std::uint64_t common = std::gcd(kNsPerSecond, ticks_per_second);
  return event_tracer_set_delegate_time_scale(
      tracer, backend, TickRatio{kNsPerSecond / common, ticks_per_second / common});
}

/// Declares, after the time scale, where the backend's clock stands against
/// the host's: host ns = ticks * ns_per_tick + host_offset_ns (see
/// `EventTracer::set_delegate_clock_offset`). With it the Inspector puts
/// the backend's events on the host timeline where they ran; without it,
/// at the start of their DELEGATE_CALL. A no-op on a null tracer.
inline Error event_tracer_set_delegate_clock_offset(EventTracer* tracer, const char* backend,
                                                    std::int64_t host_offset_ns) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr) return tracer->set_delegate_clock_offset(backend, host_offset_ns);
  }
  return Error::kOk;
}

// ---- Intermediate outputs -----------------------------------------------

/// Logs a delegate's intermediate output: T is TensorView,
/// Span<const TensorView>, int, bool or double (as in ExecuTorch).
template <typename T>
Result<bool> event_tracer_log_output_delegate(EventTracer* tracer, const char* name,
                                              DelegateDebugIntId id, const T& output) {
  static_assert(std::is_same_v<T, TensorView> || std::is_same_v<T, Span<const TensorView>> ||
                    std::is_same_v<T, int> || std::is_same_v<T, bool> || std::is_same_v<T, double>,
                "log TensorView, Span<const TensorView>, int, bool or double");
  if constexpr (kTracingEnabled) {
    if (internal::delegate_output_logging_on(tracer)) {
      return tracer->log_intermediate_output_delegate(name, id, output);
    }
  }
  return false;
}
template <typename T, std::integral I>
Result<bool> event_tracer_log_output_delegate(EventTracer* tracer, const char* name, I id,
                                              const T& output) {
  return event_tracer_log_output_delegate(tracer, name, internal::to_delegate_int_id(id), output);
}
template <typename T>
Result<bool> event_tracer_log_output_delegate(EventTracer* tracer, const char* name, DebugHandle id,
                                              const T& output) {
  return event_tracer_log_output_delegate(tracer, name, internal::to_delegate_int_id(name, id),
                                          output);
}

}  // namespace glassbox::runtime

// ---- ExecuTorch's older macro spellings ----------------------------------
// Thin wrappers over the hooks above, so delegate code written against
// either version of ExecuTorch's guide compiles. The END macros take only the entry,
// which remembers its tracer.

#define EVENT_TRACER_BEGIN_DELEGATE_PROFILING_EVENT_ID(tracer, id) \
  ::glassbox::runtime::event_tracer_start_profiling_delegate((tracer), nullptr, (id))
#define EVENT_TRACER_BEGIN_DELEGATE_PROFILING_EVENT_NAME(tracer, name)         \
  ::glassbox::runtime::event_tracer_start_profiling_delegate((tracer), (name), \
                                                             ::glassbox::kUnsetDelegateDebugIntId)
#define EVENT_TRACER_END_DELEGATE_PROFILING_EVENT_ID(entry) \
  ::glassbox::runtime::event_tracer_end_profiling_delegate((entry).tracer, (entry))
#define EVENT_TRACER_END_DELEGATE_PROFILING_EVENT_NAME(entry) \
  ::glassbox::runtime::event_tracer_end_profiling_delegate((entry).tracer, (entry))
#define EVENT_TRACER_LOG_DELEGATE_PROFILING_EVENT_ID(tracer, id, start, end) \
  ::glassbox::runtime::event_tracer_log_profiling_delegate((tracer), nullptr, (id), (start), (end))
#define EVENT_TRACER_LOG_DELEGATE_PROFILING_EVENT_NAME(tracer, name, start, end) \
  ::glassbox::runtime::event_tracer_log_profiling_delegate(                      \
      (tracer), (name), ::glassbox::kUnsetDelegateDebugIntId, (start), (end))

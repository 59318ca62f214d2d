#pragma once
/// @file
/// Deferred decoding, the host half: raw traces in a dump (what
/// glassbox/runtime/delegate_raw_trace.h logs; glassbox/core/raw_trace.h
/// says how they are stored) and their expansion, through each backend's
/// decoder, into the ordinary delegate profile events direct logging would
/// have written.
///
///   GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile dump, etdump::load_etdump_file(path));
///   GLASSBOX_RETURN_IF_ERROR(etdump::expand_raw_traces(&dump, lookup).status());
///   // dump now holds per-op delegate events where each raw trace was
///
/// The decoder boundary is C (below): bytes in, events out through a
/// callback, no C++ type crossing it, so a decoder's mistakes are values
/// the host checks, not memory it shares.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_model.h"

extern "C" {

/// The backend's clock as its delegate declared it in the dump
/// (event_tracer_set_delegate_ticks_per_second and ..._clock_offset), for
/// a decoder whose trace needs it (to turn a trace's own time base into
/// the declared ticks, say). The events it gives are in the declared
/// ticks, as direct logging's would be.
struct GlassboxRawTraceClock {
  /// Nanoseconds per tick as numerator / denominator; both 0 when the
  /// backend declared no clock (its ticks are then the host clock's).
  std::uint64_t ns_per_tick_numerator;
  std::uint64_t ns_per_tick_denominator;
  /// Host ns = ticks * ns_per_tick + host_offset_ns, when has_host_offset.
  std::int64_t host_offset_ns;
  std::uint8_t has_host_offset;
};

/// One named counter of a decoded event (cycles, MACs, DMA bytes).
struct GlassboxDecodedCounter {
  const char* name;  ///< Non-empty, NUL-terminated; copied by the host.
  std::int64_t value;
};

/// One per-operator event a decoder found in a raw trace. Pointers need
/// only live during the sink call (the host copies what they point to).
struct GlassboxDecodedEvent {
  /// The identifier the backend's AOT map gave the operator: an int
  /// (0..INT32_MAX) with a null `delegate_debug_id_str`, or -1 with a
  /// non-empty NUL-terminated name.
  std::int32_t delegate_debug_id_int;
  const char* delegate_debug_id_str;
  /// In the backend's declared ticks; end >= start.
  std::uint64_t start_ticks;
  std::uint64_t end_ticks;
  /// Optional bytes attached to the event (null with size 0 for none).
  const std::uint8_t* metadata;
  std::size_t metadata_size;
  /// Optional counters (null with 0 for none); names distinct.
  const GlassboxDecodedCounter* counters;
  std::size_t num_counters;
};

/// Takes one decoded event: 0 to go on, non-zero when the host refuses it
/// (the decoder should then stop and return non-zero).
typedef int (*GlassboxDecodedEventSink)(void* sink_context, const GlassboxDecodedEvent* event);

/// A backend's decoder: expands the `size` bytes at `bytes` (one raw trace,
/// as its delegate logged it; never trusted) into events, in order, through
/// `sink`. Returns 0 on success; non-zero on failure, with a NUL-terminated
/// one-line reason in `error` (room for `error_size` bytes, at least 1).
/// Must not throw, keep pointers to its inputs, or call back into the host
/// beyond `sink`.
typedef int (*GlassboxRawTraceDecoder)(const std::uint8_t* bytes, std::size_t size,
                                       const GlassboxRawTraceClock* clock,
                                       GlassboxDecodedEventSink sink, void* sink_context,
                                       char* error, std::size_t error_size);
}

namespace glassbox::etdump {

/// The backend of `event` when it is a raw trace, else nullopt. The reader
/// has checked every raw trace (see glassbox/core/raw_trace.h), so a name
/// returned is 1 to kMaxRawTraceBackendLength characters.
std::optional<std::string_view> raw_trace_backend(const ProfileEventRef& event);
std::optional<std::string_view> raw_trace_backend(const ProfileEvent& event);

/// The raw traces of `dump`.
std::size_t count_raw_traces(const ETDumpFile& dump);

/// The decoder of a backend, or null when none is loaded.
using RawTraceDecoderLookup = std::function<GlassboxRawTraceDecoder(std::string_view backend)>;

/// What expand_raw_traces did.
struct RawTraceExpansion {
  std::size_t traces = 0;  ///< Raw traces replaced.
  std::size_t events = 0;  ///< Events they expanded into.
};

/// The most events one raw trace may expand into.
inline constexpr std::size_t kMaxDecodedEventsPerTrace = std::size_t{1} << 20;

/// Replaces every raw trace of `dump`, in place, by the events its
/// backend's decoder gives: delegate profile events with the trace's chain,
/// instruction, thread and time source, the decoder's identifiers, ticks,
/// metadata and counters (their names added to dump->counter_names), in the
/// decoder's order where the trace was. Nothing changes on error.
///
/// Errors (one sentence, no source name: the caller adds it): kNotFound
/// when a backend with raw traces has no decoder (naming the backend and
/// how many traces, and that its plug-in must be loaded); kCorruptData
/// when a decoder fails (its reason, the trace's event and run) or gives
/// an event the host refuses: no identifier or both, a string identifier
/// starting with kRawTraceIdPrefix, end before start, metadata or counters
/// null with a count, an empty or repeated counter name, more than
/// kMaxDecodedEventsPerTrace events.
StatusOr<RawTraceExpansion> expand_raw_traces(ETDumpFile* dump,
                                              const RawTraceDecoderLookup& lookup);

}  // namespace glassbox::etdump

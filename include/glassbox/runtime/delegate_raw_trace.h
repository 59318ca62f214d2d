#pragma once
/// @file
/// Deferred decoding, the device half: a delegate whose hardware writes a
/// trace buffer logs it whole, once per execution, instead of one event per
/// operator; the backend plug-in's decoder expands it on the host at
/// inspect time (docs/backend-authors.md, "Deferred decoding").
///
///   // In execute, inside its DELEGATE_CALL, after the work:
///   event_tracer_log_delegate_raw_trace(context.event_tracer(), "my_npu",
///                                       trace.data(), trace.size());
///
/// The bytes are copied during the call (the delegate may reuse its
/// buffer). With ETDumpGen they go into the tracer's record store like long
/// delegate metadata: no allocation in caller-buffer mode; a full buffer
/// drops the trace whole and counts it (kOutOfResources), never an abort.
/// The trace is stamped with the current instruction and chain, so its
/// decoded events land in this execution's DELEGATE_CALL, and with the host
/// clock's time. Honours the profiling level as the other profiling hooks
/// do; a no-op on a null tracer and when tracing is built off.

#include <cstddef>
#include <cstring>

#include "glassbox/core/raw_trace.h"
#include "glassbox/runtime/delegate_hooks.h"

namespace glassbox::runtime {

/// Logs `size` bytes at `bytes` as `backend`'s raw trace of this execution.
/// `backend` is the name the decoder is registered under (the plug-in's
/// BackendPlugin::name), 1 to kMaxRawTraceBackendLength characters.
/// kInvalidArgument for a missing or too long name or null bytes with a
/// size; else what the tracer's log_profiling_delegate answers.
inline Error event_tracer_log_delegate_raw_trace(EventTracer* tracer, const char* backend,
                                                 const void* bytes, std::size_t size) {
  if constexpr (kTracingEnabled) {
    if (!internal::delegate_profiling_on(tracer)) return Error::kOk;
    if (backend == nullptr || (bytes == nullptr && size != 0)) return Error::kInvalidArgument;
    const std::size_t length = ::strnlen(backend, kMaxRawTraceBackendLength + 1);
    if (length == 0 || length > kMaxRawTraceBackendLength) return Error::kInvalidArgument;
    // The identifier on the stack: the tracer interns (copies) it once.
    char id[kRawTraceIdPrefixLength + kMaxRawTraceBackendLength + 1];
    std::memcpy(id, kRawTraceIdPrefix, kRawTraceIdPrefixLength);
    std::memcpy(id + kRawTraceIdPrefixLength, backend, length);
    id[kRawTraceIdPrefixLength + length] = '\0';
    const Ticks now = tracer->clock().now();
    return tracer->log_profiling_delegate(id, kUnsetDelegateDebugIntId, now, now,
                                          size == 0 ? nullptr : bytes, size);
  } else {
    (void)tracer, (void)backend, (void)bytes, (void)size;
    return Error::kOk;
  }
}

}  // namespace glassbox::runtime

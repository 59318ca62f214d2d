#pragma once
/// @file
/// How a raw trace sits in an ETDump: the one format fact the device hook
/// (glassbox/runtime/delegate_raw_trace.h) and the host reader share.
///
/// A raw trace is a delegate's whole trace buffer of one execution, logged
/// as it is and expanded into per-operator events on the host, at inspect
/// time, by the backend plug-in's decoder (docs/backend-authors.md,
/// "Deferred decoding"). In the ETDump it is an ordinary delegate
/// ProfileEvent, so ExecuTorch's readers open the file: its string
/// identifier is kRawTraceIdPrefix followed by the backend's name
/// ("glassbox.raw_trace:example_npu"), its delegate_debug_metadata holds the
/// bytes (absent for an empty trace), it has no int identifier, and its
/// start and end are the host clock's time when it was logged.

#include <cstddef>

namespace glassbox {

/// The string identifier of a raw trace, before the backend's name. No
/// AOT identifier starts with it (the reader treats any that does as a raw
/// trace).
inline constexpr char kRawTraceIdPrefix[] = "glassbox.raw_trace:";
inline constexpr std::size_t kRawTraceIdPrefixLength = sizeof(kRawTraceIdPrefix) - 1;
/// The longest backend name a raw trace carries (as a delegate clock's).
inline constexpr std::size_t kMaxRawTraceBackendLength = 63;

}  // namespace glassbox

#pragma once
// Step two of reading an ETDump: turn a verified FlatBuffer into the plain
// model, checking the rules the schema cannot express on the way.

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_model.h"
#include "src/etdump/reader/verified_buffer.h"

namespace glassbox::etdump {

struct DecodeOptions {
  /// False: profile events are checked but left out of RunData::events
  /// (ETDumpBuffer visits them in place instead).
  bool profile_events = true;
};

/// Decodes `buffer`; counts its profile events into `*profile_events` and
/// its raw traces (glassbox/core/raw_trace.h) into `*raw_traces` when not
/// null. Errors carry no source name; the caller adds it.
StatusOr<ETDumpFile> decode_etdump(const VerifiedBuffer& buffer, const DecodeOptions& options = {},
                                   std::size_t* profile_events = nullptr,
                                   std::size_t* raw_traces = nullptr);

/// Every profile event of a buffer decode_etdump accepted, in file order.
void visit_profile_events(const VerifiedBuffer& buffer, const ProfileEventVisitor& visit);

}  // namespace glassbox::etdump

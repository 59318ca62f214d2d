#pragma once
// Step two of reading an ETDump: turn a verified FlatBuffer into the plain
// model, checking the rules the schema cannot express on the way.

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "src/etdump/reader/verified_buffer.h"

namespace glassbox::etdump {

/// Decodes `buffer`. Errors carry no source name; the caller adds it.
StatusOr<ETDumpFile> decode_etdump(const VerifiedBuffer& buffer);

}  // namespace glassbox::etdump

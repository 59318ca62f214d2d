#pragma once
// The file loading `glassbox inspect`, `report` and `export` share: an
// ETDump read, its raw traces expanded through the loaded plug-ins'
// decoders (glassbox/etdump/raw_trace.h), and joined into an Inspector,
// errors naming the file.

#include <cstdint>
#include <span>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etdump/raw_trace.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::cli {

/// The ETDump at `path` with its raw traces expanded: a trace whose
/// backend has no decoder loaded fails it (kNotFound, naming the backend),
/// as does one that does not decode (kCorruptData).
StatusOr<etdump::ETDumpFile> load_expanded_etdump(const std::string& path);

/// The Inspector of the ETDump at `path` (with `record` when not null).
StatusOr<inspector::Inspector> inspect_file(const std::string& path,
                                            const etrecord::ETRecord* record,
                                            std::span<const std::uint8_t> debug_data,
                                            const inspector::InspectorOptions& options);

}  // namespace glassbox::cli

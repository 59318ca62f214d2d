#pragma once
// The file loading `glassbox inspect` and `glassbox report` share: an
// ETDump read and joined into an Inspector, errors naming the file.

#include <cstdint>
#include <span>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::cli {

/// The Inspector of the ETDump at `path` (with `record` when not null).
StatusOr<inspector::Inspector> inspect_file(const std::string& path,
                                            const etrecord::ETRecord* record,
                                            std::span<const std::uint8_t> debug_data,
                                            const inspector::InspectorOptions& options);

}  // namespace glassbox::cli

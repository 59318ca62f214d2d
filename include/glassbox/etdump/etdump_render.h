#pragma once
/// @file
/// Renders a read ETDump for people and scripts: what `glassbox etdump
/// show` prints.
///
///   GLASSBOX_ASSIGN_OR_RETURN(etdump::ETDumpFile file, etdump::load_etdump_file(path));
///   GLASSBOX_ASSIGN_OR_RETURN(std::string text, etdump::etdump_to_text(file, nullptr));

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"

namespace glassbox::etdump {

/// A debug-data file loaded for a whole rendering.
struct DebugData {
  std::string name;  ///< For error messages.
  /// The file's bytes; must outlive the rendering call.
  std::span<const std::uint8_t> bytes;
};

/// The stable JSON form of `file`, specified in docs/etdump-json.md; keys
/// keep a fixed order. With `debug_data` (may be null), tensors carry their
/// "values"; a tensor whose data cannot be decoded is an error naming the
/// debug-data file and the event.
StatusOr<nlohmann::ordered_json> etdump_to_json(const ETDumpFile& file,
                                                const DebugData* debug_data);

/// A readable listing, one line per event under a header per run. Not a
/// stable format: scripts use the JSON. With `debug_data` (may be null)
/// tensors show their first values.
StatusOr<std::string> etdump_to_text(const ETDumpFile& file, const DebugData* debug_data);

}  // namespace glassbox::etdump

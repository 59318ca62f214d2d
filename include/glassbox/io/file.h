#pragma once
/// @file
/// Whole-file reading for the host side (the device-side layers never open
/// files). Every loader of a file format (ETDump, ETRecord, .npy, .gbx,
/// debug data) reads through here, so all fail the same way.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::io {

/// The bytes of the file at `path`. Works on pipes and devices too (reads
/// until end of file, never trusts a size from seek). std::vector's storage
/// is malloc-aligned, as the FlatBuffers verifiers require. Errors:
/// kAccessFailed, "<path>: cannot open: <reason>" or "<path>: cannot read:
/// <reason>".
StatusOr<std::vector<std::uint8_t>> read_file(const std::string& path);

/// Writes `contents` to `path` atomically: into a new temporary file in the
/// same folder, then renamed over `path`, so a reader never sees a partial
/// file and a failed write leaves any old file as it was. The file gets
/// mode 0644. Errors: kAccessFailed, "<path>: cannot write: <reason>".
Status write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace glassbox::io

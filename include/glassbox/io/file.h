#pragma once
/// @file
/// Whole-file reading for the host side (the device-side layers never open
/// files). Every loader of a file format (ETDump, ETRecord, .npy, .gbx,
/// ONNX, debug data) reads through here, so all fail the same way.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::io {

/// The largest file read_file accepts unless told otherwise: far above any
/// model or trace this tool handles, far below what would exhaust memory
/// on a shared machine.
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{8} << 30;

/// The bytes of the regular file at `path`, read up to the size the file
/// has when opened (never more, even if it grows). A FIFO, device, socket
/// or directory is refused without reading from it (opened non-blocking,
/// so a FIFO with no writer cannot hang the caller), and so is a file of
/// more than `max_bytes`. std::vector's storage is malloc-aligned, as the
/// FlatBuffers verifiers require. Errors, each starting with the path:
/// kAccessFailed "cannot open: <reason>", "is not a regular file (a FIFO)",
/// "cannot read: <reason>"; kOutOfResources "is N bytes, more than the M
/// this reader accepts" or "needs N bytes of memory".
StatusOr<std::vector<std::uint8_t>> read_file(const std::string& path,
                                              std::uint64_t max_bytes = kMaxFileBytes);

}  // namespace glassbox::io

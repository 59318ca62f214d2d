#pragma once
/// @file
/// Whole-file reading for the host side (the device-side layers never open
/// files). Every loader of a file format (ETDump, ETRecord, .npy, .gbx,
/// ONNX, debug data) reads through here, so all fail the same way.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/internal/large_buffer.h"
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

/// A file's bytes in storage that was not zero-filled first: for a large
/// input (a million-event ETDump) the fill costs about as much as the read.
/// From 2 MiB on the storage is fresh memory advised for huge pages, since
/// faulting in 4 KiB pages cost as much again (internal::LargeBuffer). The
/// storage is 16-aligned, as the verifiers require.
struct FileBytes {
  std::unique_ptr<internal::LargeBuffer> storage;
  std::size_t size = 0;
  std::span<const std::uint8_t> bytes() const {
    return storage == nullptr ? std::span<const std::uint8_t>()
                              : std::span<const std::uint8_t>(storage->data(), size);
  }
};

/// read_file, the same checks and errors, into FileBytes.
StatusOr<FileBytes> read_file_bytes(const std::string& path,
                                    std::uint64_t max_bytes = kMaxFileBytes);

}  // namespace glassbox::io

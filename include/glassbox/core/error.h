#pragma once
/// @file
/// Error codes shared by every layer. The numeric values are stable: they go
/// into files and exit codes, so a code is never renumbered or reused.

#include <cstdint>
#include <string_view>

namespace glassbox {

enum class Error : std::uint16_t {
  kOk = 0,

  // Caller mistakes.
  kInvalidArgument = 1,  ///< An argument is out of range or inconsistent.
  kInvalidState = 2,     ///< The call is not allowed in the current state.
  kNotFound = 3,         ///< A named thing does not exist.
  kNotSupported = 4,     ///< Valid, but not implemented here.

  // Resources.
  kOutOfResources = 10,  ///< A fixed-size buffer or table is full.
  kMemoryAllocationFailed = 11,

  // Input data.
  kAccessFailed = 20,     ///< A file could not be opened, read or written.
  kCorruptData = 21,      ///< Bytes failed verification.
  kVersionMismatch = 22,  ///< Well-formed, but of a version we do not read.
  kMismatch = 23,         ///< Two inputs that must belong together do not.

  kInternal = 30,  ///< A bug in Glassbox.
};

/// The enumerator's name without the leading `k`, for messages and JSON.
/// No `default:` on purpose: -Wswitch reports a code added without a name.
constexpr std::string_view to_string(Error error) {
  switch (error) {
    case Error::kOk: return "Ok";
    case Error::kInvalidArgument: return "InvalidArgument";
    case Error::kInvalidState: return "InvalidState";
    case Error::kNotFound: return "NotFound";
    case Error::kNotSupported: return "NotSupported";
    case Error::kOutOfResources: return "OutOfResources";
    case Error::kMemoryAllocationFailed: return "MemoryAllocationFailed";
    case Error::kAccessFailed: return "AccessFailed";
    case Error::kCorruptData: return "CorruptData";
    case Error::kVersionMismatch: return "VersionMismatch";
    case Error::kMismatch: return "Mismatch";
    case Error::kInternal: return "Internal";
  }
  return "Unknown";
}

}  // namespace glassbox

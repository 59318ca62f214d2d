#pragma once
// A small, exception-free wrapper over libzip for whole archives held in
// memory: the ETRecord writes all entries at once and reads all of them at
// once, so nothing else is needed.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::etrecord::internal {

// Entry name -> bytes; std::map so archives are written in name order.
using ZipEntries = std::map<std::string, std::vector<std::uint8_t>, std::less<>>;

// Limits that keep a hostile archive (a zip bomb) from exhausting memory or
// time; checked on the declared sizes before anything is inflated, and each
// entry is inflated no further than its declared size.
struct ZipLimits {
  // An ETRecord with reference outputs holds one entry per source op: a
  // detector with its post-processing has 3,000 (zoo ssdlite).
  std::size_t max_entries = 65536;
  std::uint64_t max_entry_bytes = std::uint64_t{1} << 30;
  std::uint64_t max_total_bytes = std::uint64_t{2} << 30;
};
inline constexpr std::size_t kMaxZipEntries = ZipLimits{}.max_entries;
inline constexpr std::uint64_t kMaxEntryBytes = ZipLimits{}.max_entry_bytes;

// A deflated archive with a fixed timestamp on every entry, so the same
// entries always give the same bytes.
StatusOr<std::vector<std::uint8_t>> write_zip(const ZipEntries& entries);

// Every entry of `archive` (checked against its CRC). Errors are
// kCorruptData prefixed with `source` (a file name for messages): not a zip,
// truncated, too many or too large entries (per entry or in total, beyond
// `limits`), an entry name that is empty, absolute, has a ".." component,
// a backslash or a control character, duplicate names.
StatusOr<ZipEntries> read_zip(std::span<const std::uint8_t> archive, std::string_view source,
                              const ZipLimits& limits = {});

}  // namespace glassbox::etrecord::internal

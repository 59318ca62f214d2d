#pragma once
// The interned delegate metadata behind ETDumpGen. Not part of the public
// API; in a public header only because ETDumpGen holds it by value.
//
// Why. A delegate attaches the same few byte strings to its events with
// every execution (an operator's kind, the name of the kernel that ran it).
// Copied per event, each takes a second 32-byte record and its own vector
// in the ETDump. Interned, the event is one record whose flags name the
// string, and the ETDump holds each string once, shared by every event that
// carries it (FlatBuffers lets tables share a vector). Measured on the
// encoders on oneDNN, the copies cost about 0.5-1% of the model's time
// (docs/benchmarks.md, "Profiling overhead on real programs").
//
// Correctness comes first: an event gets an interned string only if its
// bytes equal the stored copy, compared on every event, so a delegate that
// rewrites a buffer between events still gets the bytes it passed.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "glassbox/core/mutex.h"

namespace glassbox::etdump::internal {

class RecordStore;

class MetadataTable {
 public:
  // Numbers 1..kMaxEntries name an entry in five bits of Record.flags
  // (see kInternedMetadataShift); 0 is "not interned".
  static constexpr std::uint32_t kMaxEntries = 31;
  // Longer metadata is copied per event, as before.
  static constexpr std::size_t kMaxLength = 112;

  struct alignas(64) Entry {
    std::uint32_t length = 0;
    // Serialization scratch: where the entry's byte vector went.
    std::uint32_t fb_offset = 0;
    std::uint8_t bytes[kMaxLength] = {};
  };

  // `budget` pays for each entry's vector in the ETDump once, when the
  // entry is made (see serialized_bytes).
  void init(RecordStore* budget) { budget_ = budget; }

  // The number of an entry whose bytes equal [data, data + length),
  // interning them on first sight; 0 when they are longer than
  // kMaxLength, the table is full or the budget is short. Thread-safe:
  // lookups take no lock, a new entry takes a mutex.
  [[gnu::always_inline]] std::uint32_t intern(const void* data, std::size_t length) {
    const std::uint64_t word = cache_[cache_index(data)].load(std::memory_order_acquire);
    const std::uint32_t number = static_cast<std::uint32_t>(word & kNumberMask);
    const bool same_address = number != 0 && (word >> kAddressShift) == address_key(data);
    if (same_address && matches(entries_[number - 1], data, length)) [[likely]] {
      return number;
    }
    // A buffer the delegate rewrites with new bytes every event (counters,
    // say) comes back here each time: once the table is full, it is
    // copied at once, without a search.
    if (same_address && size() == kMaxEntries) return 0;
    return intern_slow(data, length);
  }

  std::uint32_t size() const { return count_.load(std::memory_order_acquire); }
  // 1 <= number <= size().
  const Entry& entry(std::uint32_t number) const { return entries_[number - 1]; }
  Entry& entry(std::uint32_t number) { return entries_[number - 1]; }

  // Forgets every entry (no thread may be logging).
  void clear();

  // An entry's byte vector in the ETDump: length word, bytes, padding to
  // 4, and 4 of alignment slack.
  static constexpr std::size_t serialized_bytes(std::size_t length) {
    return (4 + length + 3) / 4 * 4 + 4;
  }

 private:
  // A cache word is (address << kAddressShift) | number, read and written
  // in one piece so that a racing update can never pair one entry's
  // address with another's number; the byte compare guards the rest.
  static constexpr unsigned kAddressShift = 8;
  static constexpr std::uint64_t kNumberMask = 0xff;
  static constexpr std::size_t kCacheSize = 64;

  static std::uint64_t address_key(const void* data) {
    return reinterpret_cast<std::uintptr_t>(data);
  }
  static std::size_t cache_index(const void* data) {
    return (reinterpret_cast<std::uintptr_t>(data) >> 3) & (kCacheSize - 1);
  }
  static bool matches(const Entry& e, const void* data, std::size_t length);
  static std::uint32_t hash(const void* data, std::size_t length);
  // Past a cache miss: compares hashes first, so metadata that is never
  // the same twice (a delegate logging counters) costs a hash and a scan
  // of 124 bytes of hashes, not a byte compare per entry.
  std::uint32_t find(const void* data, std::size_t length, std::uint32_t hash) const;
  std::uint32_t intern_slow(const void* data, std::size_t length);

  std::atomic<std::uint64_t> cache_[kCacheSize] = {};
  std::atomic<std::uint32_t> count_{0};
  std::uint32_t hashes_[kMaxEntries] = {};
  Mutex insert_mutex_;
  RecordStore* budget_ = nullptr;
  Entry entries_[kMaxEntries];
};

}  // namespace glassbox::etdump::internal

#include "glassbox/etdump/internal/metadata_table.h"

#include <cstring>

#include "glassbox/etdump/internal/etdump_gen_storage.h"

namespace glassbox::etdump::internal {

bool MetadataTable::matches(const Entry& e, const void* data, std::size_t length) {
  return e.length == length && std::memcmp(e.bytes, data, length) == 0;
}

std::uint32_t MetadataTable::hash(const void* data, std::size_t length) {
  // 64-bit words, multiply and fold: a few cycles a word.
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ length;
  std::size_t i = 0;
  for (; i + 8 <= length; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, bytes + i, length - i);
  h = (h ^ tail) * 0xc4ceb9fe1a85ec53ull;
  return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// Entries and their hashes are written before count_ is raised (release)
// and never change until clear(), so reading below size() needs no lock.
std::uint32_t MetadataTable::find(const void* data, std::size_t length, std::uint32_t h) const {
  const std::uint32_t n = size();
  for (std::uint32_t i = 0; i < n; ++i) {
    if (hashes_[i] == h && matches(entries_[i], data, length)) return i + 1;
  }
  return 0;
}

std::uint32_t MetadataTable::intern_slow(const void* data, std::size_t length) {
  if (length == 0 || length > kMaxLength) return 0;
  const std::uint32_t h = hash(data, length);
  std::uint32_t number = find(data, length, h);
  if (number == 0) {
    if (size() == kMaxEntries) return 0;
    const std::lock_guard<Mutex> lock(insert_mutex_);
    const std::uint32_t seen = size();
    // Another thread may have added it since the search above.
    number = find(data, length, h);
    if (number == 0) {
      if (seen == kMaxEntries || budget_ == nullptr || !budget_->charge(serialized_bytes(length))) {
        return 0;
      }
      Entry& e = entries_[seen];
      e.length = static_cast<std::uint32_t>(length);
      e.fb_offset = 0;
      std::memcpy(e.bytes, data, length);
      hashes_[seen] = h;
      count_.store(seen + 1, std::memory_order_release);
      number = seen + 1;
    }
  }
  // Addresses too high for the packed word are simply not cached.
  if ((address_key(data) >> (64 - kAddressShift)) == 0) {
    cache_[cache_index(data)].store((address_key(data) << kAddressShift) | number,
                                    std::memory_order_release);
  }
  return number;
}

void MetadataTable::clear() {
  for (std::atomic<std::uint64_t>& word : cache_) word.store(0, std::memory_order_relaxed);
  count_.store(0, std::memory_order_release);
}

}  // namespace glassbox::etdump::internal

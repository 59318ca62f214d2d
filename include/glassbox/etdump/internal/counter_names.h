#pragma once
// The names of delegate counters behind ETDumpGen (ETDump.counter_names).
// Not part of the public API; in a public header only because ETDumpGen
// holds it by value.
//
// A counter is stored as a kCounter record naming its index here; the
// name's text lives in ETDumpGen's NameTable (interned once, written once),
// and this table keeps which name slots are counter names, in the order
// they were first seen: that order is ETDump.counter_names. Fixed size, so
// recording counters never allocates.

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "glassbox/core/mutex.h"

namespace glassbox::etdump::internal {

class RecordStore;

class CounterNameTable {
 public:
  // Distinct counter names one dump holds.
  static constexpr std::uint32_t kMaxNames = 32;
  // What the dump's counters cost once, charged with the first name: the
  // four ProfileEvent vtables with a counters field (28 bytes each), the
  // root vtable's extra field (4), and the counter_names vector (length,
  // alignment and an offset a name). See ETDumpWriter.
  static constexpr std::size_t kOutputBytes = 4 * 28 + 4 + 16 + 4 * kMaxNames;
  // Serialized bytes of an event's `n` counters (16 each, the vector's
  // length and alignment, and the table's field): charged by their slots.
  static constexpr std::size_t event_bytes(std::size_t n) { return 16 * n + 16; }

  void init(RecordStore* budget) { budget_ = budget; }

  // The counter index of the name interned in name slot `name_slot`,
  // adding it on first sight; kFull when the table is full or the budget
  // is short. Thread-safe: lookups take no lock, a new name a mutex.
  static constexpr std::uint32_t kFull = 0xffffffffu;
  std::uint32_t index_of(std::uint32_t name_slot);

  std::uint32_t size() const { return count_.load(std::memory_order_acquire); }
  // 0 <= index < size().
  std::uint32_t name_slot(std::uint32_t index) const {
    return slots_[index].load(std::memory_order_relaxed);
  }
  // Forgets every name (no thread may be logging).
  void clear() { count_.store(0, std::memory_order_relaxed); }

 private:
  std::uint32_t find(std::uint32_t name_slot, std::uint32_t n) const;

  // Written before count_ is raised (release), never changed until clear().
  std::atomic<std::uint32_t> slots_[kMaxNames] = {};
  std::atomic<std::uint32_t> count_{0};
  Mutex insert_mutex_;
  RecordStore* budget_ = nullptr;
};

}  // namespace glassbox::etdump::internal

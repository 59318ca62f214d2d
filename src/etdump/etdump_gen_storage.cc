#include "glassbox/etdump/internal/etdump_gen_storage.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace glassbox::etdump::internal {
namespace {

constexpr std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

std::uint32_t fnv1a(const char* text, std::size_t* length) {
  std::uint32_t h = 2166136261u;
  std::size_t n = 0;
  for (; text[n] != '\0'; ++n) {
    h ^= static_cast<unsigned char>(text[n]);
    h *= 16777619u;
  }
  *length = n;
  return h;
}

// The smallest page size of the targets: writing one byte this far apart
// faults in every page of a range.
constexpr std::size_t kPageBytes = 4096;

// Writes a zero into every page of [bytes, bytes + length), so that the
// page faults of fresh memory are taken now rather than by the event that
// first writes there. Volatile: the compiler may know the memory is zero
// already and drop plain stores of zero.
void fault_in_with_zeros(std::uint8_t* bytes, std::size_t length) {
  volatile std::uint8_t* p = bytes;
  for (std::size_t offset = 0; offset < length; offset += kPageBytes) p[offset] = 0;
  if (length != 0) p[length - 1] = 0;
}

}  // namespace

// ---- Arena -----------------------------------------------------------------

void Arena::init_fixed(std::uint8_t* top, RecordStore* budget) {
  fixed_ = true;
  top_ = top;
  budget_ = budget;
  clear();
}

void Arena::init_heap(RecordStore* budget) {
  fixed_ = false;
  budget_ = budget;
  clear();
}

std::uint8_t* Arena::allocate(std::size_t size, std::size_t output_bytes) {
  const std::size_t need = align8(size == 0 ? 1 : size);
  std::lock_guard<Mutex> lock(mutex_);
  if (budget_ == nullptr || !budget_->charge(need + output_bytes)) return nullptr;
  if (fixed_) {
    // The budget keeps the arena clear of every record that fits; this
    // only guards against a wrong charge.
    if (low_ == nullptr) return nullptr;
    low_ -= need;
    return low_;
  }
  if (!has_room(need)) return nullptr;
  std::uint8_t* out = base_ + used_;
  used_ += need;
  return out;
}

bool Arena::has_room(std::size_t need) {
  if (base_ != nullptr && need <= size_ - used_) return true;
  // A new chunk (the rest of the current one is left unused); an item
  // larger than a chunk gets one of its own size.
  const std::size_t chunk = need > kHeapChunk ? need : kHeapChunk;
  std::unique_ptr<std::uint8_t[]> memory(new (std::nothrow) std::uint8_t[chunk]);
  if (memory == nullptr) return false;
  base_ = memory.get();
  size_ = chunk;
  used_ = 0;
  heap_chunks_.push_back(std::move(memory));
  return true;
}

void Arena::reserve(std::size_t size) {
  const std::size_t need = align8(size);
  std::lock_guard<Mutex> lock(mutex_);
  // Without room, allocate() tries again.
  if (!fixed_ && need != 0 && has_room(need)) fault_in_with_zeros(base_ + used_, need);
}

void Arena::mark_unwritten(Record* slots, std::uint64_t count) {
  std::lock_guard<Mutex> lock(mutex_);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (reinterpret_cast<std::uint8_t*>(slots + i + 1) > low_) return;
    slots[i].kind = RecordKind::kEmpty;
  }
}

void Arena::clear() {
  std::lock_guard<Mutex> lock(mutex_);
  low_ = top_;
  used_ = 0;
  if (!fixed_) {
    heap_chunks_.clear();
    base_ = nullptr;
    size_ = 0;
  }
}

// ---- RecordStore -----------------------------------------------------------

RecordStore::~RecordStore() {
  // Heap chunks are owned here; a caller's buffer is not.
  if (fixed_ == nullptr) clear();
}

void RecordStore::init_fixed(Record* base, std::uint64_t capacity, std::int64_t budget) {
  fixed_ = base;
  capacity_ = capacity;
  set_limit(budget);
  clear();
}

void RecordStore::set_limit(std::int64_t budget) {
  const std::int64_t slots = budget / static_cast<std::int64_t>(kSlotBytes);
  initial_limit_ = std::min(slots, static_cast<std::int64_t>(capacity_));
}

void RecordStore::init_heap(std::uint64_t max_records, std::int64_t budget,
                            LargeBuffer::Pages slab_pages) {
  fixed_ = nullptr;
  slab_pages_ = slab_pages;
  // On a 32-bit target a record count past the address space cannot be
  // indexed: refused like a failed allocation, never truncated.
  const std::uint64_t chunks = (max_records + kChunkSize - 1) >> kChunkShift;
  const bool addressable = chunks <= SIZE_MAX / sizeof(std::atomic<Record*>);
  num_chunks_ = addressable ? static_cast<std::size_t>(chunks) : 0;
  capacity_ = std::uint64_t{num_chunks_} << kChunkShift;
  const std::size_t num_slabs = (num_chunks_ + (1u << kSlabShift) - 1) >> kSlabShift;
  chunks_.reset(new (std::nothrow) std::atomic<Record*>[num_chunks_]);
  slabs_.reset(new (std::nothrow) LargeBuffer[num_slabs]);
  if (!addressable || chunks_ == nullptr || slabs_ == nullptr) {
    num_chunks_ = 0;
    capacity_ = 0;
  }
  set_limit(budget);
  for (std::size_t i = 0; i < num_chunks_; ++i) chunks_[i].store(nullptr);
  clear();
}

bool RecordStore::charge(std::size_t bytes) {
  const auto slots = static_cast<std::int64_t>((bytes + kSlotBytes - 1) / kSlotBytes);
  const std::int64_t left = limit_.fetch_sub(slots) - slots;
  // See claim_run(): both sides take their own counter first, then read
  // the other's.
  if (static_cast<std::int64_t>(next_.load()) > left) {
    limit_.fetch_add(slots);
    return false;
  }
  return true;
}

RecordStore::RunClaim RecordStore::claim_run(std::uint32_t count) {
  const std::uint64_t want = std::max<std::uint64_t>(count, kRunSlots);
  RunClaim c;
  // Sequentially consistent (on x86 as cheap as relaxed): with the same
  // order in charge(), of a claim and a charge racing at least one sees
  // the other, so together they never overdraw the budget.
  c.index = next_.fetch_add(want);
  const std::int64_t usable = limit_.load() - static_cast<std::int64_t>(c.index);
  const std::uint64_t take = usable <= 0 ? 0 : std::min(want, static_cast<std::uint64_t>(usable));
  c.ok = take >= count;
  c.spare_first = c.ok ? c.index + count : c.index;
  c.spare_end = c.index + take;
  c.lost_first = c.index + take;
  c.lost_end = c.index + want;
  ClaimRun& run = tls_claim_run;
  run.store = this;
  run.epoch = epoch_.load(std::memory_order_relaxed);
  run.next = c.spare_first;
  run.end = c.spare_end;
  return c;
}

void RecordStore::new_epoch() {
  static std::atomic<std::uint64_t> next_epoch{1};
  epoch_.store(next_epoch.fetch_add(1, std::memory_order_relaxed), std::memory_order_relaxed);
}

std::uint64_t RecordStore::event_capacity() const {
  const std::int64_t left = limit_.load(std::memory_order_relaxed);
  return left > 0 ? static_cast<std::uint64_t>(left) : 0;
}

Record* RecordStore::allocate_chunk(std::size_t chunk_index) {
  std::lock_guard<Mutex> lock(grow_mutex_);
  Record* chunk = chunks_[chunk_index].load(std::memory_order_acquire);
  if (chunk != nullptr) return chunk;  // another thread won the race
  // The first 16 chunks are malloc's, one at a time: reused from one
  // recording to the next and allocated only as used, so a short recording
  // costs little. Later chunks are carved from slabs of 16 (2 MiB), of
  // fresh huge pages unless ETDumpGenOptions::heap_huge_pages is off: a
  // million events fault in 15 huge pages rather than 7,680 small ones,
  // which in a VM was the larger part of heap mode's end-to-end cost
  // (docs/benchmarks.md). Zeroed either way, so unwritten slots read as
  // kEmpty. calloc, not new[](): fresh pages from the kernel are already
  // zero, and calloc knows it.
  static_assert(std::is_trivial_v<Record>);
  const std::size_t slab_index = chunk_index >> kSlabShift;
  if (slab_index == 0) {
    chunk = static_cast<Record*>(std::calloc(kChunkSize, sizeof(Record)));
  } else {
    LargeBuffer& slab = slabs_[slab_index];
    if (slab.data() == nullptr && !slab.allocate(sizeof(Record) * (kChunkSize << kSlabShift),
                                                 slab_pages_, LargeBuffer::Fill::kZero)) {
      return nullptr;
    }
    const std::size_t within = chunk_index & ((1u << kSlabShift) - 1);
    chunk = reinterpret_cast<Record*>(slab.data()) + (within << kChunkShift);
  }
  chunks_[chunk_index].store(chunk, std::memory_order_release);
  return chunk;
}

void RecordStore::reserve(std::uint64_t count) {
  if (fixed_ != nullptr) return;
  // No further than the budget lets claims go: those slots could never
  // be used.
  const std::int64_t limit = limit_.load(std::memory_order_relaxed);
  const std::uint64_t last =
      std::min(capacity_, limit > 0 ? static_cast<std::uint64_t>(limit) : std::uint64_t{0});
  const std::uint64_t first = size();
  if (first >= last) return;
  const std::uint64_t end = count < last - first ? first + count : last;
  // Chunk indices are below num_chunks_ (end <= capacity_), so size_t.
  for (auto c = static_cast<std::size_t>(first >> kChunkShift);
       (std::uint64_t{c} << kChunkShift) < end; ++c) {
    Record* chunk = chunks_[c].load(std::memory_order_acquire);
    if (chunk == nullptr) chunk = allocate_chunk(c);
    if (chunk == nullptr) return;  // claims will retry, and count a drop if it fails again
    // Fresh pages are mapped lazily: the first write to each would take a
    // page fault (several microseconds in a VM) in the middle of a timed
    // execution. Writing a zero to every page of the unclaimed slots now
    // takes those faults here. The slots stay zero, so kEmpty.
    const std::uint64_t chunk_first = std::uint64_t{c} << kChunkShift;
    const std::uint64_t from = std::max(first, chunk_first) - chunk_first;
    const std::uint64_t to = std::min(end, chunk_first + kChunkSize) - chunk_first;
    fault_in_with_zeros(reinterpret_cast<std::uint8_t*>(chunk + from),
                        static_cast<std::size_t>(to - from) * sizeof(Record));
  }
}

void RecordStore::clear() {
  // Caller-buffer slots are not cleared: every claimed slot is written,
  // by its event or by Arena::mark_unwritten.
  if (fixed_ == nullptr) {
    // The first slab's chunks are malloc's; the others are in slabs.
    const std::size_t first_slab = std::min<std::size_t>(num_chunks_, 1u << kSlabShift);
    for (std::size_t i = 0; i < num_chunks_; ++i) {
      Record* chunk = chunks_[i].exchange(nullptr);
      if (i < first_slab) std::free(chunk);
    }
    const std::size_t num_slabs = (num_chunks_ + (1u << kSlabShift) - 1) >> kSlabShift;
    for (std::size_t i = 1; i < num_slabs; ++i) slabs_[i].release();
  }
  limit_.store(initial_limit_);
  next_.store(0, std::memory_order_relaxed);
  new_epoch();
}

// ---- NameTable -------------------------------------------------------------

std::size_t NameTable::slots_for(std::size_t max_names) {
  // Open addressing at most half full keeps probe sequences short.
  std::size_t n = 16;
  while (n < 2 * max_names) n <<= 1;
  return n;
}

void NameTable::init(NameSlot* slots, std::size_t num_slots, std::size_t max_names, Arena* arena) {
  slots_ = slots;
  num_slots_ = num_slots;
  max_names_ = max_names;
  arena_ = arena;
  for (std::size_t i = 0; i < num_slots_; ++i) new (&slots_[i]) NameSlot{};
  clear();
}

void NameTable::clear() {
  for (std::size_t i = 0; i < num_slots_; ++i) {
    slots_[i].text.store(nullptr, std::memory_order_relaxed);
    slots_[i].fb_offset = 0;
  }
  for (CacheEntry& c : cache_) c.key.store(nullptr, std::memory_order_relaxed);
  used_ = 0;
}

std::uint32_t NameTable::find(const char* text, std::uint32_t hash, std::size_t length) const {
  const std::size_t mask = num_slots_ - 1;
  for (std::size_t i = hash & mask, probes = 0; probes < num_slots_; i = (i + 1) & mask, ++probes) {
    const char* stored = slots_[i].text.load(std::memory_order_acquire);
    if (stored == nullptr) return kNoName;
    if (slots_[i].hash == hash && slots_[i].length == length &&
        std::memcmp(stored, text, length) == 0) {
      return static_cast<std::uint32_t>(i);
    }
  }
  return kNoName;
}

std::uint32_t NameTable::intern(const char* text) {
  if (num_slots_ == 0) return kNoName;
  // Fast path: the same pointer as last time (names are usually literals).
  // The content check keeps it correct for a reused buffer, and makes a
  // torn key/slot pair from a racing update harmless.
  const auto addr = reinterpret_cast<std::uintptr_t>(text);
  CacheEntry& entry = cache_[(addr >> 3) & (kCacheSize - 1)];
  if (entry.key.load(std::memory_order_relaxed) == text) {
    const std::uint32_t index = entry.slot.load(std::memory_order_relaxed);
    const char* stored = slots_[index].text.load(std::memory_order_acquire);
    if (stored != nullptr && std::strcmp(stored, text) == 0) return index;
  }
  std::size_t length = 0;
  const std::uint32_t hash = fnv1a(text, &length);
  std::uint32_t index = find(text, hash, length);
  if (index == kNoName) index = insert(text);
  if (index != kNoName) {
    entry.slot.store(index, std::memory_order_relaxed);
    entry.key.store(text, std::memory_order_relaxed);
  }
  return index;
}

std::uint32_t NameTable::insert(const char* text) {
  std::size_t length = 0;
  const std::uint32_t hash = fnv1a(text, &length);
  std::lock_guard<Mutex> lock(insert_mutex_);
  // Another thread may have inserted it while we waited.
  std::uint32_t index = find(text, hash, length);
  if (index != kNoName) return index;
  if (used_ >= max_names_) return kNoName;
  std::uint8_t* copy = arena_->allocate(length + 1, output_bytes(length));
  if (copy == nullptr) return kNoName;
  std::memcpy(copy, text, length + 1);
  const std::size_t mask = num_slots_ - 1;
  std::size_t i = hash & mask;
  while (slots_[i].text.load(std::memory_order_relaxed) != nullptr) {
    i = (i + 1) & mask;
  }
  slots_[i].length = static_cast<std::uint32_t>(length);
  slots_[i].hash = hash;
  slots_[i].fb_offset = 0;
  slots_[i].text.store(reinterpret_cast<const char*>(copy), std::memory_order_release);
  ++used_;
  return static_cast<std::uint32_t>(i);
}

}  // namespace glassbox::etdump::internal

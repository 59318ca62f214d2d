#pragma once
// Layout-only types behind ETDumpGen: the 32-byte event record, the record
// store with its byte budget, the name table and the arena. Not part of the
// public API; in a public header only because ETDumpGen holds them by
// value, so that caller-buffer mode allocates nothing at all.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "glassbox/core/internal/large_buffer.h"
#include "glassbox/core/mutex.h"
#include "glassbox/runtime/event_tracer.h"

namespace glassbox::etdump::internal {

// The megabyte buffers of heap mode live in core (io reads large files into them too).
using glassbox::internal::LargeBuffer;

enum class RecordKind : std::uint8_t {
  kEmpty = 0,    // claimed but never written (dropped): skipped
  kProfile,      // a = start, b = end, id = name slot or kNoName
  kDelegateInt,  // a = start, b = end, id = int identifier
  kDelegateStr,  // a = start, b = end, id = name slot of the identifier
  kMetadata,     // just before a delegate record with kHasMetadata: see
                 // kInlineMetadata
  kAllocator,    // id = name slot, b = 1-based allocator id
  kAllocation,   // id = allocator id, a = size
  kDebug,        // a = value blob, id = delegate id (see flags)
  kCounter,      // a = value, id = index in ETDump.counter_names; the
                 // counters of a delegate event come just before it (and
                 // before its metadata): [counters] [metadata] [event]
};

// Record.flags bits.
inline constexpr std::uint8_t kTimeSourceMask = 0x3;  // runtime::TimeSource
inline constexpr std::uint8_t kHasMetadata = 0x4;     // a kMetadata precedes
inline constexpr std::uint8_t kDebugIdInt = 0x8;      // kDebug: id is int
inline constexpr std::uint8_t kDebugIdStr = 0x10;     // kDebug: id is a name
inline constexpr std::uint8_t kDebugOutput = 0x20;    // kDebug: program output
// kDelegateInt/kDelegateStr: the flags' top five bits hold the number of
// the event's interned metadata (MetadataTable), 0 for none.
inline constexpr unsigned kInternedMetadataShift = 3;

inline constexpr std::uint32_t kNoName = 0xffffffffu;

// One event as logged: fixed size so that logging is a claim and a copy.
struct Record {
  std::uint64_t a;
  std::uint64_t b;
  std::uint32_t id;
  std::int32_t chain;
  std::int32_t instruction;
  RecordKind kind;
  std::uint8_t flags;
  std::uint16_t thread;
};
static_assert(sizeof(Record) == 32, "the hot-path budget is 32 bytes/event");
inline std::uint32_t interned_metadata(const Record& r) {
  return static_cast<std::uint32_t>(r.flags) >> kInternedMetadataShift;
}

// A kMetadata record, for metadata that is not interned (MetadataTable).
// Up to kInlineMetadata bytes are held in the record
// itself (its first 24 bytes; the length where `instruction` is); longer
// metadata fills metadata_slots(length) raw slots before it, with the
// length in `b`. So a delegate event with metadata is one claim of
// consecutive slots: [raw slots] [kMetadata] [event].
inline constexpr std::size_t kInlineMetadata = 24;
inline constexpr std::uint8_t kMetadataInline = 0x1;  // kMetadata: flags

constexpr std::uint64_t metadata_slots(std::uint64_t length) {
  return length <= kInlineMetadata ? 0 : (length + sizeof(Record) - 1) / sizeof(Record);
}
inline std::uint64_t metadata_length(const Record& header) {
  return (header.flags & kMetadataInline) != 0 ? static_cast<std::uint32_t>(header.instruction)
                                               : header.b;
}

// One event block, kept in the arena; blocks form a list from the newest.
struct BlockEntry {
  BlockEntry* previous;
  std::uint64_t first_record;
  std::uint64_t dropped_at_start;
  std::uint64_t rejected_at_start;
  std::uint64_t tensor_data_dropped_at_start;
  std::uint32_t name;
  std::int32_t bundled_input_index;
  std::uint32_t run;  // serialization scratch: where its RunData went
};

struct NameSlot {
  // Null while free. Published last (release) so that a reader that sees it
  // also sees length and hash.
  std::atomic<const char*> text;
  std::uint32_t length;
  std::uint32_t hash;
  std::uint32_t fb_offset;  // serialization scratch: 0 = not yet written
};

// Serialized-size budget. Every record slot is charged kSlotBytes, which
// covers the largest single-slot event in the ETDump (a profile or delegate
// event: 52 bytes of tables and 4 of the events vector) plus 4 bytes of
// serialization scratch; anything larger (names, values, blocks) charges
// the rest when it is logged. The ETDump is written over the records it
// has consumed, so a record's 32 bytes are not charged again: see
// docs/benchmarks.md and etdump_gen_serialize.cc for the bound.
inline constexpr std::size_t kSlotBytes = 60;
inline constexpr std::size_t kSlotOutputBytes = 56;  // kSlotBytes - scratch
// The serialized size of one block (RunData, its two vectors and its entry
// in run_data, with alignment), charged when it is created.
inline constexpr std::size_t kBlockOutputBytes = 48 + 8 + 8 + 4 + 8;
// The most the delegate time scales take: per backend its name (63 bytes,
// length and terminator: 68), its table (32 with a host clock offset)
// with alignment (4 + 4) and its vector slot (4), then the vector's
// length and alignment.
inline constexpr std::size_t kDelegateTimeScalesOutputBytes =
    runtime::EventTracer::kMaxDelegateTimeScales * (68 + 40 + 4) + 8;
// Everything written once per dump (vtables, root, shared objects, the
// implicit first block, fingerprint, producer and delegate time scales),
// with alignment slack.
inline constexpr std::size_t kFixedOutputBytes = 2048 + kDelegateTimeScalesOutputBytes;
// Limits on one logged value (larger ones are refused, not truncated).
inline constexpr std::size_t kMaxLoggedTensorDims = 32;
inline constexpr std::size_t kMaxLoggedTensorList = 64;

class RecordStore;

// The record slots one thread has claimed ahead from one store, for its
// next events: see RecordStore::claim_from_run(). Constant-initialised, so
// reaching it is one thread-pointer-relative load; with the thread's index
// in the same cache line, an event touches one line of thread-local data.
struct alignas(64) ClaimRun {
  const RecordStore* store = nullptr;
  std::uint64_t epoch = 0;  // the store's epoch when claimed
  std::uint64_t next = 0;
  std::uint64_t end = 0;
  // The thread's index in Record.thread, plus one (0: not assigned yet).
  std::uint32_t thread_plus_one = 0;
};
inline constinit thread_local ClaimRun tls_claim_run{};

// Bump allocator for variable-size data (name text, value blobs, blocks).
// Thread-safe; not on the event hot path. Every allocation also charges its
// serialized size to the record store's budget. In caller-buffer mode it
// grows down from the end of the region the records grow up from.
class Arena {
 public:
  void init_fixed(std::uint8_t* top, RecordStore* budget);
  void init_heap(RecordStore* budget);
  // 8-aligned space for `size` bytes, charging `size + output_bytes` to
  // the budget; null when either runs out.
  std::uint8_t* allocate(std::size_t size, std::size_t output_bytes);
  // Heap mode: makes the next `size` bytes of allocations come from memory
  // already allocated and faulted in (nothing is charged until they are
  // allocated). A no-op in caller-buffer mode.
  void reserve(std::size_t size);
  // Caller-buffer mode: the lowest arena byte (the ETDump ends below it).
  std::uint8_t* low() const { return low_; }
  // Caller-buffer mode: marks the slots of a failed claim empty, those
  // below the arena (the others are never read). Slots are not cleared
  // in advance, so this is what keeps a failed claim from reading as
  // whatever the buffer held.
  void mark_unwritten(Record* slots, std::uint64_t count);
  void clear();

 private:
  static constexpr std::size_t kHeapChunk = 64 * 1024;

  // Heap mode, mutex held: whether the current chunk has `need` bytes
  // free, starting a new chunk if not (false when that fails).
  bool has_room(std::size_t need);

  Mutex mutex_;
  bool fixed_ = false;
  RecordStore* budget_ = nullptr;
  std::uint8_t* top_ = nullptr;   // caller-buffer mode
  std::uint8_t* low_ = nullptr;   // caller-buffer mode
  std::uint8_t* base_ = nullptr;  // heap mode: current chunk
  std::size_t size_ = 0;
  std::size_t used_ = 0;
  std::vector<std::unique_ptr<std::uint8_t[]>> heap_chunks_;
};

// The array of records: one fixed block, or chunks allocated as they fill,
// and the byte budget records and arena share.
class RecordStore {
 public:
  static constexpr unsigned kChunkShift = 12;  // 4096 records, 128 KiB
  static constexpr std::uint64_t kChunkSize = std::uint64_t{1} << kChunkShift;
  // Heap chunks after the first 16 are carved from slabs of 16 (2 MiB, one
  // huge page): see allocate_chunk().
  static constexpr unsigned kSlabShift = 4;

  RecordStore() = default;
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;
  ~RecordStore();

  // `budget` bytes are shared by records (kSlotBytes each) and arena
  // charges.
  void init_fixed(Record* base, std::uint64_t capacity, std::int64_t budget);
  // `slab_pages`: where the chunks after the first 16 come from.
  void init_heap(std::uint64_t max_records, std::int64_t budget,
                 LargeBuffer::Pages slab_pages = LargeBuffer::Pages::kFreshHuge);

  static constexpr std::uint64_t kFull = ~std::uint64_t{0};

  // Slots a thread claims ahead of its events in one atomic add: the
  // hot path then claims from its own run with plain loads and stores.
  static constexpr std::uint64_t kRunSlots = 16;

  // The hot path: `count` slots from this thread's run, when it has them
  // and no block has begun since it was claimed (false otherwise: then
  // claim_run()). The run's epoch keeps a block's events in its block.
  [[gnu::always_inline]] bool claim_from_run(std::uint32_t count, std::uint64_t* index) {
    ClaimRun& run = tls_claim_run;
    if (!run_has(run, count)) return false;
    *index = run.next;
    run.next += count;
    return true;
  }

  // The hot path's claim of one slot, written so that a caller without
  // another call on its path saves no registers: the next slot of this
  // thread's run when it has one, no block has begun since, and (heap
  // mode) its chunk exists. Null otherwise; then claim_from_run() and
  // slot() handle it.
  [[gnu::always_inline]] Record* claim_allocated_slot_from_run() {
    ClaimRun& run = tls_claim_run;
    if (!run_has(run, 1)) return nullptr;
    Record* record = allocated_slot(run.next);
    if (record != nullptr) ++run.next;
    return record;
  }

  // What claim_run() took: `count` slots at `index` when `ok`; the
  // thread's new run [spare_first, spare_end), slots nobody else will
  // use and that no event may have written yet; and [lost_first,
  // lost_end), slots past the budget, never usable (see
  // Arena::mark_unwritten). A run left unused when a block begins stays
  // empty and is skipped by serialization.
  struct RunClaim {
    bool ok = false;
    std::uint64_t index = 0;
    std::uint64_t spare_first = 0, spare_end = 0;
    std::uint64_t lost_first = 0, lost_end = 0;
  };
  // Claims max(count, kRunSlots) slots in one atomic add: `count` for
  // this event, the rest as this thread's run. Near the budget it takes
  // what is left, so a caller buffer holds as many events as without runs.
  RunClaim claim_run(std::uint32_t count);

  // Ends every thread's run (a block begins): their later events claim
  // slots after the block's first record.
  void new_epoch();

  // Takes `bytes` from the budget; false (and nothing taken) when short.
  bool charge(std::size_t bytes);

  // Slots this store holds physically.
  std::uint64_t capacity() const { return capacity_; }
  // Single-slot events that fit in total, given the charges so far.
  std::uint64_t event_capacity() const;
  // Slots claimed so far, capped at the physical capacity. In
  // caller-buffer mode slots at or above `limit` are never valid records.
  std::uint64_t size() const {
    const std::uint64_t n = next_.load(std::memory_order_relaxed);
    return n < capacity_ ? n : capacity_;
  }
  // Bytes charged by the arena so far (not counting slots), rounded up
  // to whole slots.
  std::int64_t charged() const {
    return (initial_limit_ - limit_.load()) * static_cast<std::int64_t>(kSlotBytes);
  }
  // The slot for a claimed index below capacity; in heap mode allocates
  // its chunk on first touch. Null only if that allocation failed.
  Record* slot(std::uint64_t index) {
    if (Record* record = allocated_slot(index)) return record;
    Record* chunk = allocate_chunk(static_cast<std::size_t>(index >> kChunkShift));
    return chunk == nullptr ? nullptr : chunk + (index & (kChunkSize - 1));
  }
  // Read-only access for serialization: null for a never-allocated chunk.
  const Record* peek(std::uint64_t index) const { return allocated_slot(index); }
  Record* fixed_base() const { return fixed_; }
  // Heap mode: allocates now every chunk the next `count` slots fall in
  // (up to the capacity) and faults in their pages, so that claiming and
  // writing them later neither allocates nor takes a page fault. Runtime
  // thread, between executions; a no-op in caller-buffer mode.
  void reserve(std::uint64_t count);
  void clear();

 private:
  Record* allocate_chunk(std::size_t chunk_index);
  void set_limit(std::int64_t budget);
  // Whether this thread's run has `count` slots of this store, claimed
  // since the last block began.
  [[gnu::always_inline]] bool run_has(const ClaimRun& run, std::uint64_t count) const {
    return run.store == this && run.epoch == epoch_.load(std::memory_order_relaxed) &&
           run.end - run.next >= count;
  }
  // The slot for a claimed index below capacity, or null for a heap chunk
  // not allocated yet.
  [[gnu::always_inline]] Record* allocated_slot(std::uint64_t index) const {
    if (fixed_ != nullptr) return fixed_ + index;
    // index < capacity_, so its chunk is below num_chunks_ (a size_t).
    Record* chunk =
        chunks_[static_cast<std::size_t>(index >> kChunkShift)].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : chunk + (index & (kChunkSize - 1));
  }

  // What every event reads first, together (see ETDumpGen's members).
  // Unique across stores and blocks: a run from an earlier block, or from
  // a store that lived at the same address, never matches.
  std::atomic<std::uint64_t> epoch_{0};
  Record* fixed_ = nullptr;
  std::unique_ptr<std::atomic<Record*>[]> chunks_;
  std::unique_ptr<LargeBuffer[]> slabs_;  // heap mode, one per 16 chunks; [0] unused
  LargeBuffer::Pages slab_pages_ = LargeBuffer::Pages::kFreshHuge;
  // What a new run reads (every kRunSlots slots).
  std::atomic<std::uint64_t> next_{0};
  // The budget in slots: claims may end at or below it; arena charges
  // lower it (rounded up to whole slots), so a claim checks one number.
  std::atomic<std::int64_t> limit_{0};
  std::int64_t initial_limit_ = 0;
  std::uint64_t capacity_ = 0;
  std::size_t num_chunks_ = 0;
  Mutex grow_mutex_;
};

// Interned strings: each distinct name is copied once and named by its slot
// index. Lookups are lock-free; inserts take a mutex.
class NameTable {
 public:
  void init(NameSlot* slots, std::size_t num_slots, std::size_t max_names, Arena* arena);
  // The slot of `text`, interning it on first sight; kNoName when the
  // table or the arena is full.
  std::uint32_t intern(const char* text);
  const NameSlot& slot(std::uint32_t index) const { return slots_[index]; }
  NameSlot& slot(std::uint32_t index) { return slots_[index]; }
  std::size_t num_slots() const { return num_slots_; }
  void clear();

  static std::size_t slots_for(std::size_t max_names);
  // Serialized size of an interned string of `length` bytes.
  static constexpr std::size_t output_bytes(std::size_t length) {
    return (4 + length + 1 + 3) / 4 * 4 + 4;  // + alignment
  }

 private:
  struct CacheEntry {
    std::atomic<const char*> key{nullptr};
    std::atomic<std::uint32_t> slot{0};
  };
  static constexpr std::size_t kCacheSize = 256;

  std::uint32_t find(const char* text, std::uint32_t hash, std::size_t length) const;
  std::uint32_t insert(const char* text);

  NameSlot* slots_ = nullptr;
  std::size_t num_slots_ = 0;
  std::size_t max_names_ = 0;
  std::size_t used_ = 0;
  Arena* arena_ = nullptr;
  Mutex insert_mutex_;
  CacheEntry cache_[kCacheSize];
};

}  // namespace glassbox::etdump::internal

#pragma once
// Layout-only types behind ETDumpGen: the 32-byte event record, the record
// store, the name table and the arena. Not part of the public API; in a
// public header only because ETDumpGen holds them by value, so that
// caller-buffer mode allocates nothing at all.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace glassbox::etdump::internal {

enum class RecordKind : std::uint8_t {
  kEmpty = 0,    // claimed but never written (dropped): skipped
  kProfile,      // a = start, b = end, id = name slot or kNoName
  kDelegateInt,  // a = start, b = end, id = int identifier
  kDelegateStr,  // a = start, b = end, id = name slot of the identifier
  kMetadata,     // follows a delegate record: a = bytes, b = length
  kAllocator,    // id = name slot, b = 1-based allocator id
  kAllocation,   // id = allocator id, a = size
  kDebug,        // a = value blob, id = delegate id (see flags)
};

// Record.flags bits.
inline constexpr std::uint8_t kTimeSourceMask = 0x3;  // runtime::TimeSource
inline constexpr std::uint8_t kHasMetadata = 0x4;     // a kMetadata follows
inline constexpr std::uint8_t kDebugIdInt = 0x8;      // kDebug: id is int
inline constexpr std::uint8_t kDebugIdStr = 0x10;     // kDebug: id is a name
inline constexpr std::uint8_t kDebugOutput = 0x20;    // kDebug: program output

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

struct BlockEntry {
  std::uint64_t first_record;
  std::uint64_t dropped_at_start;
  std::uint64_t rejected_at_start;
  std::uint64_t tensor_data_dropped_at_start;
  std::uint32_t name;
  std::int32_t bundled_input_index;
  std::uint32_t run_offset;  // serialization scratch
};

struct NameSlot {
  // Null while free. Published last (release) so that a reader that sees it
  // also sees length and hash.
  std::atomic<const char*> text;
  std::uint32_t length;
  std::uint32_t hash;
  std::uint32_t fb_offset;  // serialization scratch: 0 = not yet written
};

// Worst-case serialized sizes, charged when an event is logged so that the
// ETDump always fits its region. Checked by the buffer-mode stress tests.
inline constexpr std::size_t kRecordOutputBound = 128;
inline constexpr std::size_t kBlockOutputBound = 192;
inline constexpr std::size_t kFixedOutputBound = 16 * 1024;
inline constexpr std::size_t kStringOutputOverhead = 8;
inline constexpr std::size_t kValueOutputBound = 192;
inline constexpr std::size_t kTensorOutputBound = 80;  // + 16 per dimension
// Limits on one logged value (larger ones are refused, not truncated).
inline constexpr std::size_t kMaxLoggedTensorDims = 32;
inline constexpr std::size_t kMaxLoggedTensorList = 64;

// Bump allocator for variable-size data (name text, metadata bytes, value
// blobs). Thread-safe; not on the int-id hot path.
class Arena {
 public:
  void init_fixed(std::uint8_t* base, std::size_t size, std::size_t output_capacity);
  void init_heap();
  // 8-aligned space for `size` bytes, charging `output_bound` bytes of
  // serialized size; null when either runs out.
  std::uint8_t* allocate(std::size_t size, std::size_t output_bound);
  void clear();

 private:
  static constexpr std::size_t kHeapChunk = 64 * 1024;

  std::mutex mutex_;
  bool fixed_ = false;
  std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
  std::size_t used_ = 0;
  std::size_t output_capacity_ = 0;
  std::size_t output_used_ = 0;
  std::vector<std::unique_ptr<std::uint8_t[]>> heap_chunks_;
};

// The array of records: one fixed block, or chunks allocated as they fill.
class RecordStore {
 public:
  static constexpr unsigned kChunkShift = 12;  // 4096 records, 128 KiB
  static constexpr std::uint64_t kChunkSize = std::uint64_t{1} << kChunkShift;

  RecordStore() = default;
  RecordStore(const RecordStore&) = delete;
  RecordStore& operator=(const RecordStore&) = delete;
  ~RecordStore();

  void init_fixed(Record* base, std::uint64_t capacity);
  void init_heap(std::uint64_t max_records);

  // Claims `count` consecutive slots; returns the first index, or
  // `capacity()` or more when the store is full.
  std::uint64_t claim(std::uint32_t count) {
    return next_.fetch_add(count, std::memory_order_relaxed);
  }
  std::uint64_t capacity() const { return capacity_; }
  // Records claimed so far (those past capacity were dropped).
  std::uint64_t size() const {
    const std::uint64_t n = next_.load(std::memory_order_relaxed);
    return n < capacity_ ? n : capacity_;
  }
  // The slot for a claimed index below capacity; in heap mode allocates
  // its chunk on first touch. Null only if that allocation failed.
  Record* slot(std::uint64_t index) {
    if (fixed_ != nullptr) return fixed_ + index;
    Record* chunk = chunks_[index >> kChunkShift].load(std::memory_order_acquire);
    if (chunk == nullptr) chunk = allocate_chunk(index >> kChunkShift);
    return chunk == nullptr ? nullptr : chunk + (index & (kChunkSize - 1));
  }
  // Read-only access for serialization: null for a never-allocated chunk.
  const Record* peek(std::uint64_t index) const;
  void clear();

 private:
  Record* allocate_chunk(std::uint64_t chunk_index);

  std::atomic<std::uint64_t> next_{0};
  std::uint64_t capacity_ = 0;
  Record* fixed_ = nullptr;
  std::unique_ptr<std::atomic<Record*>[]> chunks_;
  std::uint64_t num_chunks_ = 0;
  std::mutex grow_mutex_;
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
  std::mutex insert_mutex_;
  CacheEntry cache_[kCacheSize];
};

}  // namespace glassbox::etdump::internal

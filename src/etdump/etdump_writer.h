#pragma once
// Writes ETDump FlatBuffers by hand, back to front, straight into one
// buffer: no builder, no growing, no copying of the whole dump. Every table
// has a fixed layout, so its size is known when the event is logged (see
// kSlotBytes) and its vtable is shared: the writer emits every vtable once,
// at the top, and a table is then a handful of stores.
//
// Positions are distances from the end of the buffer (as in FlatBuffers'
// builder): an object written later sits lower, and every offset points
// from a lower to a higher address. Objects keep 8-byte scalars 8-byte
// aligned relative to the end; the final size is a multiple of 8, so they
// are aligned relative to the start too. Private to src/etdump.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "glassbox/etdump/internal/etdump_gen_storage.h"
#include "src/etdump/value_blob.h"

namespace glassbox::etdump::internal {

static_assert(std::endian::native == std::endian::little, "FlatBuffers are little-endian");

using Pos = std::uint32_t;

// Every vtable the writer can reference.
enum Vtable : std::uint8_t {
  kVtEventProfile,
  kVtEventAllocation,
  kVtEventDebug,
  // ProfileEvent: layout A (start_time at +4) and B (start_time at +8),
  // chosen by the alignment of the position, times the id shapes.
  kVtProfileNamedA,
  kVtProfileUnnamedA,
  kVtProfileIntA,
  kVtProfileStrA,
  kVtProfileNamedB,
  kVtProfileUnnamedB,
  kVtProfileIntB,
  kVtProfileStrB,
  kVtAllocationEvent,
  kVtAllocatorNamed,
  kVtAllocatorUnnamed,
  kVtDebugInt,
  kVtDebugStr,
  kVtDebugNone,
  kVtTensor,
  kVtInt,
  kVtDouble,
  kVtBool,
  kVtTensorList,
  kVtRunDataFirst,                      // + 2 * has_name + has_allocators
  kVtValueFirst = kVtRunDataFirst + 4,  // + 2 * ValueType member + has_output
  kVtDelegateTimeScale = kVtValueFirst + 2 * 8,
  kVtDelegateTimeScaleOffset,
  kVtRoot,
  // Delegate events with counters (written only in dumps that have them,
  // so that a dump without counters is byte for byte what it was).
  kVtProfileIntCountersA,
  kVtProfileStrCountersA,
  kVtProfileIntCountersB,
  kVtProfileStrCountersB,
  kNumVtables,
};

// The shape of a profile event: which identifier its reference field holds.
enum class ProfileShape : std::uint8_t { kNamed, kUnnamed, kDelegateInt, kDelegateStr };

// Serialized bytes of one debug event, with its events-vector slot and
// alignment: a value of ValueView::Kind `kind` with `num_tensors` tensors
// of `total_dims` dimensions in all. Charged when the value is logged.
std::size_t debug_event_bytes(std::uint8_t kind, std::size_t num_tensors, std::size_t total_dims);

class ETDumpWriter {
 public:
  // Writes down from `top` (8-aligned). The lowest byte it may touch rises
  // as records are read, so `fits` takes it each time.
  explicit ETDumpWriter(std::uint8_t* top) : top_(top), cur_(top) {}

  Pos size() const { return static_cast<Pos>(top_ - cur_); }
  std::uint8_t* cursor() const { return cur_; }
  // False once a write was refused for crossing the floor.
  bool ok() const { return ok_; }
  // True if `bytes` more fit above `floor` (the floor rises as records
  // below it are still to be read).
  bool fits(std::size_t bytes, const std::uint8_t* floor) {
    if (cur_ < floor || static_cast<std::size_t>(cur_ - floor) < bytes) ok_ = false;
    return ok_;
  }

  // The header: every vtable (those of counters only when `counters`),
  // the shared empty byte vector and the shared Bool(true) of program
  // outputs.
  void write_shared(bool counters = false);
  Pos string(const char* text, std::size_t length);

  // One profile or delegate event. `metadata` is the position of its byte
  // vector (metadata_vector()), or 0 for the shared empty one; `ref` the
  // name or string id position, or the int id.
  // `counters` is the position of its counters vector (counters()), or 0
  // for none (then only delegate shapes may have one).
  Pos profile_event(const Record& r, ProfileShape shape, std::uint32_t ref, Pos metadata,
                    Pos counters = 0);
  // A vector of Counter structs from `n` kCounter records.
  Pos counters(const Record* records, std::uint32_t n);
  // Reserves a byte vector of `length` bytes; returns where the caller
  // copies them (memmove-safe: the destination is never below the source
  // when the source lies below the cursor; up to kShortMetadata bytes they
  // do not overlap at all). Then call finish_metadata.
  static constexpr std::size_t kShortMetadata = 32;
  std::uint8_t* metadata_bytes(std::size_t length);
  Pos finish_metadata(std::size_t length);

  Pos allocation_event(const Record& r);
  Pos allocator(Pos name);  // 0: no name
  // A debug event from its value blob; `id_ref` as for profile events.
  Pos debug_event(const Record& r, std::uint32_t id_ref);

  // A vector of offsets to positions pushed from the last element to the
  // first: begin, push each, then end with the count.
  void begin_vector() { align(8); }
  void push_offset(Pos target) {
    cur_ -= 4;
    store32(cur_, size() - target);
  }
  Pos end_vector(std::uint32_t count) {
    cur_ -= 4;
    store32(cur_, count);
    const Pos at = size();
    align(8);
    return at;
  }

  struct RunFields {
    Pos name = 0;        // 0: none
    Pos allocators = 0;  // 0: none
    Pos events = 0;
    std::int32_t bundled_input_index = -1;
    std::uint64_t dropped = 0;
    std::uint64_t rejected = 0;
    std::uint64_t tensor_data_dropped = 0;
  };
  Pos run_data(const RunFields& run);

  // One DelegateTimeScale table; `backend` is its name's position,
  // `host_offset_ns` null when the delegate declared none.
  Pos delegate_time_scale(Pos backend, std::uint64_t numerator, std::uint64_t denominator,
                          const std::int64_t* host_offset_ns);

  struct RootFields {
    Pos run_data = 0;
    std::uint64_t tick_numerator = 1;
    std::uint64_t tick_denominator = 1;
    Pos fingerprint = 0;  // 0: none
    Pos producer = 0;
    std::uint64_t dropped_events = 0;
    std::uint64_t dropped_blocks = 0;
    Pos delegate_time_scales = 0;  // 0: none
    Pos counter_names = 0;         // 0: none
  };
  // Writes the root, the identifier, the root offset and the size prefix;
  // the dump is then [cursor(), top).
  void finish(const RootFields& root);

 private:
  static void store32(std::uint8_t* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
  static void store64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
  static void store16(std::uint8_t* p, std::uint16_t v) { std::memcpy(p, &v, 2); }

  void align(unsigned to) {
    while (size() % to != 0) {
      cur_ -= 4;
      store32(cur_, 0);
    }
  }
  // Starts a table of `Bytes` (zeroed) that uses vtable `vt`; returns its
  // position.
  template <std::size_t Bytes>
  Pos table(Vtable vt) {
    cur_ -= Bytes;
    std::memset(cur_, 0, Bytes);
    const Pos at = size();
    store32(cur_, static_cast<std::uint32_t>(static_cast<std::int32_t>(vtables_[vt] - at)));
    return at;
  }
  // Stores at table offset `field` of the table at `at` an offset to `target`.
  void offset_field(Pos at, unsigned field, Pos target) {
    store32(top_ - at + field, at - field - target);
  }
  std::uint8_t* field(Pos at, unsigned offset) { return top_ - at + offset; }
  void vtable(Vtable vt, std::uint16_t table_bytes, const std::uint16_t* fields, unsigned count);
  Pos tensor(const std::uint8_t*& cursor);
  Pos long_vector(const std::int64_t* values, std::size_t count);

  std::uint8_t* top_;
  std::uint8_t* cur_;
  bool ok_ = true;
  Pos vtables_[kNumVtables] = {};
  Pos empty_bytes_ = 0;
  Pos true_value_ = 0;
};

}  // namespace glassbox::etdump::internal

// ETDumpGen::get_etdump_data: turns the logged records into one ETDump
// FlatBuffer, written back to front by ETDumpWriter. Runs once per dump,
// off the hot path; in caller-buffer mode it allocates nothing.
//
// Why the caller-buffer dump fits over the records. Records are read from
// the last to the first, and each one's tables are written below what was
// written before. Every slot was charged kSlotBytes: 56 bytes of output (no
// event writes more than that per slot; larger ones charged the rest to
// the budget when logged) and 4 of scratch. So when records [0, g) are
// still unread, the bytes written so far are at most the fixed part, the
// arena's charges and 56 per slot at or above g, while the region holds
// 60 per slot in all: the cursor stays above slot g, the last unread byte.
// ETDumpWriter checks this before each event all the same (fits()), and a
// failed check is an error, never a write out of bounds.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

#include "glassbox/config.h"
#include "glassbox/etdump/etdump_gen.h"
#include "src/etdump/etdump_writer.h"
#include "src/etdump/value_blob.h"

namespace glassbox::etdump {

using internal::BlockEntry;
using internal::ETDumpWriter;
using internal::kNoName;
using internal::LargeBuffer;
using internal::Pos;
using internal::ProfileShape;
using internal::Record;
using internal::RecordKind;
using internal::RecordStore;

namespace {

// Scratch tags: the low bits of a position (all positions are 4-aligned).
constexpr std::uint32_t kTagEvent = 1;
constexpr std::uint32_t kTagAllocator = 2;
constexpr std::uint32_t kTagMask = 3;

// The largest output of a profile event: its tables, its metadata and its
// counters.
// (metadata is the length of bytes held in memory, so it fits a size_t.)
constexpr std::size_t profile_bytes(std::uint64_t metadata, std::uint32_t counters) {
  return 56 + 8 + static_cast<std::size_t>(metadata) +
         (counters != 0 ? internal::CounterNameTable::event_bytes(counters) : 0);
}

// Calls `f(index, first_slot, record)` for every record in [begin, end),
// last to first, skipping empty slots and treating a delegate event with
// metadata or counters and the slots before it as one group. `counters`:
// whether the dump has any (else no slot before an event is looked at).
template <class F>
void for_each_record_backward(const RecordStore& records, std::uint64_t begin, std::uint64_t end,
                              bool counters, F&& f) {
  std::uint64_t j = end;
  while (j > begin) {
    --j;
    const Record* r = records.peek(j);
    if (r == nullptr) {
      // A heap chunk never allocated: all of it is empty.
      j &= ~(RecordStore::kChunkSize - 1);
      j = std::max(j, begin);
      continue;
    }
    if (r->kind == RecordKind::kEmpty || r->kind == RecordKind::kMetadata ||
        r->kind == RecordKind::kCounter) {
      continue;
    }
    std::uint64_t first = j;
    if ((r->flags & internal::kHasMetadata) != 0 && j > begin) {
      const Record* meta = records.peek(j - 1);
      if (meta != nullptr && meta->kind == RecordKind::kMetadata) {
        const std::uint64_t raw = internal::metadata_slots(internal::metadata_length(*meta));
        if (j - 1 - begin >= raw) first = j - 1 - raw;
      }
    }
    // An event's counters are written in one claim with it, just before
    // it: a counter record before a group is always the group's.
    while (counters && first > begin) {
      const Record* c = records.peek(first - 1);
      if (c == nullptr || c->kind != RecordKind::kCounter) break;
      --first;
    }
    f(j, first, *r);
    j = first;
  }
}

// Copies 1 to 32 bytes that do not overlap, in a few fixed-size moves.
inline void copy_short(std::uint8_t* to, const std::uint8_t* from, std::size_t n) {
  if (n >= 16) {
    std::memcpy(to, from, 16);
    std::memcpy(to + n - 16, from + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(to, from, 8);
    std::memcpy(to + n - 8, from + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(to, from, 4);
    std::memcpy(to + n - 4, from + n - 4, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
  }
}

bool is_event(RecordKind kind) {
  return kind == RecordKind::kProfile || kind == RecordKind::kDelegateInt ||
         kind == RecordKind::kDelegateStr || kind == RecordKind::kAllocation ||
         kind == RecordKind::kDebug;
}

// One block's bounds and counters, the same for real and implicit blocks.
struct BlockSpan {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  Pos name = 0;
  std::int32_t bundled_input_index = -1;
  std::uint64_t dropped = 0;
  std::uint64_t rejected = 0;
  std::uint64_t tensor_data_dropped = 0;
};

class Serializer {
 public:
  Serializer(ETDumpWriter& writer, const RecordStore& records, const internal::NameTable& names,
             const internal::MetadataTable& metadata, bool counters, std::uint32_t* scratch,
             const std::uint8_t* floor_base, std::size_t floor_stride)
      : w_(writer),
        records_(records),
        names_(names),
        metadata_(metadata),
        counters_(counters),
        scratch_(scratch),
        floor_base_(floor_base),
        floor_stride_(floor_stride) {}

  Pos run(const BlockSpan& block) {
    std::uint32_t num_events = 0;
    std::uint32_t num_allocators = 0;
    // The vectors are built from the scratch alone: by then the records
    // may have been written over.
    if (block.end > block.begin) {
      // Record indices fit a size_t: the records are in memory.
      std::memset(scratch_ + block.begin, 0,
                  static_cast<std::size_t>(block.end - block.begin) * sizeof(std::uint32_t));
    }
    for_each_record_backward(records_, block.begin, block.end, counters_,
                             [&](std::uint64_t j, std::uint64_t first, const Record& r) {
                               const std::uint8_t* floor = floor_base_ + floor_stride_ * first;
                               if (r.kind == RecordKind::kAllocator) {
                                 if (!w_.fits(16, floor)) return;
                                 scratch_[j] = w_.allocator(name(r.id)) | kTagAllocator;
                                 ++num_allocators;
                               } else if (is_event(r.kind)) {
                                 const Pos event = this->event(j, first, r, floor);
                                 if (event == 0) return;
                                 scratch_[j] = event | kTagEvent;
                                 ++num_events;
                               }
                             });
    // A block's events sit above all unread records of earlier blocks.
    const std::uint8_t* floor = floor_base_ + floor_stride_ * block.begin;
    if (!w_.fits(16 + 4 * std::size_t{num_events + num_allocators}, floor)) return 0;
    ETDumpWriter::RunFields run;
    if (num_allocators > 0) run.allocators = vector_of(block, kTagAllocator, num_allocators);
    run.events = vector_of(block, kTagEvent, num_events);
    run.name = block.name;
    run.bundled_input_index = block.bundled_input_index;
    run.dropped = block.dropped;
    run.rejected = block.rejected;
    run.tensor_data_dropped = block.tensor_data_dropped;
    if (!w_.fits(64, floor)) return 0;
    return w_.run_data(run);
  }

  std::uint64_t events_written() const { return events_written_; }

 private:
  Pos name(std::uint32_t slot) const { return slot == kNoName ? 0 : names_.slot(slot).fb_offset; }

  Pos vector_of(const BlockSpan& block, std::uint32_t tag, std::uint32_t count) {
    w_.begin_vector();
    for (std::uint64_t j = block.end; j-- > block.begin;) {
      if ((scratch_[j] & kTagMask) == tag) w_.push_offset(scratch_[j] & ~kTagMask);
    }
    return w_.end_vector(count);
  }

  // 0 when it does not fit (the writer is then no longer ok()).
  Pos event(std::uint64_t j, std::uint64_t first, const Record& r, const std::uint8_t* floor) {
    ++events_written_;
    switch (r.kind) {
      case RecordKind::kAllocation:
        if (!w_.fits(32, floor)) return 0;
        return w_.allocation_event(r);
      case RecordKind::kDebug: {
        internal::ValueBlobHeader header;
        const auto* blob = reinterpret_cast<const std::uint8_t*>(r.a);
        std::memcpy(&header, blob, sizeof(header));
        std::size_t dims = 0;
        const std::uint8_t* cursor = blob + sizeof(header);
        for (std::uint32_t i = 0; i < header.num_tensors; ++i) {
          internal::TensorBlob tb;
          std::memcpy(&tb, cursor, sizeof(tb));
          dims += tb.ndim;
          cursor += internal::tensor_blob_size(tb.ndim);
        }
        if (!w_.fits(internal::debug_event_bytes(header.kind, header.num_tensors, dims), floor)) {
          return 0;
        }
        const std::uint32_t id = (r.flags & internal::kDebugIdStr) != 0 ? name(r.id) : r.id;
        return w_.debug_event(r, id);
      }
      default: break;
    }
    // The group is [counters] [raw metadata, header] [event].
    const Record* header =
        first != j && (r.flags & internal::kHasMetadata) != 0 && r.kind != RecordKind::kProfile
            ? records_.peek(j - 1)
            : nullptr;
    const std::uint64_t metadata_length =
        header != nullptr ? internal::metadata_length(*header) : 0;
    const std::uint64_t metadata_first =
        header != nullptr ? j - 1 - internal::metadata_slots(metadata_length) : j;
    const auto num_counters = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(metadata_first - first, runtime::EventTracer::kMaxEventCounters));
    if (!w_.fits(profile_bytes(metadata_length, num_counters), floor)) return 0;
    // The tables may be written over the group's own slots: what is read
    // after the metadata is copied first.
    Record counters[runtime::EventTracer::kMaxEventCounters];
    for (std::uint32_t k = 0; k < num_counters; ++k) counters[k] = *records_.peek(first + k);
    const Record event = r;
    Pos metadata = 0;
    if (header != nullptr) {
      metadata = copy_metadata(*header, metadata_first, metadata_length);
    } else if (const std::uint32_t number = internal::interned_metadata(r); number != 0) {
      metadata = metadata_.entry(number).fb_offset;  // written once, shared
    }
    const Pos counter_vector = num_counters != 0 ? w_.counters(counters, num_counters) : 0;
    ProfileShape shape = ProfileShape::kDelegateInt;
    std::uint32_t ref = event.id;
    if (event.kind == RecordKind::kProfile) {
      shape = event.id == kNoName ? ProfileShape::kUnnamed : ProfileShape::kNamed;
      ref = name(event.id);
    } else if (event.kind == RecordKind::kDelegateStr) {
      shape = ProfileShape::kDelegateStr;
      ref = name(event.id);
    }
    return w_.profile_event(event, shape, ref, metadata, counter_vector);
  }

  // The metadata bytes are in the header, or fill the slots [first,
  // first + raw); the destination is never below them, so a forward
  // overlap is safe. It starts at least 61 bytes above the slots (the
  // group's two slots of 32 less the vector's length and padding), and
  // above the header's end, so short metadata cannot overlap: it is copied
  // inline, not by a call.
  Pos copy_metadata(const Record& header, std::uint64_t first, std::uint64_t length) {
    std::uint8_t* to = w_.metadata_bytes(static_cast<std::size_t>(length));
    const auto* from = internal::metadata_slots(length) == 0
                           ? reinterpret_cast<const std::uint8_t*>(&header)
                           : reinterpret_cast<const std::uint8_t*>(records_.peek(first));
    if (length <= ETDumpWriter::kShortMetadata) {
      copy_short(to, from, static_cast<std::size_t>(length));
    } else if (records_.fixed_base() != nullptr) {
      std::memmove(to, from, static_cast<std::size_t>(length));
    } else {
      for (std::uint64_t k = 0; k * sizeof(Record) < length; ++k) {
        const std::uint64_t done = k * sizeof(Record);
        std::memcpy(
            to + done, records_.peek(first + k),
            static_cast<std::size_t>(std::min<std::uint64_t>(sizeof(Record), length - done)));
      }
    }
    return w_.finish_metadata(static_cast<std::size_t>(length));
  }

  ETDumpWriter& w_;
  const RecordStore& records_;
  const internal::NameTable& names_;
  const internal::MetadataTable& metadata_;
  bool counters_;
  std::uint32_t* scratch_;
  const std::uint8_t* floor_base_;
  std::size_t floor_stride_;
  std::uint64_t events_written_ = 0;
};

}  // namespace

// Slots up to the last record written: claims past it failed and stayed
// empty (in caller-buffer mode some of them may lie under the arena).
static std::uint64_t last_record_end(const RecordStore& records, std::uint64_t end) {
  while (end > 0) {
    const Record* r = records.peek(end - 1);
    if (r != nullptr && r->kind != RecordKind::kEmpty) break;
    --end;
  }
  return end;
}

std::uint64_t ETDumpGen::count_events() const {
  std::uint64_t end = records_.size();
  if (caller_buffer_ && records_.fixed_base() != nullptr) {
    const auto* low = reinterpret_cast<const Record*>(arena_.low());
    end = std::min<std::uint64_t>(end, static_cast<std::uint64_t>(low - records_.fixed_base()));
  }
  std::uint64_t n = 0;
  for_each_record_backward(
      records_, 0, last_record_end(records_, end), counter_names_.size() != 0,
      [&](std::uint64_t, std::uint64_t, const Record& r) { n += is_event(r.kind) ? 1 : 0; });
  return n;
}

Result<Span<const std::uint8_t>> ETDumpGen::get_etdump_data() {
  if (status_ != Error::kOk) {
    return make_error(status_, "the ETDump buffer is too small to record");
  }
  if (finished_) return output_;

  // Where the dump goes: below the scratch, itself below the arena, over
  // the records (caller buffer); or one buffer of the charged size (heap).
  std::uint64_t num_records = records_.size();
  std::uint8_t* top = nullptr;
  std::uint32_t* scratch = nullptr;
  const std::uint8_t* floor_base = nullptr;
  std::size_t floor_stride = 0;
  if (caller_buffer_) {
    const auto* low = reinterpret_cast<const Record*>(arena_.low());
    num_records = std::min<std::uint64_t>(num_records,
                                          static_cast<std::uint64_t>(low - records_.fixed_base()));
    num_records = last_record_end(records_, num_records);
    // num_records is at most the records in the caller's buffer: a size_t.
    const std::size_t scratch_bytes =
        (4 * static_cast<std::size_t>(num_records) + 15) & ~std::size_t{15};
    top = arena_.low() - scratch_bytes;
    scratch = reinterpret_cast<std::uint32_t*>(top);
    floor_base = reinterpret_cast<const std::uint8_t*>(records_.fixed_base());
    floor_stride = sizeof(Record);
    if (top < floor_base + num_records * sizeof(Record)) {
      return make_error(Error::kInternal, "ETDump budget exceeded (a bug)");
    }
  } else {
    num_records = last_record_end(records_, num_records);
    const std::size_t bytes = internal::kFixedOutputBytes +
                              internal::kSlotBytes * static_cast<std::size_t>(num_records) +
                              static_cast<std::size_t>(records_.charged()) + 16;
    // The writer writes every byte, padding included: no need to zero.
    const bool huge = options_.heap_huge_pages;
    const auto allocate = [huge](LargeBuffer& buffer, std::size_t size) {
      const bool fresh = huge && size >= LargeBuffer::kFreshBytes;
      return size <= buffer.size() ||
             buffer.allocate(size,
                             fresh ? LargeBuffer::Pages::kFreshHuge : LargeBuffer::Pages::kReusable,
                             LargeBuffer::Fill::kAny);
    };
    if (!allocate(output_heap_, bytes) ||
        !allocate(scratch_heap_, 4 * static_cast<std::size_t>(num_records))) {
      return make_error(Error::kMemoryAllocationFailed, "no memory for the ETDump");
    }
    // The end 8-aligned (the start is 16-aligned).
    top = output_heap_.data() + (bytes & ~std::size_t{7});
    scratch = reinterpret_cast<std::uint32_t*>(scratch_heap_.data());
    floor_base = output_heap_.data();
  }

  ETDumpWriter w(top);
  const std::uint32_t num_counter_names = counter_names_.size();
  w.write_shared(num_counter_names != 0);
  for (std::size_t i = 0; i < names_.num_slots(); ++i) {
    internal::NameSlot& slot = names_.slot(static_cast<std::uint32_t>(i));
    const char* text = slot.text.load(std::memory_order_relaxed);
    slot.fb_offset = text != nullptr ? w.string(text, slot.length) : 0;
  }
  // Interned metadata: one byte vector each, shared by its events.
  for (std::uint32_t n = 1; n <= metadata_.size(); ++n) {
    internal::MetadataTable::Entry& entry = metadata_.entry(n);
    std::memcpy(w.metadata_bytes(entry.length), entry.bytes, entry.length);
    entry.fb_offset = w.finish_metadata(entry.length);
  }
  const Pos fingerprint =
      fingerprint_[0] != '\0' ? w.string(fingerprint_, std::strlen(fingerprint_)) : 0;
  char producer_text[32];
  const int producer_length =
      std::snprintf(producer_text, sizeof(producer_text), "glassbox %s", kVersion);
  const Pos producer = w.string(
      producer_text, std::min<std::size_t>(sizeof(producer_text) - 1,
                                           static_cast<std::size_t>(std::max(producer_length, 0))));

  Pos scales[kMaxDelegateTimeScales];
  for (std::size_t i = 0; i < num_delegate_scales_; ++i) {
    const DelegateScale& scale = delegate_scales_[i];
    scales[i] = w.delegate_time_scale(w.string(scale.backend, std::strlen(scale.backend)),
                                      scale.ns_per_tick.numerator, scale.ns_per_tick.denominator,
                                      scale.has_host_offset ? &scale.host_offset_ns : nullptr);
  }
  Pos scale_vector = 0;
  if (num_delegate_scales_ > 0) {
    w.begin_vector();
    for (std::size_t i = num_delegate_scales_; i-- > 0;) w.push_offset(scales[i]);
    scale_vector = w.end_vector(static_cast<std::uint32_t>(num_delegate_scales_));
  }

  // The names counters index, in the order the counters first named them.
  Pos counter_names = 0;
  if (num_counter_names != 0) {
    w.begin_vector();
    for (std::uint32_t i = num_counter_names; i-- > 0;) {
      w.push_offset(names_.slot(counter_names_.name_slot(i)).fb_offset);
    }
    counter_names = w.end_vector(num_counter_names);
  }

  Serializer serializer(w, records_, names_, metadata_, num_counter_names != 0, scratch, floor_base,
                        floor_stride);
  const std::uint64_t dropped = dropped_.load(std::memory_order_relaxed);
  const std::uint64_t rejected = rejected_.load(std::memory_order_relaxed);
  const std::uint64_t tensor_dropped = tensor_data_dropped_.load(std::memory_order_relaxed);

  // Blocks, newest first (the dump is written back to front); each
  // block's counters are the difference to the next one's start.
  std::uint64_t end = num_records;
  std::uint64_t next_dropped = dropped, next_rejected = rejected, next_tensors = tensor_dropped;
  const BlockEntry* oldest = nullptr;
  for (BlockEntry* b = last_block_; b != nullptr; b = b->previous) {
    BlockSpan span;
    span.begin = std::min(b->first_record, end);
    span.end = end;
    span.name = b->name == kNoName ? 0 : names_.slot(b->name).fb_offset;
    span.bundled_input_index = b->bundled_input_index;
    span.dropped = next_dropped - b->dropped_at_start;
    span.rejected = next_rejected - b->rejected_at_start;
    span.tensor_data_dropped = next_tensors - b->tensor_data_dropped_at_start;
    b->run = serializer.run(span);
    end = span.begin;
    next_dropped = b->dropped_at_start;
    next_rejected = b->rejected_at_start;
    next_tensors = b->tensor_data_dropped_at_start;
    oldest = b;
  }
  // An implicit "Default" block holds events logged before the first
  // create_event_block.
  const bool implicit = oldest == nullptr || oldest->first_record > 0;
  Pos implicit_run = 0;
  if (implicit) {
    BlockSpan span;
    span.end = end;
    span.name = w.fits(16, floor_base) ? w.string("Default", 7) : 0;
    span.dropped = next_dropped;
    span.rejected = next_rejected;
    span.tensor_data_dropped = next_tensors;
    implicit_run = serializer.run(span);
  }
  if (!w.fits(64 + 4 * (num_blocks_ + 1), floor_base)) {
    return make_error(Error::kInternal, "ETDump budget exceeded (a bug)");
  }
  w.begin_vector();
  for (const BlockEntry* b = last_block_; b != nullptr; b = b->previous) w.push_offset(b->run);
  if (implicit) w.push_offset(implicit_run);
  ETDumpWriter::RootFields root;
  root.run_data = w.end_vector(static_cast<std::uint32_t>(num_blocks_ + (implicit ? 1 : 0)));
  root.tick_numerator = clock_.ratio().numerator;
  root.tick_denominator = clock_.ratio().denominator;
  root.fingerprint = fingerprint;
  root.producer = producer;
  root.delegate_time_scales = scale_vector;
  root.counter_names = counter_names;
  root.dropped_events = dropped;
  root.dropped_blocks = dropped_blocks_.load(std::memory_order_relaxed);
  w.finish(root);
  if (!w.ok()) return make_error(Error::kInternal, "ETDump budget exceeded (a bug)");

  output_ = Span<const std::uint8_t>(w.cursor(), static_cast<std::size_t>(top - w.cursor()));
  if (caller_buffer_) {
    // The records are gone: stop recording until reset().
    finished_ = true;
    finished_events_ = serializer.events_written();
    stop_recording();
  }
  return output_;
}

}  // namespace glassbox::etdump

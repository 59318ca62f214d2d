#include "glassbox/etdump/etdump_gen.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "src/etdump/etdump_writer.h"
#include "src/etdump/value_blob.h"

namespace glassbox::etdump {

using internal::BlockEntry;
using internal::kNoName;
using internal::NameSlot;
using internal::NameTable;
using internal::Record;
using internal::RecordKind;
using runtime::DelegateDebugIdType;
using runtime::EventTracerEntry;
using runtime::TimeSource;
using runtime::ValueView;

namespace {

constexpr std::size_t kAlign = 64;
// A FlatBuffer cannot exceed 2 GiB; the heap-mode budget keeps it below.
constexpr std::int64_t kMaxHeapBudget = (std::int64_t{1} << 31) - (std::int64_t{1} << 20);

// A small per-process index for the logging thread, assigned on first use
// and kept in the thread's ClaimRun (constant-initialised thread_local:
// reading it is one TLS load, from the line the claim reads anyway).
std::atomic<std::uint32_t> next_thread_index{0};

[[gnu::always_inline]] inline std::uint16_t thread_index() {
  std::uint32_t& index_plus_one = internal::tls_claim_run.thread_plus_one;
  if (index_plus_one == 0) [[unlikely]] {
    index_plus_one = next_thread_index.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  return static_cast<std::uint16_t>(index_plus_one - 1);
}

// Valid identifiers: exactly one of a name and an int id >= 0.
bool valid_delegate_id(const char* name, DelegateDebugIntId id) {
  if (name != nullptr) return !id.is_set();
  return id.value >= 0;
}

std::uint8_t time_source_bits(TimeSource source) {
  return static_cast<std::uint8_t>(source) & internal::kTimeSourceMask;
}

// A delegate event's record, as every delegate path writes it.
[[gnu::always_inline]] inline Record delegate_record(bool string_id, std::uint32_t id, Ticks start,
                                                     Ticks end, ChainId chain,
                                                     InstructionId instruction, TimeSource source) {
  return Record{start,
                end,
                id,
                chain.value,
                instruction.value,
                string_id ? RecordKind::kDelegateStr : RecordKind::kDelegateInt,
                time_source_bits(source),
                thread_index()};
}

}  // namespace

// ---- Construction -----------------------------------------------------------

ETDumpGen::ETDumpGen(const ETDumpGenOptions& options) : clock_(options.clock), options_(options) {
  init_heap();
}

ETDumpGen::ETDumpGen(Span<std::uint8_t> buffer, const ETDumpGenOptions& options)
    : clock_(options.clock), options_(options) {
  init_buffer(buffer);
}

ETDumpGen::~ETDumpGen() = default;

void ETDumpGen::init_heap() {
  caller_buffer_ = false;
  metadata_.init(&records_);
  counter_names_.init(&records_);
  arena_.init_heap(&records_);
  const std::size_t slots = NameTable::slots_for(options_.max_names);
  name_slots_heap_.reset(new (std::nothrow) NameSlot[slots]);
  if (name_slots_heap_ == nullptr) {
    status_ = Error::kMemoryAllocationFailed;
    names_.init(nullptr, 0, 0, &arena_);
    return;
  }
  names_.init(name_slots_heap_.get(), slots, options_.max_names, &arena_);
  // A FlatBuffer cannot exceed 2 GiB: the budget keeps the dump below it.
  records_.init_heap(options_.heap_max_events, kMaxHeapBudget,
                     options_.heap_huge_pages ? internal::LargeBuffer::Pages::kFreshHuge
                                              : internal::LargeBuffer::Pages::kReusable);
  if (records_.capacity() == 0) status_ = Error::kMemoryAllocationFailed;
}

// Splits the caller's buffer once: the name table, then one region that
// records grow up into and the arena grows down into, sharing one budget.
// The budget leaves room for the fixed part of the ETDump, which is then
// written over the records (see etdump_gen_serialize.cc).
void ETDumpGen::init_buffer(Span<std::uint8_t> buffer) {
  caller_buffer_ = true;
  metadata_.init(&records_);
  counter_names_.init(&records_);
  auto fail = [&] {
    status_ = Error::kOutOfResources;
    names_.init(nullptr, 0, 0, &arena_);
    records_.init_fixed(nullptr, 0, 0);
    arena_.init_fixed(nullptr, &records_);
  };
  auto align_up = [](std::uintptr_t p) { return (p + kAlign - 1) & ~std::uintptr_t{kAlign - 1}; };
  const auto begin = reinterpret_cast<std::uintptr_t>(buffer.data());
  const std::uintptr_t end = begin + buffer.size();
  if (buffer.data() == nullptr) return fail();
  const std::size_t slots = NameTable::slots_for(options_.max_names);
  const std::uintptr_t names_at = align_up(begin);
  const std::uintptr_t region_at = align_up(names_at + slots * sizeof(NameSlot));
  const std::uintptr_t region_end = end & ~std::uintptr_t{7};
  constexpr std::size_t kMinimum = internal::kFixedOutputBytes + 16 * internal::kSlotBytes +
                                   internal::kBlockOutputBytes + sizeof(BlockEntry) + kAlign;
  if (region_at > region_end || region_end - region_at < kMinimum) return fail();
  const std::size_t region = region_end - region_at;
  // Alignment of the scratch below the arena and of the dump: 16 bytes.
  const auto budget = static_cast<std::int64_t>(region - internal::kFixedOutputBytes - 16);

  names_.init(reinterpret_cast<NameSlot*>(names_at), slots, options_.max_names, &arena_);
  records_.init_fixed(reinterpret_cast<Record*>(region_at), region / sizeof(Record), budget);
  arena_.init_fixed(reinterpret_cast<std::uint8_t*>(region_end), &records_);
}

std::size_t ETDumpGen::capacity() const {
  return static_cast<std::size_t>(records_.event_capacity());
}

std::size_t ETDumpGen::num_blocks() const { return num_blocks_; }

std::uint64_t ETDumpGen::num_events() const {
  return finished_ ? finished_events_ : count_events();
}

void ETDumpGen::reset() {
  records_.clear();
  names_.clear();
  metadata_.clear();
  counter_names_.clear();
  arena_.clear();
  last_block_ = nullptr;
  num_blocks_ = 0;
  allocators_in_block_.store(0, std::memory_order_relaxed);
  blocks_exhausted_.store(false, std::memory_order_relaxed);
  full_.store(false, std::memory_order_relaxed);
  dropped_.store(0, std::memory_order_relaxed);
  dropped_blocks_.store(0, std::memory_order_relaxed);
  rejected_.store(0, std::memory_order_relaxed);
  tensor_data_dropped_.store(0, std::memory_order_relaxed);
  finished_ = false;
  finished_events_ = 0;
  output_ = {};
}

void ETDumpGen::set_data_sink(DataSink* sink) {
  std::lock_guard<Mutex> lock(sink_mutex_);
  data_sink_ = sink;
}

void ETDumpGen::set_program_fingerprint(const char* fingerprint) {
  if (fingerprint == nullptr) fingerprint = "";
  const std::size_t n = std::min(std::strlen(fingerprint), sizeof(fingerprint_) - 1);
  std::memcpy(fingerprint_, fingerprint, n);
  fingerprint_[n] = '\0';
}

Error ETDumpGen::set_delegate_time_scale(const char* backend, TickRatio ns_per_tick) {
  if (backend == nullptr || ns_per_tick.numerator == 0 || ns_per_tick.denominator == 0) {
    return Error::kInvalidArgument;
  }
  const std::size_t length = std::strlen(backend);
  if (length == 0 || length > kMaxBackendNameLength) return Error::kInvalidArgument;
  std::size_t i = 0;
  while (i < num_delegate_scales_ && std::strcmp(delegate_scales_[i].backend, backend) != 0) ++i;
  if (i == kMaxDelegateTimeScales) return Error::kOutOfResources;
  if (i == num_delegate_scales_) {
    std::memcpy(delegate_scales_[i].backend, backend, length + 1);
    ++num_delegate_scales_;
  }
  delegate_scales_[i].ns_per_tick = ns_per_tick;
  return Error::kOk;
}

Error ETDumpGen::set_delegate_clock_offset(const char* backend, std::int64_t host_offset_ns) {
  if (backend == nullptr) return Error::kInvalidArgument;
  for (std::size_t i = 0; i < num_delegate_scales_; ++i) {
    if (std::strcmp(delegate_scales_[i].backend, backend) == 0) {
      delegate_scales_[i].has_host_offset = true;
      delegate_scales_[i].host_offset_ns = host_offset_ns;
      return Error::kOk;
    }
  }
  return Error::kInvalidArgument;  // an offset belongs to a declared clock
}

// ---- Records -----------------------------------------------------------------

// Inlined into every logging path: it is most of the per-event work.
// Stopped recording is checked only when a thread needs a new run:
// stop_recording() ends every run first.
[[gnu::always_inline]] inline std::uint64_t ETDumpGen::claim(std::uint32_t count) {
  std::uint64_t index = 0;
  if (records_.claim_from_run(count, &index)) [[likely]] {
    return index;
  }
  return claim_new_run(count);
}

// Once per kRunSlots events of a thread, or when a block begins.
std::uint64_t ETDumpGen::claim_new_run(std::uint32_t count) {
  if (blocks_exhausted_.load(std::memory_order_relaxed)) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return internal::RecordStore::kFull;
  }
  const internal::RecordStore::RunClaim c = records_.claim_run(count);
  if (caller_buffer_) {
    // Caller-buffer slots are not cleared in advance: the run's slots must
    // read as empty until written (heap chunks come zeroed). They are
    // within the budget, so clear of the arena.
    Record* base = records_.fixed_base();
    for (std::uint64_t i = c.spare_first; i < c.spare_end; ++i) base[i].kind = RecordKind::kEmpty;
    if (c.lost_first < c.lost_end && c.lost_first < records_.capacity()) {
      const std::uint64_t end = std::min<std::uint64_t>(c.lost_end, records_.capacity());
      arena_.mark_unwritten(base + c.lost_first, end - c.lost_first);
    }
  }
  if (c.lost_first < c.lost_end) full_.store(true, std::memory_order_relaxed);
  if (c.ok) return c.index;
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return internal::RecordStore::kFull;
}

// One record slot: null (a drop, counted) when full or when a heap chunk
// cannot be allocated (the slot then stays empty).
[[gnu::always_inline]] inline Record* ETDumpGen::claim_one() {
  const std::uint64_t index = claim(1);
  if (index == internal::RecordStore::kFull) return nullptr;
  Record* record = records_.slot(index);
  if (record == nullptr) dropped_.fetch_add(1, std::memory_order_relaxed);
  return record;
}

// Inlined into the delegate hooks: an event without metadata is a claim
// and one record.
[[gnu::always_inline]] inline Error ETDumpGen::write_delegate_event(
    bool string_id, std::uint32_t id, Ticks start, Ticks end, ChainId chain,
    InstructionId instruction, const void* metadata, std::size_t metadata_len, TimeSource source) {
  if (metadata_len != 0) {
    return write_delegate_event_with_metadata(string_id, id, start, end, chain, instruction,
                                              metadata, metadata_len, source);
  }
  Record* r = claim_one();
  if (r == nullptr) return Error::kOutOfResources;
  *r = delegate_record(string_id, id, start, end, chain, instruction, source);
  return Error::kOk;
}

// ---- Blocks and allocators ---------------------------------------------------

void ETDumpGen::stop_recording() {
  blocks_exhausted_.store(true, std::memory_order_relaxed);
  // Ends every thread's run, so that each thread's next event reaches
  // claim_new_run, which sees the flag.
  records_.new_epoch();
}

Error ETDumpGen::refuse_block() {
  // Without a block to put them in, later events would be attributed to
  // the wrong execution: stop recording instead, and count what is lost.
  stop_recording();
  dropped_blocks_.fetch_add(1, std::memory_order_relaxed);
  return Error::kOutOfResources;
}

Error ETDumpGen::create_event_block(const char* name) {
  if (status_ != Error::kOk) return status_;
  if (blocks_exhausted_.load(std::memory_order_relaxed) || full_.load(std::memory_order_relaxed) ||
      (options_.max_blocks != 0 && num_blocks_ == options_.max_blocks)) {
    return refuse_block();
  }
  const std::uint32_t name_slot = name != nullptr ? names_.intern(name) : kNoName;
  void* memory = arena_.allocate(sizeof(BlockEntry), internal::kBlockOutputBytes);
  if (memory == nullptr) {
    full_.store(true, std::memory_order_relaxed);
    return refuse_block();
  }
  auto* entry = new (memory) BlockEntry{};
  entry->previous = last_block_;
  entry->first_record = records_.size();
  entry->dropped_at_start = dropped_.load(std::memory_order_relaxed);
  entry->rejected_at_start = rejected_.load(std::memory_order_relaxed);
  entry->tensor_data_dropped_at_start = tensor_data_dropped_.load(std::memory_order_relaxed);
  entry->name = name_slot;
  entry->bundled_input_index = bundled_input_index();
  last_block_ = entry;
  ++num_blocks_;
  allocators_in_block_.store(0, std::memory_order_relaxed);
  records_.new_epoch();
  return Error::kOk;
}

void ETDumpGen::reserve_like_last_block(std::size_t executions) {
  if (caller_buffer_ || last_block_ == nullptr) return;
  const std::uint64_t per_block = records_.size() - last_block_->first_record;
  std::uint64_t total = 0;
  if (__builtin_mul_overflow(per_block, executions, &total)) total = ~std::uint64_t{0};
  records_.reserve(total);
  // Each later block takes a BlockEntry from the arena (its name is
  // interned already).
  std::size_t block_bytes = 0;
  if (!__builtin_mul_overflow(sizeof(internal::BlockEntry), executions, &block_bytes)) {
    arena_.reserve(block_bytes);
  }
}

AllocatorId ETDumpGen::track_allocator(const char* name) {
  const std::uint32_t slot = name != nullptr ? names_.intern(name) : kNoName;
  if (name != nullptr && slot == kNoName) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return kUnsetAllocatorId;
  }
  Record* r = claim_one();
  if (r == nullptr) return kUnsetAllocatorId;
  const std::uint32_t id = allocators_in_block_.fetch_add(1, std::memory_order_relaxed) + 1;
  *r = Record{0, id, slot, -1, -1, RecordKind::kAllocator, 0, thread_index()};
  return AllocatorId(id);
}

void ETDumpGen::track_allocation(AllocatorId allocator, std::size_t size) {
  // Ids are 1-based per block; anything else would make a dump no reader
  // accepts.
  if (!allocator.is_set() ||
      allocator.value > allocators_in_block_.load(std::memory_order_relaxed)) {
    (void)reject();
    return;
  }
  Record* r = claim_one();
  if (r == nullptr) return;
  *r = Record{size,
              0,
              allocator.value,
              current_chain_id().value,
              current_instruction_id().value,
              RecordKind::kAllocation,
              0,
              thread_index()};
}

// ---- Framework profiling -----------------------------------------------------

EventTracerEntry ETDumpGen::start_profiling(const char* name, ChainId chain_id,
                                            InstructionId instruction_id) {
  EventTracerEntry entry;
  entry.tracer = this;
  entry.chain_id = chain_id.is_set() ? chain_id : current_chain_id();
  entry.instruction_id = instruction_id.is_set() ? instruction_id : current_instruction_id();
  if (name != nullptr) {
    const std::uint32_t slot = names_.intern(name);
    // Out of names: the event cannot be recorded faithfully. It is counted
    // as dropped when it ends, so a start/end pair counts once.
    if (slot == kNoName) entry.error = Error::kOutOfResources;
    entry.event_id = static_cast<std::int32_t>(slot);  // kNoName reads as -1
  }
  entry.start_time = clock_.now();
  return entry;
}

Error ETDumpGen::end_profiling(const EventTracerEntry& entry) {
  const Ticks end = clock_.now();
  if (entry.tracer != this) return reject();
  if (entry.error != Error::kOk) {
    if (entry.error == Error::kOutOfResources) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
    return entry.error;
  }
  if (entry.delegate_event_id_type != DelegateDebugIdType::kNone) {
    return reject();  // a delegate entry must end with end_profiling_delegate
  }
  Record* r = claim_one();
  if (r == nullptr) return Error::kOutOfResources;
  const std::uint32_t name =
      entry.event_id < 0 ? kNoName : static_cast<std::uint32_t>(entry.event_id);
  *r = Record{entry.start_time,
              end,
              name,
              entry.chain_id.value,
              entry.instruction_id.value,
              RecordKind::kProfile,
              time_source_bits(TimeSource::kMeasured),
              thread_index()};
  return Error::kOk;
}

// ---- Delegate profiling ------------------------------------------------------

EventTracerEntry ETDumpGen::start_profiling_delegate(const char* name, DelegateDebugIntId id) {
  if (name == nullptr && id.value >= 0 && clock_.kind() == ClockKind::kTsc) [[likely]] {
    // An int identifier with the TSC: nothing to intern and no call, so
    // this path needs no stack frame.
    EventTracerEntry entry;
    entry.tracer = this;
    entry.event_id = id.value;
    entry.delegate_event_id_type = DelegateDebugIdType::kInt;
    entry.chain_id = current_chain_id();
    entry.instruction_id = current_instruction_id();
    entry.start_time = clock_.tsc_now();
    return entry;
  }
  return start_profiling_delegate_slow(name, id);
}

EventTracerEntry ETDumpGen::start_profiling_delegate_slow(const char* name, DelegateDebugIntId id) {
  EventTracerEntry entry;
  entry.tracer = this;
  if (!valid_delegate_id(name, id)) {
    entry.error = reject();
    return entry;
  }
  if (name == nullptr) {
    entry.event_id = id.value;
    entry.delegate_event_id_type = DelegateDebugIdType::kInt;
  } else {
    const std::uint32_t slot = names_.intern(name);
    if (slot == kNoName) entry.error = Error::kOutOfResources;
    entry.event_id = static_cast<std::int32_t>(slot);  // kNoName reads as -1
    entry.delegate_event_id_type = DelegateDebugIdType::kStr;
  }
  // Taken at start, not at end as in ExecuTorch: an event ended after the
  // delegate call returned still belongs to its instruction.
  entry.chain_id = current_chain_id();
  entry.instruction_id = current_instruction_id();
  entry.start_time = clock_.now();
  return entry;
}

// The end of a delegate event at `end`: the common case (an entry of
// ours, no metadata, a slot left in the thread's run) is one record and no
// call; everything else (metadata, a new run, errors) takes the general
// path. Inlined into both clocks' paths.
[[gnu::always_inline]] inline Error ETDumpGen::end_delegate_event_at(const EventTracerEntry& entry,
                                                                     Ticks end,
                                                                     const void* metadata,
                                                                     std::size_t metadata_len) {
  if (entry.tracer == this && entry.error == Error::kOk && metadata_len == 0 &&
      entry.delegate_event_id_type != DelegateDebugIdType::kNone) [[likely]] {
    if (Record* r = records_.claim_allocated_slot_from_run()) [[likely]] {
      *r = delegate_record(entry.delegate_event_id_type == DelegateDebugIdType::kStr,
                           static_cast<std::uint32_t>(entry.event_id), entry.start_time, end,
                           entry.chain_id, entry.instruction_id, TimeSource::kMeasured);
      return Error::kOk;
    }
  }
  return end_delegate_event(entry, end, metadata, metadata_len);
}

Error ETDumpGen::end_profiling_delegate(const EventTracerEntry& entry, const void* metadata,
                                        std::size_t metadata_len) {
  // With the TSC nothing on this path calls a function, so it needs no
  // stack frame; steady_clock's read is a call, and goes out of line.
  if (clock_.kind() != ClockKind::kTsc) [[unlikely]] {
    return end_profiling_delegate_steady(entry, metadata, metadata_len);
  }
  return end_delegate_event_at(entry, clock_.tsc_now(), metadata, metadata_len);
}

Error ETDumpGen::end_profiling_delegate_steady(const EventTracerEntry& entry, const void* metadata,
                                               std::size_t metadata_len) {
  return end_delegate_event_at(entry, clock_.now(), metadata, metadata_len);
}

Error ETDumpGen::end_delegate_event(const EventTracerEntry& entry, Ticks end, const void* metadata,
                                    std::size_t metadata_len, const Record* counters,
                                    std::uint32_t num_counters) {
  if (entry.tracer != this) return reject();
  if (entry.error != Error::kOk) {
    if (entry.error == Error::kOutOfResources) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
    return entry.error;
  }
  if (entry.delegate_event_id_type == DelegateDebugIdType::kNone) {
    return reject();  // a framework entry must end with end_profiling
  }
  const bool string_id = entry.delegate_event_id_type == DelegateDebugIdType::kStr;
  const auto id = static_cast<std::uint32_t>(entry.event_id);
  if (num_counters != 0) {
    return write_delegate_event_with_metadata(string_id, id, entry.start_time, end, entry.chain_id,
                                              entry.instruction_id, metadata, metadata_len,
                                              TimeSource::kMeasured, counters, num_counters);
  }
  return write_delegate_event(string_id, id, entry.start_time, end, entry.chain_id,
                              entry.instruction_id, metadata, metadata_len, TimeSource::kMeasured);
}

// ---- Counters ----------------------------------------------------------------

Error ETDumpGen::delegate_id_value(const char* name, DelegateDebugIntId id, std::uint32_t* out) {
  if (!valid_delegate_id(name, id)) return reject();
  *out = static_cast<std::uint32_t>(id.value);
  if (name != nullptr) {
    *out = names_.intern(name);
    if (*out == kNoName) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return Error::kOutOfResources;
    }
  }
  return Error::kOk;
}

Error ETDumpGen::counter_records(Span<const runtime::DelegateCounter> counters, Record* out,
                                 std::uint32_t* count) {
  *count = 0;
  if (counters.size() > kMaxEventCounters) return reject();
  Error error = Error::kOk;
  for (const runtime::DelegateCounter& c : counters) {
    // An empty name, or one twice in an event, makes a dump no reader
    // accepts (or a column summed twice): refused before anything is kept.
    if (c.name == nullptr || c.name[0] == '\0') return reject();
    const std::uint32_t slot = names_.intern(c.name);
    const std::uint32_t index =
        slot == kNoName ? internal::CounterNameTable::kFull : counter_names_.index_of(slot);
    if (index == internal::CounterNameTable::kFull) {
      error = Error::kOutOfResources;
      continue;
    }
    for (std::uint32_t k = 0; k < *count; ++k) {
      if (out[k].id == index) return reject();
    }
    out[(*count)++] =
        Record{static_cast<std::uint64_t>(c.value), 0, index, 0, 0, RecordKind::kCounter, 0, 0};
  }
  return error;
}

Error ETDumpGen::log_profiling_delegate_with_counters(const char* name, DelegateDebugIntId id,
                                                      Ticks start_time, Ticks end_time,
                                                      Span<const runtime::DelegateCounter> counters,
                                                      const void* metadata,
                                                      std::size_t metadata_len,
                                                      TimeSource time_source) {
  std::uint32_t id_value = 0;
  if (const Error bad = delegate_id_value(name, id, &id_value); bad != Error::kOk) return bad;
  Record records[kMaxEventCounters];
  std::uint32_t n = 0;
  const Error named = counter_records(counters, records, &n);
  if (named == Error::kInvalidArgument) return named;
  const Error error = write_delegate_event_with_metadata(
      name != nullptr, id_value, start_time, end_time, current_chain_id(), current_instruction_id(),
      metadata, metadata_len, time_source, records, n);
  return error != Error::kOk ? error : named;
}

Error ETDumpGen::end_profiling_delegate_with_counters(const EventTracerEntry& entry,
                                                      Span<const runtime::DelegateCounter> counters,
                                                      const void* metadata,
                                                      std::size_t metadata_len) {
  const Ticks end = clock_.now();
  Record records[kMaxEventCounters];
  std::uint32_t n = 0;
  const Error named = counter_records(counters, records, &n);
  if (named == Error::kInvalidArgument) return named;
  const Error error = end_delegate_event(entry, end, metadata, metadata_len, records, n);
  return error != Error::kOk ? error : named;
}

Error ETDumpGen::log_profiling_delegate(const char* name, DelegateDebugIntId id, Ticks start_time,
                                        Ticks end_time, const void* metadata,
                                        std::size_t metadata_len, TimeSource time_source) {
  std::uint32_t id_value = 0;
  if (const Error bad = delegate_id_value(name, id, &id_value); bad != Error::kOk) return bad;
  return write_delegate_event(name != nullptr, id_value, start_time, end_time, current_chain_id(),
                              current_instruction_id(), metadata, metadata_len, time_source);
}

namespace {

// The interned numbers of the last few metadata addresses of one
// log_profiling_delegates call (the bytes cannot change during the call).
class MetadataSeen {
 public:
  std::uint32_t number(internal::MetadataTable& table, const void* metadata, std::size_t length) {
    if (metadata == nullptr) return 0;
    for (std::uint32_t k = 0; k < size_; ++k) {
      if (entries_[k].metadata == metadata && entries_[k].length == length) {
        return entries_[k].number;
      }
    }
    const std::uint32_t number = table.intern(metadata, length);
    entries_[next_] = {metadata, length, number};
    next_ = (next_ + 1) % kEntries;
    size_ = std::max(size_, next_ == 0 ? kEntries : next_);
    return number;
  }

 private:
  static constexpr std::uint32_t kEntries = 8;
  struct Entry {
    const void* metadata;
    std::size_t length;
    std::uint32_t number;
  };
  Entry entries_[kEntries];
  std::uint32_t size_ = 0;
  std::uint32_t next_ = 0;
};

}  // namespace

Error ETDumpGen::log_profiling_delegates(Span<const runtime::DelegateEventDesc> events,
                                         const runtime::DelegateEventTimes* times,
                                         TimeSource time_source) {
  // Read once: the whole batch belongs to the current instruction.
  const ChainId chain = current_chain_id();
  const InstructionId instruction = current_instruction_id();
  // Metadata addresses seen in this call and their interned numbers: a
  // delegate's operators share a few strings (OperatorEvents points equal
  // metadata at one copy), so most events skip the byte compare.
  MetadataSeen seen;
  Error first = Error::kOk;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const runtime::DelegateEventDesc& e = events[i];
    const Ticks start = times[i].start;
    const Ticks end = times[i].end;
    Error error = Error::kOk;
    if (e.name == nullptr && e.int_id.value >= 0) [[likely]] {
      const std::uint32_t id = static_cast<std::uint32_t>(e.int_id.value);
      const std::uint32_t number =
          e.metadata_len == 0 ? 0 : seen.number(metadata_, e.metadata, e.metadata_len);
      if (e.metadata_len == 0 || number != 0) {
        if (Record* r = claim_one()) [[likely]] {
          Record event = delegate_record(false, id, start, end, chain, instruction, time_source);
          if (e.metadata_len != 0) {
            event.flags |= static_cast<std::uint8_t>(number << internal::kInternedMetadataShift);
          }
          *r = event;
        } else {
          error = Error::kOutOfResources;
        }
      } else {
        error = write_delegate_event_with_metadata(false, id, start, end, chain, instruction,
                                                   e.metadata, e.metadata_len, time_source);
      }
    } else {
      error = ETDumpGen::log_profiling_delegate(e.name, e.int_id, start, end, e.metadata,
                                                e.metadata_len, time_source);
    }
    if (first == Error::kOk) first = error;
  }
  return first;
}

std::uint64_t ETDumpGen::claim_slots(std::uint32_t count) {
  const std::uint64_t first = claim(count);
  if (first == internal::RecordStore::kFull) return first;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (records_.slot(first + k) == nullptr) {
      // A heap chunk could not be allocated: every slot stays empty.
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return internal::RecordStore::kFull;
    }
  }
  return first;
}

Error ETDumpGen::write_delegate_event_with_metadata(bool string_id, std::uint32_t id, Ticks start,
                                                    Ticks end, ChainId chain,
                                                    InstructionId instruction, const void* metadata,
                                                    std::size_t metadata_len, TimeSource source,
                                                    const Record* counters,
                                                    std::uint32_t num_counters) {
  if (metadata == nullptr && metadata_len != 0) return reject();
  // Metadata seen before (a delegate's usual case): the event's flags name it.
  const std::uint32_t number = metadata_len == 0 ? 0 : metadata_.intern(metadata, metadata_len);
  Record event = delegate_record(string_id, id, start, end, chain, instruction, source);
  // The logging thread, read once (delegate_record did) for every record
  // of the event.
  const std::uint16_t thread = event.thread;
  if (number != 0 && num_counters == 0) {
    Record* r = claim_one();
    if (r == nullptr) return Error::kOutOfResources;
    event.flags |= static_cast<std::uint8_t>(number << internal::kInternedMetadataShift);
    *r = event;
    return Error::kOk;
  }
  // Metadata that is not interned is copied into the slots before the
  // event (see internal::kInlineMetadata), the counters before those: one
  // claim, no lock, the event kept whole or dropped whole.
  const bool copied = metadata_len != 0 && number == 0;
  const std::uint64_t raw = copied ? internal::metadata_slots(metadata_len) : 0;
  const std::uint64_t total = num_counters + raw + (copied ? 2 : 1);
  if (total > std::numeric_limits<std::uint32_t>::max()) return reject();
  const std::uint64_t first = claim_slots(static_cast<std::uint32_t>(total));
  if (first == internal::RecordStore::kFull) return Error::kOutOfResources;
  for (std::uint32_t k = 0; k < num_counters; ++k) {
    Record* slot = records_.slot(first + k);
    *slot = counters[k];
    slot->thread = thread;
  }
  const std::uint64_t at = first + num_counters;
  if (copied) {
    Record header{0, metadata_len, 0, chain.value, instruction.value, RecordKind::kMetadata,
                  0, thread};
    if (raw == 0) {
      std::memcpy(&header, metadata, metadata_len);
      header.instruction = static_cast<std::int32_t>(metadata_len);
      header.flags = internal::kMetadataInline;
    }
    const auto* bytes = static_cast<const std::uint8_t*>(metadata);
    for (std::uint64_t k = 0; k < raw; ++k) {
      const std::size_t offset = static_cast<std::size_t>(k) * sizeof(Record);
      std::memcpy(records_.slot(at + k), bytes + offset,
                  std::min(sizeof(Record), metadata_len - offset));
    }
    *records_.slot(at + raw) = header;
    event.flags |= internal::kHasMetadata;
  } else {
    event.flags |= static_cast<std::uint8_t>(number << internal::kInternedMetadataShift);
  }
  *records_.slot(first + total - 1) = event;
  return Error::kOk;
}

// ---- Values ------------------------------------------------------------------

Result<bool> ETDumpGen::log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                         const ValueView& value) {
  if (!valid_delegate_id(name, id)) {
    return make_error(reject(),
                      "a delegate output needs exactly one of a name and an "
                      "int identifier");
  }
  if (runtime::DelegateOutputFilter* filter = delegate_output_filter()) {
    Result<bool> keep = filter->keep(name, id);
    if (!keep.ok() || !*keep) return keep.ok() ? Result<bool>(false) : keep;
  }
  std::uint32_t id_value = static_cast<std::uint32_t>(id.value);
  std::uint8_t flags = internal::kDebugIdInt;
  if (name != nullptr) {
    id_value = names_.intern(name);
    flags = internal::kDebugIdStr;
    if (id_value == kNoName) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return make_error(Error::kOutOfResources, "ETDump name table is full");
    }
  }
  return write_value(value, flags, id_value);
}

Result<bool> ETDumpGen::log_value(const ValueView& value, runtime::LoggedValueKind kind) {
  const std::uint8_t flags =
      kind == runtime::LoggedValueKind::kProgramOutput ? internal::kDebugOutput : std::uint8_t{0};
  return write_value(value, flags, 0);
}

std::int64_t ETDumpGen::write_tensor_data(const TensorView& tensor) {
  const std::size_t nbytes = tensor.nbytes();
  if (nbytes == 0) return -1;  // nothing to write (ExecuTorch's convention)
  std::lock_guard<Mutex> lock(sink_mutex_);
  if (data_sink_ == nullptr || tensor.data == nullptr || !tensor.is_contiguous()) {
    tensor_data_dropped_.fetch_add(1, std::memory_order_relaxed);
    return -1;
  }
  Result<std::size_t> offset = data_sink_->write(tensor.data, nbytes);
  if (!offset.ok()) {
    tensor_data_dropped_.fetch_add(1, std::memory_order_relaxed);
    return -1;
  }
  return static_cast<std::int64_t>(*offset);
}

Result<bool> ETDumpGen::write_value(const ValueView& value, std::uint8_t flags, std::uint32_t id) {
  using internal::TensorBlob;
  using internal::ValueBlobHeader;
  const Span<const TensorView> tensors = value.tensors();
  if (tensors.size() > internal::kMaxLoggedTensorList) {
    return make_error(reject(), "tensor list is longer than 64 tensors");
  }
  std::size_t blob_size = sizeof(ValueBlobHeader);
  for (const TensorView& t : tensors) {
    if (t.sizes.size() > internal::kMaxLoggedTensorDims ||
        (!t.strides.empty() && t.strides.size() != t.sizes.size()) || element_size(t.dtype) == 0) {
      return make_error(reject(), "tensor has an unknown dtype or bad rank");
    }
    blob_size += internal::tensor_blob_size(t.sizes.size());
  }
  // Charged: the value's serialized size, less what its slot covers.
  std::size_t total_dims = 0;
  for (const TensorView& t : tensors) total_dims += t.sizes.size();
  const std::size_t bytes = internal::debug_event_bytes(static_cast<std::uint8_t>(value.kind()),
                                                        tensors.size(), total_dims);
  const std::size_t output =
      bytes > internal::kSlotOutputBytes ? bytes - internal::kSlotOutputBytes : 0;
  std::uint8_t* blob = arena_.allocate(blob_size, output);
  if (blob == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return make_error(Error::kOutOfResources, "ETDump buffer is full");
  }
  ValueBlobHeader header{};
  header.kind = static_cast<std::uint8_t>(value.kind());
  header.num_tensors = static_cast<std::uint32_t>(tensors.size());
  header.int_value =
      value.kind() == ValueView::Kind::kBool ? std::int64_t{value.bool_value()} : value.int_value();
  header.double_value = value.double_value();
  std::memcpy(blob, &header, sizeof(header));
  std::uint8_t* out = blob + sizeof(header);
  for (const TensorView& t : tensors) {
    TensorBlob tb{};
    tb.offset = write_tensor_data(t);
    tb.dtype = static_cast<std::int8_t>(t.dtype);
    tb.ndim = static_cast<std::uint8_t>(t.sizes.size());
    std::memcpy(out, &tb, sizeof(tb));
    auto* dims = reinterpret_cast<std::int64_t*>(out + sizeof(tb));
    std::int64_t stride = 1;
    for (std::size_t d = t.sizes.size(); d-- > 0;) {
      dims[d] = t.sizes[d];
      // Contiguous strides when the view has none, as ExecuTorch writes.
      dims[t.sizes.size() + d] = t.strides.empty() ? stride : t.strides[d];
      stride *= t.sizes[d];
    }
    out += internal::tensor_blob_size(t.sizes.size());
  }
  Record* r = claim_one();
  if (r == nullptr) return make_error(Error::kOutOfResources, "ETDump buffer is full");
  *r = Record{
      reinterpret_cast<std::uintptr_t>(blob), blob_size,          id,    current_chain_id().value,
      current_instruction_id().value,         RecordKind::kDebug, flags, thread_index()};
  return true;
}

}  // namespace glassbox::etdump

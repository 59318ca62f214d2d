#include "glassbox/etdump/etdump_gen.h"

#include <algorithm>
#include <cstring>
#include <new>

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

// A small per-process index for the logging thread, assigned on first use.
// Constant-initialised thread_local: reading it is one TLS load.
thread_local std::uint32_t tls_thread_index_plus_one = 0;
std::atomic<std::uint32_t> next_thread_index{0};

[[gnu::always_inline]] inline std::uint16_t thread_index() {
  if (tls_thread_index_plus_one == 0) [[unlikely]] {
    tls_thread_index_plus_one = next_thread_index.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  return static_cast<std::uint16_t>(tls_thread_index_plus_one - 1);
}

// Valid identifiers: exactly one of a name and an int id >= 0.
bool valid_delegate_id(const char* name, DelegateDebugIntId id) {
  if (name != nullptr) return !id.is_set();
  return id.value >= 0;
}

std::uint8_t time_source_bits(TimeSource source) {
  return static_cast<std::uint8_t>(source) & internal::kTimeSourceMask;
}

}  // namespace

// ---- Construction -----------------------------------------------------------

ETDumpGen::ETDumpGen(const ETDumpGenOptions& options) : options_(options), clock_(options.clock) {
  init_heap();
}

ETDumpGen::ETDumpGen(Span<std::uint8_t> buffer, const ETDumpGenOptions& options)
    : options_(options), clock_(options.clock) {
  init_buffer(buffer);
}

ETDumpGen::~ETDumpGen() = default;

void ETDumpGen::init_heap() {
  caller_buffer_ = false;
  arena_.init_heap();
  const std::size_t slots = NameTable::slots_for(options_.max_names);
  name_slots_heap_.reset(new (std::nothrow) NameSlot[slots]);
  if (name_slots_heap_ == nullptr) {
    status_ = Error::kMemoryAllocationFailed;
    names_.init(nullptr, 0, 0, &arena_);
    return;
  }
  names_.init(name_slots_heap_.get(), slots, options_.max_names, &arena_);
  records_.init_heap(options_.heap_max_events);
  if (records_.capacity() == 0) status_ = Error::kMemoryAllocationFailed;
}

// Splits the caller's buffer once. Every region is 64-byte aligned. The
// output region gets the worst-case serialized size of everything the other
// regions can hold, so serialization always fits.
void ETDumpGen::init_buffer(Span<std::uint8_t> buffer) {
  caller_buffer_ = true;
  std::uint8_t* cursor = buffer.data();
  std::size_t left = buffer.size();
  auto take = [&](std::size_t bytes) -> std::uint8_t* {
    const std::size_t pad = (kAlign - reinterpret_cast<std::uintptr_t>(cursor) % kAlign) % kAlign;
    bytes = (bytes + kAlign - 1) & ~(kAlign - 1);
    if (cursor == nullptr || pad > left || bytes > left - pad) return nullptr;
    std::uint8_t* out = cursor + pad;
    cursor = out + bytes;
    left -= pad + bytes;
    return out;
  };
  auto fail = [&] {
    status_ = Error::kOutOfResources;
    names_.init(nullptr, 0, 0, &arena_);
    arena_.init_fixed(nullptr, 0, 0);
    records_.init_fixed(nullptr, 0);
  };

  const std::size_t slots = NameTable::slots_for(options_.max_names);
  auto* name_memory = take(slots * sizeof(NameSlot));
  // The alignment slack of the regions taken below, kept off the budget.
  constexpr std::size_t kRegions = 6;
  if (name_memory == nullptr || left < internal::kFixedOutputBound + kRegions * kAlign) {
    return fail();
  }
  const std::size_t usable = left - internal::kFixedOutputBound - kRegions * kAlign;
  const double fraction = std::clamp(options_.arena_fraction, 0.01, 0.9);
  const auto arena_region = static_cast<std::size_t>(static_cast<double>(usable) * fraction);
  // Serialized values can be a few times larger than their arena blobs.
  const std::size_t arena_bytes = arena_region / 4;
  const std::size_t arena_output = arena_region - arena_bytes;

  constexpr std::size_t kPerEvent =
      sizeof(Record) + sizeof(std::uint32_t) + internal::kRecordOutputBound;
  constexpr std::size_t kPerBlock = sizeof(BlockEntry) + internal::kBlockOutputBound;
  const std::size_t rest = usable - arena_region;
  std::size_t blocks = options_.max_blocks;
  if (blocks == 0) blocks = std::max<std::size_t>(16, rest / kPerEvent / 64);
  if (rest < blocks * kPerBlock + 16 * kPerEvent) return fail();
  const std::size_t events = (rest - blocks * kPerBlock) / kPerEvent;

  auto* block_memory = take(blocks * sizeof(BlockEntry));
  auto* offset_memory = take(events * sizeof(std::uint32_t));
  auto* record_memory = take(events * sizeof(Record));
  auto* arena_memory = take(arena_bytes);
  if (!block_memory || !offset_memory || !record_memory || !arena_memory) {
    return fail();
  }
  // The output region is what is left, from a 64-byte boundary; its size a
  // multiple of 8 so the FlatBuffer's end (and so its start) stays aligned.
  const std::size_t pad = (kAlign - reinterpret_cast<std::uintptr_t>(cursor) % kAlign) % kAlign;
  if (pad > left) return fail();
  cursor += pad;
  left -= pad;
  const std::size_t output_bytes = left & ~std::size_t{7};
  const std::size_t needed = events * internal::kRecordOutputBound +
                             blocks * internal::kBlockOutputBound + arena_output +
                             internal::kFixedOutputBound;
  if (output_bytes < needed) return fail();

  names_.init(reinterpret_cast<NameSlot*>(name_memory), slots, options_.max_names, &arena_);
  arena_.init_fixed(arena_memory, arena_bytes, arena_output);
  records_.init_fixed(reinterpret_cast<Record*>(record_memory), events);
  blocks_fixed_ = reinterpret_cast<BlockEntry*>(block_memory);
  max_blocks_ = blocks;
  offsets_fixed_ = reinterpret_cast<std::uint32_t*>(offset_memory);
  output_region_ = Span<std::uint8_t>(cursor, output_bytes);
}

std::size_t ETDumpGen::capacity() const { return static_cast<std::size_t>(records_.capacity()); }

std::size_t ETDumpGen::num_blocks() const { return num_blocks_; }

std::uint64_t ETDumpGen::num_events() const { return records_.size(); }

void ETDumpGen::reset() {
  records_.clear();
  names_.clear();
  arena_.clear();
  blocks_heap_.clear();
  num_blocks_ = 0;
  allocators_in_block_.store(0, std::memory_order_relaxed);
  blocks_exhausted_.store(false, std::memory_order_relaxed);
  dropped_.store(0, std::memory_order_relaxed);
  rejected_.store(0, std::memory_order_relaxed);
  tensor_data_dropped_.store(0, std::memory_order_relaxed);
  output_ = {};
}

void ETDumpGen::set_data_sink(DataSink* sink) {
  std::lock_guard<std::mutex> lock(sink_mutex_);
  data_sink_ = sink;
}

void ETDumpGen::set_program_fingerprint(const char* fingerprint) {
  if (fingerprint == nullptr) fingerprint = "";
  const std::size_t n = std::min(std::strlen(fingerprint), sizeof(fingerprint_) - 1);
  std::memcpy(fingerprint_, fingerprint, n);
  fingerprint_[n] = '\0';
}

// ---- Records -----------------------------------------------------------------

// Inlined into every logging path: it is most of the per-event work.
[[gnu::always_inline]] inline bool ETDumpGen::claim(Record** first, Record** second) {
  const std::uint32_t count = second == nullptr ? 1 : 2;
  if (!blocks_exhausted_.load(std::memory_order_relaxed)) [[likely]] {
    const std::uint64_t index = records_.claim(count);
    if (index + count <= records_.capacity()) [[likely]] {
      *first = records_.slot(index);
      if (second != nullptr) *second = records_.slot(index + 1);
      if (*first != nullptr && (second == nullptr || *second != nullptr)) {
        return true;
      }
      // A heap chunk could not be allocated: leave both slots empty.
      if (*first != nullptr) (*first)->kind = RecordKind::kEmpty;
    }
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

// ---- Blocks and allocators ---------------------------------------------------

Error ETDumpGen::create_event_block(const char* name) {
  if (status_ != Error::kOk) return status_;
  if (caller_buffer_ && num_blocks_ == max_blocks_) {
    // Without a block to put them in, later events would be attributed to
    // the wrong execution: stop recording instead, and count what is lost.
    blocks_exhausted_.store(true, std::memory_order_relaxed);
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return Error::kOutOfResources;
  }
  BlockEntry entry{};
  entry.first_record = records_.size();
  entry.dropped_at_start = dropped_.load(std::memory_order_relaxed);
  entry.rejected_at_start = rejected_.load(std::memory_order_relaxed);
  entry.tensor_data_dropped_at_start = tensor_data_dropped_.load(std::memory_order_relaxed);
  entry.name = name != nullptr ? names_.intern(name) : kNoName;
  entry.bundled_input_index = bundled_input_index();
  if (caller_buffer_) {
    blocks_fixed_[num_blocks_] = entry;
  } else {
    blocks_heap_.push_back(entry);
  }
  ++num_blocks_;
  allocators_in_block_.store(0, std::memory_order_relaxed);
  return Error::kOk;
}

AllocatorId ETDumpGen::track_allocator(const char* name) {
  const std::uint32_t slot = name != nullptr ? names_.intern(name) : kNoName;
  Record* r = nullptr;
  if ((name != nullptr && slot == kNoName) || !claim(&r)) {
    if (name != nullptr && slot == kNoName) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
    }
    return kUnsetAllocatorId;
  }
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
  Record* r = nullptr;
  if (!claim(&r)) return;
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
    entry.event_id = slot;
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
  Record* r = nullptr;
  if (!claim(&r)) return Error::kOutOfResources;
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
  EventTracerEntry entry;
  entry.tracer = this;
  if (!valid_delegate_id(name, id)) {
    entry.error = reject();
    return entry;
  }
  if (name != nullptr) {
    const std::uint32_t slot = names_.intern(name);
    if (slot == kNoName) entry.error = Error::kOutOfResources;
    entry.event_id = slot;
    entry.delegate_event_id_type = DelegateDebugIdType::kStr;
  } else {
    entry.event_id = id.value;
    entry.delegate_event_id_type = DelegateDebugIdType::kInt;
  }
  // Taken at start, not at end as in ExecuTorch: an event ended after the
  // delegate call returned still belongs to its instruction.
  entry.chain_id = current_chain_id();
  entry.instruction_id = current_instruction_id();
  entry.start_time = clock_.now();
  return entry;
}

Error ETDumpGen::end_profiling_delegate(const EventTracerEntry& entry, const void* metadata,
                                        std::size_t metadata_len) {
  const Ticks end = clock_.now();
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
  return write_delegate_event(entry.delegate_event_id_type == DelegateDebugIdType::kStr,
                              static_cast<std::uint32_t>(entry.event_id), entry.start_time, end,
                              entry.chain_id, entry.instruction_id, metadata, metadata_len,
                              TimeSource::kMeasured);
}

Error ETDumpGen::log_profiling_delegate(const char* name, DelegateDebugIntId id, Ticks start_time,
                                        Ticks end_time, const void* metadata,
                                        std::size_t metadata_len, TimeSource time_source) {
  if (!valid_delegate_id(name, id)) return reject();
  std::uint32_t id_value = static_cast<std::uint32_t>(id.value);
  if (name != nullptr) {
    id_value = names_.intern(name);
    if (id_value == kNoName) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return Error::kOutOfResources;
    }
  }
  return write_delegate_event(name != nullptr, id_value, start_time, end_time, current_chain_id(),
                              current_instruction_id(), metadata, metadata_len, time_source);
}

Error ETDumpGen::write_delegate_event(bool string_id, std::uint32_t id, Ticks start, Ticks end,
                                      ChainId chain, InstructionId instruction,
                                      const void* metadata, std::size_t metadata_len,
                                      TimeSource source) {
  if (metadata_len > 0 && metadata == nullptr) return reject();
  const RecordKind kind = string_id ? RecordKind::kDelegateStr : RecordKind::kDelegateInt;
  std::uint8_t flags = time_source_bits(source);
  if (metadata_len == 0) {
    Record* r = nullptr;
    if (!claim(&r)) return Error::kOutOfResources;
    *r = Record{start, end, id, chain.value, instruction.value, kind, flags, thread_index()};
    return Error::kOk;
  }
  // Metadata is copied; the event is kept whole or dropped whole.
  std::uint8_t* copy =
      arena_.allocate(metadata_len, metadata_len + internal::kStringOutputOverhead);
  Record* r = nullptr;
  Record* meta = nullptr;
  if (copy == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return Error::kOutOfResources;
  }
  if (!claim(&r, &meta)) return Error::kOutOfResources;
  std::memcpy(copy, metadata, metadata_len);
  flags |= internal::kHasMetadata;
  const std::uint16_t thread = thread_index();
  *meta = Record{reinterpret_cast<std::uintptr_t>(copy),
                 metadata_len,
                 0,
                 chain.value,
                 instruction.value,
                 RecordKind::kMetadata,
                 0,
                 thread};
  *r = Record{start, end, id, chain.value, instruction.value, kind, flags, thread};
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
  std::lock_guard<std::mutex> lock(sink_mutex_);
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
  std::size_t bound = internal::kValueOutputBound;
  for (const TensorView& t : tensors) {
    if (t.sizes.size() > internal::kMaxLoggedTensorDims ||
        (!t.strides.empty() && t.strides.size() != t.sizes.size()) || element_size(t.dtype) == 0) {
      return make_error(reject(), "tensor has an unknown dtype or bad rank");
    }
    blob_size += internal::tensor_blob_size(t.sizes.size());
    bound += internal::kTensorOutputBound + 16 * t.sizes.size();
  }
  std::uint8_t* blob = arena_.allocate(blob_size, bound);
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
  Record* r = nullptr;
  if (!claim(&r)) {
    return make_error(Error::kOutOfResources, "ETDump buffer is full");
  }
  *r = Record{
      reinterpret_cast<std::uintptr_t>(blob), blob_size,          id,    current_chain_id().value,
      current_instruction_id().value,         RecordKind::kDebug, flags, thread_index()};
  return true;
}

}  // namespace glassbox::etdump

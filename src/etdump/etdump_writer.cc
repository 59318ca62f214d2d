#include "src/etdump/etdump_writer.h"

#include "glassbox/runtime/event_tracer.h"

namespace glassbox::etdump::internal {
namespace {

// Table sizes and field offsets of the fixed layouts. Field lists below are
// in schema order (a FlatBuffers field's slot is its position); 0 = absent.
constexpr std::uint16_t kEventBytes = 8;
constexpr std::uint16_t kProfileBytes = 44;
constexpr std::uint16_t kAllocationBytes = 16;
constexpr std::uint16_t kAllocatorBytes = 8;
constexpr std::uint16_t kDebugBytes = 24;
constexpr std::uint16_t kValueBytes = 16;
constexpr std::uint16_t kTensorBytes = 24;
constexpr std::uint16_t kInt64TableBytes = 16;  // Int, Double
constexpr std::uint16_t kSmallTableBytes = 8;   // Bool, TensorList
constexpr std::uint16_t kRunDataBytes = 48;
constexpr std::uint16_t kRootBytes = 56;  // 52 bytes of fields, padded to 8
constexpr std::uint16_t kTimeScaleBytes = 24;
constexpr std::uint16_t kTimeScaleOffsetBytes = 32;  // and host_offset_ns

// ProfileEvent: [soffset][A: start end ref | B: ref start end] then
// chain instruction metadata thread time_source.
struct ProfileLayout {
  std::uint16_t ref, start, end;
};
constexpr ProfileLayout kLayoutA{20, 4, 12};
constexpr ProfileLayout kLayoutB{4, 8, 16};
constexpr std::uint16_t kProfileChain = 24, kProfileInstruction = 28, kProfileMetadata = 32,
                        kProfileThread = 36, kProfileTimeSource = 40;
// With counters the table is 4 bytes longer: their vector's offset last.
constexpr std::uint16_t kProfileCountersBytes = 48, kProfileCounters = 44;
constexpr std::uint16_t kCounterBytes = 16;  // struct Counter: name, pad, value

// Value: [soffset][member][output][val]; members by ValueType, as fields.
constexpr std::uint16_t kValueMember = 4, kValueOutput = 8, kValueType = 12;
constexpr unsigned kValueFieldOf[8] = {0, 3, 6, 4, 5, 1, 2, 0};  // Null..String

using runtime::ValueView;

std::uint8_t value_type(ValueView::Kind kind) {
  switch (kind) {
    case ValueView::Kind::kNone: return 0;
    case ValueView::Kind::kInt: return 1;
    case ValueView::Kind::kBool: return 2;
    case ValueView::Kind::kDouble: return 4;
    case ValueView::Kind::kTensor: return 5;
    case ValueView::Kind::kTensorList: return 6;
  }
  return 0;
}

constexpr std::size_t tensor_bytes(std::size_t ndim) {
  return kTensorBytes + 2 * (8 + 8 * ndim);  // table, sizes, strides
}

}  // namespace

std::size_t debug_event_bytes(std::uint8_t kind, std::size_t num_tensors, std::size_t total_dims) {
  std::size_t member = 0;
  switch (static_cast<ValueView::Kind>(kind)) {
    case ValueView::Kind::kNone: break;
    case ValueView::Kind::kInt:
    case ValueView::Kind::kDouble: member = kInt64TableBytes; break;
    case ValueView::Kind::kBool: member = kSmallTableBytes; break;
    case ValueView::Kind::kTensor: member = num_tensors * tensor_bytes(0) + 16 * total_dims; break;
    case ValueView::Kind::kTensorList:
      member = num_tensors * tensor_bytes(0) + 16 * total_dims + kSmallTableBytes +
               (4 + 4 * num_tensors + 7) / 8 * 8;
      break;
  }
  // Alignment, the value's subtree, Value, DebugEvent, Event, vector slot.
  return 4 + member + kValueBytes + kDebugBytes + kEventBytes + 4;
}

void ETDumpWriter::vtable(Vtable vt, std::uint16_t table_bytes, const std::uint16_t* fields,
                          unsigned count) {
  const std::size_t bytes = 4 + 2 * std::size_t{count};
  cur_ -= (bytes + 3) / 4 * 4;
  std::memset(cur_, 0, (bytes + 3) / 4 * 4);
  store16(cur_, static_cast<std::uint16_t>(bytes));
  store16(cur_ + 2, table_bytes);
  for (unsigned i = 0; i < count; ++i) store16(cur_ + 4 + 2 * i, fields[i]);
  vtables_[vt] = size();
}

void ETDumpWriter::write_shared(bool counters) {
  auto vt = [this](Vtable id, std::uint16_t bytes, std::initializer_list<std::uint16_t> fields) {
    vtable(id, bytes, fields.begin(), static_cast<unsigned>(fields.size()));
  };
  vt(kVtEventProfile, kEventBytes, {4});
  vt(kVtEventAllocation, kEventBytes, {0, 4});
  vt(kVtEventDebug, kEventBytes, {0, 0, 4});
  const Vtable profile_ids[2][4] = {
      {kVtProfileNamedA, kVtProfileUnnamedA, kVtProfileIntA, kVtProfileStrA},
      {kVtProfileNamedB, kVtProfileUnnamedB, kVtProfileIntB, kVtProfileStrB}};
  for (int b = 0; b < 2; ++b) {
    const ProfileLayout l = b == 0 ? kLayoutA : kLayoutB;
    // name chain instruction id_int id_str metadata start end thread source
    vt(profile_ids[b][0], kProfileBytes,
       {l.ref, kProfileChain, kProfileInstruction, 0, 0, 0, l.start, l.end, kProfileThread,
        kProfileTimeSource});
    vt(profile_ids[b][1], kProfileBytes,
       {0, kProfileChain, kProfileInstruction, 0, 0, 0, l.start, l.end, kProfileThread,
        kProfileTimeSource});
    vt(profile_ids[b][2], kProfileBytes,
       {0, kProfileChain, kProfileInstruction, l.ref, 0, kProfileMetadata, l.start, l.end,
        kProfileThread, kProfileTimeSource});
    vt(profile_ids[b][3], kProfileBytes,
       {0, kProfileChain, kProfileInstruction, 0, l.ref, kProfileMetadata, l.start, l.end,
        kProfileThread, kProfileTimeSource});
  }
  if (counters) {
    // The delegate shapes again, with the counters field (CounterNameTable
    // charges these four vtables).
    const Vtable counter_ids[2][2] = {{kVtProfileIntCountersA, kVtProfileStrCountersA},
                                      {kVtProfileIntCountersB, kVtProfileStrCountersB}};
    for (int b = 0; b < 2; ++b) {
      const ProfileLayout l = b == 0 ? kLayoutA : kLayoutB;
      vt(counter_ids[b][0], kProfileCountersBytes,
         {0, kProfileChain, kProfileInstruction, l.ref, 0, kProfileMetadata, l.start, l.end,
          kProfileThread, kProfileTimeSource, kProfileCounters});
      vt(counter_ids[b][1], kProfileCountersBytes,
         {0, kProfileChain, kProfileInstruction, 0, l.ref, kProfileMetadata, l.start, l.end,
          kProfileThread, kProfileTimeSource, kProfileCounters});
    }
  }
  vt(kVtAllocationEvent, kAllocationBytes, {4, 8});
  vt(kVtAllocatorNamed, kAllocatorBytes, {4});
  vt(kVtAllocatorUnnamed, kAllocatorBytes, {});
  // chain instruction debug_entry id_int id_str
  vt(kVtDebugInt, kDebugBytes, {8, 4, 16, 20});
  vt(kVtDebugStr, kDebugBytes, {8, 4, 16, 0, 20});
  vt(kVtDebugNone, kDebugBytes, {8, 4, 16});
  // scalar_type sizes strides offset
  vt(kVtTensor, kTensorBytes, {20, 4, 16, 8});
  vt(kVtInt, kInt64TableBytes, {8});
  vt(kVtDouble, kInt64TableBytes, {8});
  vt(kVtBool, kSmallTableBytes, {4});
  vt(kVtTensorList, kSmallTableBytes, {4});
  for (int has_name = 0; has_name < 2; ++has_name) {
    for (int has_allocators = 0; has_allocators < 2; ++has_allocators) {
      // name bundled_input_index allocators events dropped rejected tensor_data_dropped
      vt(static_cast<Vtable>(kVtRunDataFirst + 2 * has_name + has_allocators), kRunDataBytes,
         {static_cast<std::uint16_t>(has_name ? 4 : 0), 40,
          static_cast<std::uint16_t>(has_allocators ? 32 : 0), 36, 8, 16, 24});
    }
  }
  for (unsigned type = 0; type < 8; ++type) {
    for (unsigned output = 0; output < 2; ++output) {
      std::uint16_t fields[8] = {kValueType};
      if (kValueFieldOf[type] != 0) fields[kValueFieldOf[type]] = kValueMember;
      if (output != 0) fields[7] = kValueOutput;
      vtable(static_cast<Vtable>(kVtValueFirst + 2 * type + output), kValueBytes, fields, 8);
    }
  }
  // backend ns_per_tick [host_offset_ns]
  vt(kVtDelegateTimeScale, kTimeScaleBytes, {4, 8});
  vt(kVtDelegateTimeScaleOffset, kTimeScaleOffsetBytes, {4, 8, 24});
  // The empty byte vector every delegate event without metadata shares
  // (ExecuTorch always writes one), and the Bool(true) of program outputs.
  cur_ -= 4;
  store32(cur_, 0);
  empty_bytes_ = size();
  align(8);
  const Pos t = table<kSmallTableBytes>(kVtBool);
  *field(t, 4) = 1;
  true_value_ = t;
}

Pos ETDumpWriter::string(const char* text, std::size_t length) {
  const std::size_t bytes = (4 + length + 1 + 3) / 4 * 4;
  cur_ -= bytes;
  store32(cur_, static_cast<std::uint32_t>(length));
  std::memcpy(cur_ + 4, text, length);
  std::memset(cur_ + 4 + length, 0, bytes - 4 - length);
  return size();
}

std::uint8_t* ETDumpWriter::metadata_bytes(std::size_t length) {
  const std::size_t bytes = (4 + length + 3) / 4 * 4;
  cur_ -= bytes;
  // The padding lies in the last word; short metadata cannot overlap its
  // source (see the serializer), so that word is cleared now, in one store.
  if (length <= kShortMetadata) store32(cur_ + bytes - 4, 0);
  return cur_ + 4;
}

Pos ETDumpWriter::finish_metadata(std::size_t length) {
  const std::size_t bytes = (4 + length + 3) / 4 * 4;
  if (length > kShortMetadata) std::memset(cur_ + 4 + length, 0, bytes - 4 - length);
  store32(cur_, static_cast<std::uint32_t>(length));
  return size();
}

Pos ETDumpWriter::counters(const Record* records, std::uint32_t n) {
  // Elements 8-aligned (a Counter holds a long): [count][elements].
  align(8);
  cur_ -= std::size_t{kCounterBytes} * n;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint8_t* c = cur_ + std::size_t{kCounterBytes} * i;
    store32(c, records[i].id);
    store32(c + 4, 0);
    store64(c + 8, records[i].a);
  }
  cur_ -= 4;
  store32(cur_, n);
  return size();
}

Pos ETDumpWriter::profile_event(const Record& r, ProfileShape shape, std::uint32_t ref,
                                Pos metadata, Pos counters) {
  const std::uint16_t bytes = counters != 0 ? kProfileCountersBytes : kProfileBytes;
  // Layout A puts start_time 4 bytes into the table, B 8: whichever lands
  // it on an 8-byte boundary here, so no event needs padding.
  const bool b = (size() + bytes) % 8 == 0;
  const ProfileLayout l = b ? kLayoutB : kLayoutA;
  Vtable vt =
      static_cast<Vtable>((b ? kVtProfileNamedB : kVtProfileNamedA) + static_cast<int>(shape));
  if (counters != 0) {
    vt = static_cast<Vtable>((b ? kVtProfileIntCountersB : kVtProfileIntCountersA) +
                             (shape == ProfileShape::kDelegateStr ? 1 : 0));
  }
  cur_ -= bytes;
  const Pos at = size();
  store32(cur_, static_cast<std::uint32_t>(static_cast<std::int32_t>(vtables_[vt] - at)));
  store64(cur_ + l.start, r.a);
  store64(cur_ + l.end, r.b);
  switch (shape) {
    case ProfileShape::kNamed:
    case ProfileShape::kDelegateStr: offset_field(at, l.ref, ref); break;
    case ProfileShape::kDelegateInt: store32(cur_ + l.ref, ref); break;
    case ProfileShape::kUnnamed: store32(cur_ + l.ref, 0); break;
  }
  store32(cur_ + kProfileChain, static_cast<std::uint32_t>(r.chain));
  store32(cur_ + kProfileInstruction, static_cast<std::uint32_t>(r.instruction));
  if (shape == ProfileShape::kDelegateInt || shape == ProfileShape::kDelegateStr) {
    offset_field(at, kProfileMetadata, metadata != 0 ? metadata : empty_bytes_);
  } else {
    store32(cur_ + kProfileMetadata, 0);
  }
  store32(cur_ + kProfileThread, r.thread);
  store32(cur_ + kProfileTimeSource, r.flags & kTimeSourceMask);  // + 3 zero pad bytes
  if (counters != 0) offset_field(at, kProfileCounters, counters);

  cur_ -= kEventBytes;
  const Pos event = size();
  store32(cur_,
          static_cast<std::uint32_t>(static_cast<std::int32_t>(vtables_[kVtEventProfile] - event)));
  store32(cur_ + 4, event - 4 - at);
  return event;
}

Pos ETDumpWriter::allocation_event(const Record& r) {
  align(8);
  const Pos at = table<kAllocationBytes>(kVtAllocationEvent);
  store32(field(at, 4), r.id);
  store64(field(at, 8), r.a);
  const Pos event = table<kEventBytes>(kVtEventAllocation);
  offset_field(event, 4, at);
  return event;
}

Pos ETDumpWriter::allocator(Pos name) {
  const Pos at = table<kAllocatorBytes>(name != 0 ? kVtAllocatorNamed : kVtAllocatorUnnamed);
  if (name != 0) offset_field(at, 4, name);
  return at;
}

Pos ETDumpWriter::long_vector(const std::int64_t* values, std::size_t count) {
  // Elements 8-aligned: [pad][count][elements] from low to high.
  cur_ -= 8 * count;
  std::memcpy(cur_, values, 8 * count);
  cur_ -= 4;
  store32(cur_, static_cast<std::uint32_t>(count));
  const Pos at = size();
  cur_ -= 4;
  store32(cur_, 0);
  return at;
}

Pos ETDumpWriter::tensor(const std::uint8_t*& cursor) {
  TensorBlob tb;
  std::memcpy(&tb, cursor, sizeof(tb));
  std::int64_t dims[2 * kMaxLoggedTensorDims];
  std::memcpy(dims, cursor + sizeof(tb), 2 * tb.ndim * sizeof(std::int64_t));
  cursor += tensor_blob_size(tb.ndim);
  const Pos strides = long_vector(dims + tb.ndim, tb.ndim);
  const Pos sizes = long_vector(dims, tb.ndim);
  const Pos at = table<kTensorBytes>(kVtTensor);
  offset_field(at, 4, sizes);
  store64(field(at, 8), static_cast<std::uint64_t>(tb.offset));
  offset_field(at, 16, strides);
  *field(at, 20) = static_cast<std::uint8_t>(tb.dtype);
  return at;
}

Pos ETDumpWriter::debug_event(const Record& r, std::uint32_t id_ref) {
  const auto* blob = reinterpret_cast<const std::uint8_t*>(r.a);
  ValueBlobHeader header;
  std::memcpy(&header, blob, sizeof(header));
  const std::uint8_t* cursor = blob + sizeof(header);
  const auto kind = static_cast<ValueView::Kind>(header.kind);
  align(8);
  Pos member = 0;
  switch (kind) {
    case ValueView::Kind::kNone: break;
    case ValueView::Kind::kInt:
      member = table<kInt64TableBytes>(kVtInt);
      store64(field(member, 8), static_cast<std::uint64_t>(header.int_value));
      break;
    case ValueView::Kind::kDouble:
      member = table<kInt64TableBytes>(kVtDouble);
      std::memcpy(field(member, 8), &header.double_value, 8);
      break;
    case ValueView::Kind::kBool:
      member = table<kSmallTableBytes>(kVtBool);
      *field(member, 4) = header.int_value != 0 ? 1 : 0;
      break;
    case ValueView::Kind::kTensor: member = tensor(cursor); break;
    case ValueView::Kind::kTensorList: {
      // Tensors are written first (children sit above parents); their
      // positions are pushed back to front.
      Pos tensors[kMaxLoggedTensorList];
      for (std::uint32_t i = 0; i < header.num_tensors; ++i) tensors[i] = tensor(cursor);
      begin_vector();
      for (std::uint32_t i = header.num_tensors; i-- > 0;) push_offset(tensors[i]);
      const Pos list = end_vector(header.num_tensors);
      member = table<kSmallTableBytes>(kVtTensorList);
      offset_field(member, 4, list);
      break;
    }
  }
  const bool output = (r.flags & kDebugOutput) != 0;
  const std::uint8_t type = value_type(kind);
  const Pos value =
      table<kValueBytes>(static_cast<Vtable>(kVtValueFirst + 2 * type + (output ? 1 : 0)));
  if (member != 0) offset_field(value, kValueMember, member);
  if (output) offset_field(value, kValueOutput, true_value_);
  *field(value, kValueType) = type;

  const Vtable vt = (r.flags & kDebugIdStr)   ? kVtDebugStr
                    : (r.flags & kDebugIdInt) ? kVtDebugInt
                                              : kVtDebugNone;
  const Pos at = table<kDebugBytes>(vt);
  store32(field(at, 4), static_cast<std::uint32_t>(r.instruction));
  // DebugEvent.chain_index is unsigned in the schema: -1 wraps, exactly as
  // in ExecuTorch-written files.
  store64(field(at, 8), static_cast<std::uint64_t>(static_cast<std::int64_t>(r.chain)));
  offset_field(at, 16, value);
  if (vt == kVtDebugStr) offset_field(at, 20, id_ref);
  if (vt == kVtDebugInt) store32(field(at, 20), id_ref);
  const Pos event = table<kEventBytes>(kVtEventDebug);
  offset_field(event, 4, at);
  return event;
}

Pos ETDumpWriter::run_data(const RunFields& run) {
  align(8);
  const auto vt =
      static_cast<Vtable>(kVtRunDataFirst + 2 * (run.name != 0) + (run.allocators != 0));
  const Pos at = table<kRunDataBytes>(vt);
  if (run.name != 0) offset_field(at, 4, run.name);
  store64(field(at, 8), run.dropped);
  store64(field(at, 16), run.rejected);
  store64(field(at, 24), run.tensor_data_dropped);
  if (run.allocators != 0) offset_field(at, 32, run.allocators);
  offset_field(at, 36, run.events);
  store32(field(at, 40), static_cast<std::uint32_t>(run.bundled_input_index));
  return at;
}

Pos ETDumpWriter::delegate_time_scale(Pos backend, std::uint64_t numerator,
                                      std::uint64_t denominator,
                                      const std::int64_t* host_offset_ns) {
  align(8);  // the ratio's 8-byte members
  Pos at = 0;
  if (host_offset_ns != nullptr) {
    at = table<kTimeScaleOffsetBytes>(kVtDelegateTimeScaleOffset);
    store64(field(at, 24), static_cast<std::uint64_t>(*host_offset_ns));
  } else {
    at = table<kTimeScaleBytes>(kVtDelegateTimeScale);
  }
  offset_field(at, 4, backend);
  store64(field(at, 8), numerator);
  store64(field(at, 16), denominator);
  return at;
}

void ETDumpWriter::finish(const RootFields& root) {
  // version run_data tick_ratio fingerprint dropped_events producer dropped_blocks
  // delegate_time_scales counter_names (only when there are counters: a
  // dump without them keeps its bytes)
  const std::uint16_t fields[] = {
      0,  4,  8,  static_cast<std::uint16_t>(root.fingerprint ? 40 : 0),
      24, 44, 32, static_cast<std::uint16_t>(root.delegate_time_scales ? 48 : 0),
      52};
  vtable(kVtRoot, kRootBytes, fields, root.counter_names != 0 ? 9 : 8);
  align(8);
  const Pos at = table<kRootBytes>(kVtRoot);
  offset_field(at, 4, root.run_data);
  store64(field(at, 8), root.tick_numerator);
  store64(field(at, 16), root.tick_denominator);
  store64(field(at, 24), root.dropped_events);
  store64(field(at, 32), root.dropped_blocks);
  if (root.fingerprint != 0) offset_field(at, 40, root.fingerprint);
  offset_field(at, 44, root.producer);
  if (root.delegate_time_scales != 0) offset_field(at, 48, root.delegate_time_scales);
  if (root.counter_names != 0) offset_field(at, 52, root.counter_names);
  // Identifier, root offset and size prefix: 12 bytes, after which the
  // whole buffer is a multiple of 8.
  cur_ -= 4;
  store32(cur_, 0);
  cur_ -= 4;
  std::memcpy(cur_, "ED00", 4);
  cur_ -= 4;
  store32(cur_, size() - at);
  const Pos total = size();
  cur_ -= 4;
  store32(cur_, total);
}

}  // namespace glassbox::etdump::internal

// ETDumpGen::get_etdump_data: turns the logged records into one ETDump
// FlatBuffer. Runs once per dump, off the hot path; in caller-buffer mode
// it builds inside the region reserved for it and allocates nothing.

#include <cstdio>
#include <cstring>

#include "etdump_generated.h"
#include "glassbox/config.h"
#include "glassbox/core/check.h"
#include "glassbox/etdump/etdump_gen.h"
#include "src/etdump/value_blob.h"

namespace glassbox::etdump {

using internal::BlockEntry;
using internal::kNoName;
using internal::Record;
using internal::RecordKind;
using runtime::ValueView;

namespace fb = ::etdump;

namespace {

// Hands the builder the whole reserved region once. Every event reserved
// its worst case when logged, so the builder never asks to grow; if it
// does, a size bound in etdump_gen_storage.h is wrong: a bug, not an error.
class RegionAllocator final : public flatbuffers::Allocator {
 public:
  explicit RegionAllocator(Span<std::uint8_t> region) : region_(region) {}
  std::uint8_t* allocate(std::size_t size) override {
    GLASSBOX_CHECK(size <= region_.size());
    return region_.data();
  }
  void deallocate(std::uint8_t*, std::size_t) override {}
  std::uint8_t* reallocate_downward(std::uint8_t*, std::size_t, std::size_t, std::size_t,
                                    std::size_t) override {
    GLASSBOX_CHECK(false && "ETDump output bound exceeded");
    return nullptr;
  }

 private:
  Span<std::uint8_t> region_;
};

bool is_event(RecordKind kind) {
  return kind == RecordKind::kProfile || kind == RecordKind::kDelegateInt ||
         kind == RecordKind::kDelegateStr || kind == RecordKind::kAllocation ||
         kind == RecordKind::kDebug;
}

// One block's bounds and counters, the same for real and implicit blocks.
struct BlockSpan {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint32_t name = kNoName;
  const char* default_name = nullptr;  // for the implicit "Default" block
  std::int32_t bundled_input_index = -1;
  std::uint64_t dropped = 0;
  std::uint64_t rejected = 0;
  std::uint64_t tensor_data_dropped = 0;
};

class Serializer {
 public:
  Serializer(flatbuffers::FlatBufferBuilder& fbb, internal::RecordStore& records,
             internal::NameTable& names, std::uint32_t* offsets)
      : fbb_(fbb), records_(records), names_(names), offsets_(offsets) {}

  flatbuffers::Offset<fb::RunData> run(const BlockSpan& block) {
    std::uint32_t num_events = 0;
    std::uint32_t num_allocators = 0;
    for (std::uint64_t i = block.begin; i < block.end; ++i) {
      const Record* r = records_.peek(i);
      if (r == nullptr) continue;
      if (r->kind == RecordKind::kAllocator) {
        offsets_[i] = fb::CreateAllocator(fbb_, name(r->id)).o;
        ++num_allocators;
      } else if (is_event(r->kind)) {
        const Record* next = (r->flags & internal::kHasMetadata) && i + 1 < block.end
                                 ? records_.peek(i + 1)
                                 : nullptr;
        offsets_[i] = event(*r, next).o;
        ++num_events;
      }
    }
    const auto events = vector_of(block, num_events, false);
    const auto allocators = num_allocators > 0 ? vector_of(block, num_allocators, true) : 0;
    const auto run_name =
        block.default_name != nullptr ? fbb_.CreateString(block.default_name) : name(block.name);
    // The Glassbox counters are written even when zero, so that a reader
    // can tell "nothing dropped" from "a writer that does not count".
    fbb_.ForceDefaults(true);
    const auto run = fb::CreateRunData(
        fbb_, run_name, block.bundled_input_index,
        flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Allocator>>>(allocators),
        flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Event>>>(events),
        block.dropped, block.rejected, block.tensor_data_dropped);
    fbb_.ForceDefaults(false);
    return run;
  }

 private:
  // Each distinct name is written once and shared by every event using it.
  flatbuffers::Offset<flatbuffers::String> name(std::uint32_t slot) {
    if (slot == kNoName) return 0;
    internal::NameSlot& s = names_.slot(slot);
    if (s.fb_offset == 0) {
      s.fb_offset = fbb_.CreateString(s.text.load(std::memory_order_relaxed), s.length).o;
    }
    return s.fb_offset;
  }

  // A vector of the offsets stored for this block's events or allocators,
  // in record order.
  flatbuffers::uoffset_t vector_of(const BlockSpan& block, std::uint32_t count, bool allocators) {
    fbb_.StartVector(count, sizeof(flatbuffers::uoffset_t));
    for (std::uint64_t i = block.end; i-- > block.begin;) {
      const Record* r = records_.peek(i);
      if (r == nullptr) continue;
      const bool wanted = allocators ? r->kind == RecordKind::kAllocator : is_event(r->kind);
      if (wanted) fbb_.PushElement(flatbuffers::Offset<void>(offsets_[i]));
    }
    return fbb_.EndVector(count);
  }

  flatbuffers::Offset<fb::Event> event(const Record& r, const Record* meta) {
    switch (r.kind) {
      case RecordKind::kAllocation:
        return fb::CreateEvent(
            fbb_, 0, fb::CreateAllocationEvent(fbb_, static_cast<std::int32_t>(r.id), r.a));
      case RecordKind::kDebug: return fb::CreateEvent(fbb_, 0, 0, debug_event(r));
      default: return fb::CreateEvent(fbb_, profile_event(r, meta));
    }
  }

  flatbuffers::Offset<fb::ProfileEvent> profile_event(const Record& r, const Record* meta) {
    const bool delegate = r.kind != RecordKind::kProfile;
    const auto event_name = delegate ? 0 : name(r.id);
    const auto id_str = r.kind == RecordKind::kDelegateStr ? name(r.id) : 0;
    const std::int32_t id_int =
        r.kind == RecordKind::kDelegateInt ? static_cast<std::int32_t>(r.id) : -1;
    // Delegate events always carry a metadata vector, empty when none was
    // given, as ExecuTorch's writer does.
    flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> metadata = 0;
    if (delegate) {
      const bool has = meta != nullptr && meta->kind == RecordKind::kMetadata;
      metadata = fbb_.CreateVector(has ? reinterpret_cast<const std::uint8_t*>(meta->a) : nullptr,
                                   has ? static_cast<std::size_t>(meta->b) : 0);
    }
    return fb::CreateProfileEvent(fbb_, event_name, r.chain, r.instruction, id_int, id_str,
                                  metadata, r.a, r.b, r.thread,
                                  static_cast<fb::TimeSource>(r.flags & internal::kTimeSourceMask));
  }

  flatbuffers::Offset<fb::Tensor> tensor(const std::uint8_t*& cursor) {
    internal::TensorBlob tb;
    std::memcpy(&tb, cursor, sizeof(tb));
    const auto* dims = reinterpret_cast<const std::int64_t*>(cursor + sizeof(tb));
    cursor += internal::tensor_blob_size(tb.ndim);
    const auto sizes = fbb_.CreateVector(dims, tb.ndim);
    const auto strides = fbb_.CreateVector(dims + tb.ndim, tb.ndim);
    return fb::CreateTensor(fbb_, static_cast<executorch_flatbuffer::ScalarType>(tb.dtype), sizes,
                            strides, tb.offset);
  }

  flatbuffers::Offset<fb::DebugEvent> debug_event(const Record& r) {
    const auto* blob = reinterpret_cast<const std::uint8_t*>(r.a);
    internal::ValueBlobHeader header;
    std::memcpy(&header, blob, sizeof(header));
    const std::uint8_t* cursor = blob + sizeof(header);

    fb::ValueType type = fb::ValueType::Null;
    flatbuffers::Offset<fb::Tensor> single = 0;
    flatbuffers::Offset<fb::TensorList> list = 0;
    flatbuffers::Offset<fb::Int> int_value = 0;
    flatbuffers::Offset<fb::Double> double_value = 0;
    flatbuffers::Offset<fb::Bool> bool_value = 0;
    switch (static_cast<ValueView::Kind>(header.kind)) {
      case ValueView::Kind::kNone: break;
      case ValueView::Kind::kInt:
        type = fb::ValueType::Int;
        int_value = fb::CreateInt(fbb_, header.int_value);
        break;
      case ValueView::Kind::kBool:
        type = fb::ValueType::Bool;
        bool_value = fb::CreateBool(fbb_, header.int_value != 0);
        break;
      case ValueView::Kind::kDouble:
        type = fb::ValueType::Double;
        double_value = fb::CreateDouble(fbb_, header.double_value);
        break;
      case ValueView::Kind::kTensor:
        type = fb::ValueType::Tensor;
        single = tensor(cursor);
        break;
      case ValueView::Kind::kTensorList: {
        type = fb::ValueType::TensorList;
        // Tensors are created first (children before parents), then their
        // offsets are pushed back to front.
        for (std::uint32_t i = 0; i < header.num_tensors; ++i) {
          tensor_scratch_[i] = tensor(cursor).o;
        }
        list = fb::CreateTensorList(fbb_, tensor_vector(header.num_tensors));
        break;
      }
    }
    // Program outputs carry output=true; the flag is absent otherwise.
    const auto output = (r.flags & internal::kDebugOutput) ? fb::CreateBool(fbb_, true)
                                                           : flatbuffers::Offset<fb::Bool>(0);
    const auto value =
        fb::CreateValue(fbb_, type, single, list, int_value, 0, double_value, bool_value, output);
    const auto id_str = (r.flags & internal::kDebugIdStr) ? name(r.id) : 0;
    const std::int32_t id_int =
        (r.flags & internal::kDebugIdInt) ? static_cast<std::int32_t>(r.id) : -1;
    // DebugEvent.chain_index is unsigned in the schema: -1 wraps, exactly as
    // in ExecuTorch-written files.
    return fb::CreateDebugEvent(fbb_,
                                static_cast<std::uint64_t>(static_cast<std::int64_t>(r.chain)),
                                r.instruction, value, id_int, id_str);
  }

  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>>> tensor_vector(
      std::uint32_t count) {
    fbb_.StartVector(count, sizeof(flatbuffers::uoffset_t));
    for (std::uint32_t i = count; i-- > 0;) {
      fbb_.PushElement(flatbuffers::Offset<void>(tensor_scratch_[i]));
    }
    return fbb_.EndVector(count);
  }

  flatbuffers::FlatBufferBuilder& fbb_;
  internal::RecordStore& records_;
  internal::NameTable& names_;
  std::uint32_t* offsets_;
  std::uint32_t tensor_scratch_[internal::kMaxLoggedTensorList] = {};
};

}  // namespace

Result<Span<const std::uint8_t>> ETDumpGen::get_etdump_data() {
  if (status_ != Error::kOk) {
    return make_error(status_, "the ETDump buffer is too small to record");
  }
  const std::uint64_t num_records = records_.size();
  std::uint32_t* offsets = offsets_fixed_;
  if (!caller_buffer_) {
    offsets_heap_.assign(static_cast<std::size_t>(num_records), 0);
    offsets = offsets_heap_.data();
  }
  for (std::size_t i = 0; i < names_.num_slots(); ++i) {
    names_.slot(static_cast<std::uint32_t>(i)).fb_offset = 0;
  }

  RegionAllocator region(output_region_);
  flatbuffers::FlatBufferBuilder fbb(caller_buffer_ ? output_region_.size() : 64 * 1024,
                                     caller_buffer_ ? &region : nullptr, false, 8);
  Serializer serializer(fbb, records_, names_, offsets);

  // Blocks: an implicit "Default" block holds events logged before the
  // first create_event_block.
  BlockEntry* blocks = caller_buffer_ ? blocks_fixed_ : blocks_heap_.data();
  const std::uint64_t dropped = dropped_.load(std::memory_order_relaxed);
  const std::uint64_t rejected = rejected_.load(std::memory_order_relaxed);
  const std::uint64_t tensor_dropped = tensor_data_dropped_.load(std::memory_order_relaxed);
  const std::uint64_t first_block_start = num_blocks_ > 0 ? blocks[0].first_record : num_records;
  const bool implicit = first_block_start > 0 || num_blocks_ == 0;

  flatbuffers::uoffset_t implicit_run = 0;
  if (implicit) {
    BlockSpan span;
    span.end = first_block_start;
    span.default_name = "Default";
    span.dropped = num_blocks_ > 0 ? blocks[0].dropped_at_start : dropped;
    span.rejected = num_blocks_ > 0 ? blocks[0].rejected_at_start : rejected;
    span.tensor_data_dropped =
        num_blocks_ > 0 ? blocks[0].tensor_data_dropped_at_start : tensor_dropped;
    implicit_run = serializer.run(span).o;
  }
  for (std::size_t k = 0; k < num_blocks_; ++k) {
    const bool last = k + 1 == num_blocks_;
    BlockSpan span;
    span.begin = blocks[k].first_record;
    span.end = last ? num_records : blocks[k + 1].first_record;
    span.name = blocks[k].name;
    span.bundled_input_index = blocks[k].bundled_input_index;
    span.dropped = (last ? dropped : blocks[k + 1].dropped_at_start) - blocks[k].dropped_at_start;
    span.rejected =
        (last ? rejected : blocks[k + 1].rejected_at_start) - blocks[k].rejected_at_start;
    span.tensor_data_dropped =
        (last ? tensor_dropped : blocks[k + 1].tensor_data_dropped_at_start) -
        blocks[k].tensor_data_dropped_at_start;
    blocks[k].run_offset = serializer.run(span).o;
  }
  const std::size_t num_runs = num_blocks_ + (implicit ? 1 : 0);
  fbb.StartVector(num_runs, sizeof(flatbuffers::uoffset_t));
  for (std::size_t k = num_blocks_; k-- > 0;) {
    fbb.PushElement(flatbuffers::Offset<void>(blocks[k].run_offset));
  }
  if (implicit) fbb.PushElement(flatbuffers::Offset<void>(implicit_run));
  const auto run_data = fbb.EndVector(num_runs);

  const fb::TickRatio ratio(clock_.ratio().numerator, clock_.ratio().denominator);
  const auto fingerprint = fingerprint_[0] != '\0' ? fbb.CreateString(fingerprint_)
                                                   : flatbuffers::Offset<flatbuffers::String>(0);
  char producer_text[32];
  std::snprintf(producer_text, sizeof(producer_text), "glassbox %s", kVersion);
  const auto producer = fbb.CreateString(producer_text);
  fbb.ForceDefaults(true);  // dropped_events even when zero, as above
  const auto root = fb::CreateETDump(
      fbb, /*version=*/0,
      flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::RunData>>>(run_data), &ratio,
      fingerprint, dropped, producer);
  fbb.ForceDefaults(false);
  fb::FinishSizePrefixedETDumpBuffer(fbb, root);

  if (caller_buffer_) {
    output_ = Span<const std::uint8_t>(fbb.GetBufferPointer(), fbb.GetSize());
  } else {
    output_heap_.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    output_ = Span<const std::uint8_t>(output_heap_);
  }
  return output_;
}

}  // namespace glassbox::etdump

#include "src/etdump/reader/decode.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include "glassbox/core/raw_trace.h"
#include "glassbox/schema/etdump_generated.h"

namespace glassbox::etdump {
namespace {

namespace fb = ::etdump;

Status corrupt(std::string message) { return Status(Error::kCorruptData, std::move(message)); }

// Generated tables derive privately from flatbuffers::Table, whose
// CheckField tells "absent" from "present with the default". A C-style cast
// is the one well-defined conversion to an inaccessible base.
template <typename T>
bool has_field(const T* table, flatbuffers::voffset_t field) {
  return ((const flatbuffers::Table*)table)->CheckField(field);  // NOLINT
}

std::optional<std::string> to_optional_string(const flatbuffers::String* s) {
  if (s == nullptr) return std::nullopt;
  return std::string(s->c_str(), s->size());
}

std::string to_string_or_empty(const flatbuffers::String* s) {
  return s == nullptr ? std::string() : std::string(s->c_str(), s->size());
}

// Copies the raw elements: the Verifier only checks a vector's length field
// for 4-byte alignment, so the elements of a [long] may sit at 4 mod 8 and
// must not be read through typed (aligned) loads. FlatBuffers are
// little-endian, like every host we build for.
template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  static_assert(std::endian::native == std::endian::little);
  static_assert(std::is_arithmetic_v<T>);
  if (v == nullptr) return {};
  std::vector<T> out(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

// Names an event in messages; indices are 0-based like the JSON arrays.
std::string where(std::size_t run, std::size_t event) {
  return "event " + std::to_string(event) + " of run " + std::to_string(run);
}

Tensor decode_tensor(const fb::Tensor& t) {
  Tensor out;
  out.scalar_type = static_cast<std::int8_t>(t.scalar_type());
  out.sizes = to_vector(t.sizes());
  out.strides = to_vector(t.strides());
  out.offset = t.offset();
  return out;
}

std::string_view value_type_name(fb::ValueType type) {
  const char* name = fb::EnumNameValueType(type);
  return name == nullptr ? std::string_view() : std::string_view(name);
}

// The Value table's rule: `val` names the one member that is set (none for
// Null and String, which has no member in the schema).
StatusOr<Value> decode_value(const fb::Value& v, const std::string& context) {
  const auto raw_type = static_cast<std::int8_t>(v.val());
  if (raw_type < static_cast<std::int8_t>(fb::ValueType::MIN) ||
      raw_type > static_cast<std::int8_t>(fb::ValueType::MAX)) {
    return corrupt(context + ": unknown value type " + std::to_string(raw_type));
  }
  struct Member {
    const char* field;
    fb::ValueType type;
    bool present;
  };
  const Member members[] = {
      {"tensor", fb::ValueType::Tensor, v.tensor() != nullptr},
      {"tensor_list", fb::ValueType::TensorList, v.tensor_list() != nullptr},
      {"int_value", fb::ValueType::Int, v.int_value() != nullptr},
      {"float_value", fb::ValueType::Float, v.float_value() != nullptr},
      {"double_value", fb::ValueType::Double, v.double_value() != nullptr},
      {"bool_value", fb::ValueType::Bool, v.bool_value() != nullptr},
  };
  for (const Member& m : members) {
    if (m.type == v.val() && !m.present) {
      return corrupt(context + ": value of type " + std::string(value_type_name(v.val())) +
                     " has no " + m.field);
    }
    if (m.type != v.val() && m.present) {
      return corrupt(context + ": value of type " + std::string(value_type_name(v.val())) +
                     " also has " + m.field + " set");
    }
  }

  Value out;
  out.type = static_cast<ValueType>(raw_type);
  if (v.output() != nullptr) out.output = v.output()->bool_val();
  switch (v.val()) {
    case fb::ValueType::Null:
    case fb::ValueType::String: break;
    case fb::ValueType::Int: out.int_value = v.int_value()->int_val(); break;
    case fb::ValueType::Bool: out.bool_value = v.bool_value()->bool_val(); break;
    case fb::ValueType::Float: out.float_value = v.float_value()->float_val(); break;
    case fb::ValueType::Double: out.double_value = v.double_value()->double_val(); break;
    case fb::ValueType::Tensor: out.tensor = decode_tensor(*v.tensor()); break;
    case fb::ValueType::TensorList: {
      std::vector<Tensor> tensors;
      if (const auto* list = v.tensor_list()->tensors()) {
        tensors.reserve(list->size());
        for (const fb::Tensor* t : *list) tensors.push_back(decode_tensor(*t));
      }
      out.tensor_list = std::move(tensors);
      break;
    }
  }
  return out;
}

ProfileEventRef profile_ref(const fb::ProfileEvent& p) {
  ProfileEventRef out;
  if (const auto* name = p.name()) out.name = std::string_view(name->c_str(), name->size());
  out.chain_index = p.chain_index();
  out.instruction_id = InstructionId(p.instruction_id());
  out.delegate_debug_id_int = DelegateDebugIntId(p.delegate_debug_id_int());
  if (const auto* id = p.delegate_debug_id_str()) {
    out.delegate_debug_id_str = std::string_view(id->c_str(), id->size());
  }
  if (const auto* metadata = p.delegate_debug_metadata()) {
    out.delegate_debug_metadata = std::span<const std::uint8_t>(metadata->data(), metadata->size());
  }
  out.start_time = p.start_time();
  out.end_time = p.end_time();
  if (has_field(&p, fb::ProfileEvent::VT_THREAD_INDEX) && p.thread_index() != -1) {
    out.thread_index = p.thread_index();
  }
  if (has_field(&p, fb::ProfileEvent::VT_TIME_SOURCE)) {
    const auto raw = static_cast<std::uint8_t>(p.time_source());
    // A source added by a newer writer reads as unknown rather than failing
    // the whole file.
    out.time_source = raw <= static_cast<std::uint8_t>(TimeSource::kEstimated)
                          ? static_cast<TimeSource>(raw)
                          : TimeSource::kUnknown;
  }
  if (const auto* counters = p.counters(); counters != nullptr && counters->size() != 0) {
    // The schema's struct and ours have one layout (name, 4 bytes of
    // padding, value; little-endian as FlatBuffers are), so the verified
    // vector is viewed in place.
    static_assert(sizeof(fb::Counter) == sizeof(Counter) && alignof(Counter) == 8 &&
                  offsetof(Counter, name) == 0 && offsetof(Counter, value) == 8);
    static_assert(std::endian::native == std::endian::little);
    out.counters = std::span<const Counter>(reinterpret_cast<const Counter*>(counters->Data()),
                                            counters->size());
  }
  return out;
}

ProfileEvent decode_profile(const fb::ProfileEvent& p) {
  const ProfileEventRef ref = profile_ref(p);
  ProfileEvent out;
  if (ref.name) out.name = std::string(*ref.name);
  out.chain_index = ref.chain_index;
  out.instruction_id = ref.instruction_id;
  out.delegate_debug_id_int = ref.delegate_debug_id_int;
  if (ref.delegate_debug_id_str)
    out.delegate_debug_id_str = std::string(*ref.delegate_debug_id_str);
  if (ref.delegate_debug_metadata) {
    out.delegate_debug_metadata.emplace(ref.delegate_debug_metadata->begin(),
                                        ref.delegate_debug_metadata->end());
  }
  out.start_time = ref.start_time;
  out.end_time = ref.end_time;
  out.thread_index = ref.thread_index;
  out.time_source = ref.time_source;
  out.counters.assign(ref.counters.begin(), ref.counters.end());
  return out;
}

// Every counter names one of the dump's counter names.
Status check_counters(const fb::ProfileEvent& p, std::size_t name_count, std::size_t run_index,
                      std::size_t event_index) {
  const auto* counters = p.counters();
  if (counters == nullptr) return Status();
  for (flatbuffers::uoffset_t i = 0; i < counters->size(); ++i) {
    const std::uint32_t name = counters->Get(i)->name();
    if (name >= name_count) {
      return corrupt(where(run_index, event_index) + ": counter " + std::to_string(i) +
                     " names counter name " + std::to_string(name) + ", but the dump has " +
                     std::to_string(name_count) + " counter names");
    }
  }
  return Status();
}

// A raw trace (glassbox/core/raw_trace.h) names its backend and has no
// int identifier; counted into `*raw_traces`.
Status check_raw_trace(const fb::ProfileEvent& p, std::size_t run_index, std::size_t event_index,
                       std::size_t* raw_traces) {
  const flatbuffers::String* id = p.delegate_debug_id_str();
  if (id == nullptr || !id->string_view().starts_with(kRawTraceIdPrefix)) return Status();
  ++*raw_traces;
  const std::string_view backend = id->string_view().substr(kRawTraceIdPrefixLength);
  if (backend.empty() || backend.size() > kMaxRawTraceBackendLength) {
    return corrupt(where(run_index, event_index) + ": raw trace names " +
                   (backend.empty() ? std::string("no backend")
                                    : "a backend of " + std::to_string(backend.size()) +
                                          " characters (at most " +
                                          std::to_string(kMaxRawTraceBackendLength) + ")"));
  }
  if (p.delegate_debug_id_int() != -1) {
    return corrupt(where(run_index, event_index) + ": raw trace of backend '" +
                   std::string(backend) + "' also has an int identifier");
  }
  return Status();
}

StatusOr<DebugEvent> decode_debug(const fb::DebugEvent& d, const std::string& context) {
  if (d.debug_entry() == nullptr) {
    return corrupt(context + ": debug event has no value (debug_entry)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(Value value, decode_value(*d.debug_entry(), context));
  DebugEvent out;
  out.chain_index = d.chain_index();
  out.instruction_id = InstructionId(d.instruction_id());
  out.delegate_debug_id_int = DelegateDebugIntId(d.delegate_debug_id_int());
  out.delegate_debug_id_str = to_optional_string(d.delegate_debug_id_str());
  out.name = to_optional_string(d.name());
  out.value = std::move(value);
  return out;
}

Status check_one_member(const fb::Event& e, std::size_t run_index, std::size_t event_index) {
  const int members = (e.profile_event() != nullptr ? 1 : 0) +
                      (e.allocation_event() != nullptr ? 1 : 0) +
                      (e.debug_event() != nullptr ? 1 : 0);
  if (members == 0) {
    return corrupt(where(run_index, event_index) + " has no member set");
  }
  if (members > 1) {
    return corrupt(where(run_index, event_index) + " has " + std::to_string(members) +
                   " members set; an event holds exactly one");
  }
  return Status();
}

StatusOr<Event> decode_event(const fb::Event& e, std::size_t allocator_count, std::size_t run_index,
                             std::size_t event_index) {
  GLASSBOX_RETURN_IF_ERROR(check_one_member(e, run_index, event_index));
  if (const auto* p = e.profile_event()) return Event{decode_profile(*p)};
  if (const auto* a = e.allocation_event()) {
    const std::int32_t id = a->allocator_id();
    if (id < 1 || static_cast<std::size_t>(id) > allocator_count) {
      return corrupt(where(run_index, event_index) + ": allocator id " + std::to_string(id) +
                     " is out of range (the run has " + std::to_string(allocator_count) +
                     " allocators, numbered from 1)");
    }
    return Event{
        AllocationEvent{AllocatorId(static_cast<std::uint32_t>(id)), a->allocation_size()}};
  }
  GLASSBOX_ASSIGN_OR_RETURN(DebugEvent debug,
                            decode_debug(*e.debug_event(), where(run_index, event_index)));
  return Event{std::move(debug)};
}

StatusOr<RunData> decode_run(const fb::RunData& r, std::size_t run_index,
                             const DecodeOptions& options, std::size_t counter_names,
                             std::size_t* profile_events, std::size_t* raw_traces) {
  RunData out;
  out.name = to_string_or_empty(r.name());
  out.bundled_input_index = r.bundled_input_index();
  if (const auto* allocators = r.allocators()) {
    out.allocators.reserve(allocators->size());
    for (const fb::Allocator* a : *allocators) {
      out.allocators.push_back(to_string_or_empty(a->name()));
    }
  }
  if (const auto* events = r.events()) {
    if (options.profile_events) out.events.reserve(events->size());
    for (flatbuffers::uoffset_t i = 0; i < events->size(); ++i) {
      const fb::Event& e = *events->Get(i);
      if (e.profile_event() != nullptr) {
        ++*profile_events;
        GLASSBOX_RETURN_IF_ERROR(check_counters(*e.profile_event(), counter_names, run_index, i));
        GLASSBOX_RETURN_IF_ERROR(check_raw_trace(*e.profile_event(), run_index, i, raw_traces));
        if (!options.profile_events) {
          // Left to visit_profile_events: only the rule the decoder adds is checked here.
          GLASSBOX_RETURN_IF_ERROR(check_one_member(e, run_index, i));
          continue;
        }
      }
      GLASSBOX_ASSIGN_OR_RETURN(Event event, decode_event(e, out.allocators.size(), run_index, i));
      out.events.push_back(std::move(event));
    }
  }
  if (has_field(&r, fb::RunData::VT_DROPPED_EVENTS)) {
    out.dropped_events = r.dropped_events();
  }
  if (has_field(&r, fb::RunData::VT_REJECTED_EVENTS)) {
    out.rejected_events = r.rejected_events();
  }
  if (has_field(&r, fb::RunData::VT_TENSOR_DATA_DROPPED)) {
    out.tensor_data_dropped = r.tensor_data_dropped();
  }
  return out;
}

}  // namespace

void visit_profile_events(const VerifiedBuffer& buffer, const ProfileEventVisitor& visit) {
  const auto* runs = buffer.root()->run_data();
  if (runs == nullptr) return;
  for (flatbuffers::uoffset_t r = 0; r < runs->size(); ++r) {
    const auto* events = runs->Get(r)->events();
    if (events == nullptr) continue;
    for (const fb::Event* e : *events) {
      if (const fb::ProfileEvent* p = e->profile_event()) visit(r, profile_ref(*p));
    }
  }
}

StatusOr<ETDumpFile> decode_etdump(const VerifiedBuffer& buffer, const DecodeOptions& options,
                                   std::size_t* profile_events, std::size_t* raw_traces) {
  std::size_t profile_count = 0;
  if (profile_events == nullptr) profile_events = &profile_count;
  *profile_events = 0;
  std::size_t raw_trace_count = 0;
  if (raw_traces == nullptr) raw_traces = &raw_trace_count;
  *raw_traces = 0;
  const fb::ETDump& root = *buffer.root();
  if (root.version() != kETDumpSchemaVersion) {
    return Status(Error::kVersionMismatch,
                  "unsupported ETDump version " + std::to_string(root.version()) +
                      " (this reader reads version " + std::to_string(kETDumpSchemaVersion) + ")");
  }
  ETDumpFile out;
  out.version = root.version();
  if (const fb::TickRatio* ratio = root.tick_ratio()) {
    if (ratio->denominator() == 0) {
      return corrupt("tick ratio " + std::to_string(ratio->numerator()) +
                     "/0 has a zero denominator");
    }
    out.tick_ratio = TickRatio{ratio->numerator(), ratio->denominator()};
  }
  out.program_fingerprint = to_optional_string(root.program_fingerprint());
  if (has_field(&root, fb::ETDump::VT_DROPPED_EVENTS)) {
    out.dropped_events = root.dropped_events();
  }
  if (has_field(&root, fb::ETDump::VT_DROPPED_BLOCKS)) {
    out.dropped_blocks = root.dropped_blocks();
  }
  out.producer = to_optional_string(root.producer());
  if (const auto* scales = root.delegate_time_scales()) {
    for (flatbuffers::uoffset_t i = 0; i < scales->size(); ++i) {
      const fb::DelegateTimeScale& scale = *scales->Get(i);
      const fb::TickRatio* ratio = scale.ns_per_tick();
      if (scale.backend() == nullptr || scale.backend()->size() == 0) {
        return corrupt("delegate time scale " + std::to_string(i) + " names no backend");
      }
      if (ratio == nullptr || ratio->numerator() == 0 || ratio->denominator() == 0) {
        return corrupt("delegate time scale " + std::to_string(i) +
                       " has no ratio or a zero in its ratio");
      }
      out.delegate_time_scales.push_back(
          {scale.backend()->str(), TickRatio{ratio->numerator(), ratio->denominator()}, {}});
      if (const auto offset = scale.host_offset_ns()) {
        out.delegate_time_scales.back().host_offset_ns = *offset;
      }
    }
  }
  if (const auto* names = root.counter_names()) {
    std::set<std::string_view> seen;
    for (flatbuffers::uoffset_t i = 0; i < names->size(); ++i) {
      const flatbuffers::String* name = names->Get(i);
      if (name == nullptr || name->size() == 0) {
        return corrupt("counter name " + std::to_string(i) + " is empty");
      }
      if (!seen.insert(name->string_view()).second) {
        return corrupt("counter name " + std::to_string(i) + " repeats an earlier one");
      }
      out.counter_names.push_back(name->str());
    }
  }
  if (const auto* runs = root.run_data()) {
    out.runs.reserve(runs->size());
    for (flatbuffers::uoffset_t i = 0; i < runs->size(); ++i) {
      GLASSBOX_ASSIGN_OR_RETURN(RunData run,
                                decode_run(*runs->Get(i), i, options, out.counter_names.size(),
                                           profile_events, raw_traces));
      out.runs.push_back(std::move(run));
    }
  }
  return out;
}

}  // namespace glassbox::etdump

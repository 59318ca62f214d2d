#pragma once
/// @file
/// The plain C++ form of an ETDump file, as produced by the verifying reader
/// (etdump_reader.h). It mirrors the schema (schema/etdump.fbs) field by
/// field, with the schema's defaults applied to absent scalars, so that host
/// code (the Inspector, the CLI, tests) never touches FlatBuffers accessors.
///
///   ETDumpFile
///    |- version, and the Glassbox extensions (optional: absent in files
///    |  written by ExecuTorch): tick_ratio, delegate_time_scales,
///    |  program_fingerprint, ...
///    `- runs: RunData (one event block, normally one execute())
///        |- name, bundled_input_index, allocators
///        `- events: Event = ProfileEvent | AllocationEvent | DebugEvent
///                                                    `- Value (tensor, ...)
///
/// Optional fields are `std::optional` exactly where the file can tell
/// "absent" from "present with the default value" and the difference
/// matters: strings (a delegate event has no name), the delegate metadata
/// (present-but-empty differs from absent) and every Glassbox extension.
/// Ids and sentinels keep the file's values: -1 for an unset instruction id
/// or int delegate id, 2^64 - 1 for a DebugEvent's chain -1.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "glassbox/core/clock.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/scalar_type.h"

namespace glassbox::etdump {

/// The only ETDump schema version there is (ExecuTorch's and ours): Glassbox
/// additions are new fields, detected by presence, not by a version bump.
inline constexpr std::uint32_t kETDumpSchemaVersion = 0;

/// Glassbox extension: how a profile event's times were obtained. Numbered as
/// the schema's `TimeSource`; values this reader does not know read as
/// `kUnknown`.
enum class TimeSource : std::uint8_t {
  kUnknown = 0,       ///< Recorded as unknown.
  kMeasured = 1,      ///< Start and end were read from the clock.
  kDurationOnly = 2,  ///< Only the duration was known; start was synthesized.
  kEstimated = 3,     ///< Modelled or estimated, not measured.
};

/// Which member of a `Value` is set. Numbered as the schema's `ValueType`.
/// `kString` exists in the schema but the `Value` table has no string member,
/// so such a value carries no payload.
enum class ValueType : std::int8_t {
  kNull = 0,
  kInt = 1,
  kBool = 2,
  kFloat = 3,
  kDouble = 4,
  kTensor = 5,
  kTensorList = 6,
  kString = 7,
};

/// A logged tensor's description. Its data is not in the ETDump: `offset`
/// points into the separate debug-data buffer or file (see
/// `read_tensor_values` in etdump_reader.h).
struct Tensor {
  /// The raw `scalar_type` byte, numbered as `glassbox::ScalarType`. Kept raw
  /// because a file may hold a value this build does not know.
  std::int8_t scalar_type = 0;
  std::vector<std::int64_t> sizes;
  /// Empty when the file gives none (then the data is contiguous).
  std::vector<std::int64_t> strides;
  /// Byte offset of the data in the debug-data buffer; -1 when no data was
  /// written (empty tensor, no data sink, sink full).
  std::int64_t offset = 0;

  /// `scalar_type` as an enumerator, or nullopt when the byte is not a
  /// known ScalarType.
  std::optional<ScalarType> known_scalar_type() const {
    const auto type = static_cast<ScalarType>(scalar_type);
    if (element_size(type) == 0) return std::nullopt;
    return type;
  }
};

/// One logged value. Exactly the member named by `type` is set (the reader
/// checks this); `kNull` and `kString` have none.
struct Value {
  ValueType type = ValueType::kNull;
  std::optional<Tensor> tensor;
  std::optional<std::vector<Tensor>> tensor_list;
  std::optional<std::int64_t> int_value;
  std::optional<float> float_value;
  std::optional<double> double_value;
  std::optional<bool> bool_value;
  /// The `output` flag when the file has it; ExecuTorch sets it (to true)
  /// only on program outputs.
  std::optional<bool> output;
};

/// Glassbox extension: a named numeric counter of a profile event (cycles,
/// MACs, DMA bytes). Its name is `ETDumpFile::counter_names[name]` (the
/// reader checks the range).
struct Counter {
  std::uint32_t name = 0;
  std::int64_t value = 0;
  friend bool operator==(const Counter&, const Counter&) = default;
};

/// A timed event: an operator call, a framework step or a delegate event.
struct ProfileEvent {
  /// Absent for delegate events with an int identifier.
  std::optional<std::string> name;
  /// Signed in the schema (unlike DebugEvent's).
  std::int32_t chain_index = 0;
  InstructionId instruction_id;                      ///< -1 when unset.
  DelegateDebugIntId delegate_debug_id_int;          ///< -1 when unset.
  std::optional<std::string> delegate_debug_id_str;  ///< String delegate id.
  /// Opaque bytes a delegate attached. ExecuTorch writes an empty vector for
  /// every delegate event and none for other events, so present-but-empty
  /// and absent are kept apart.
  std::optional<std::vector<std::uint8_t>> delegate_debug_metadata;
  Ticks start_time = 0;  ///< Raw ticks; `ETDumpFile::tick_ratio` converts.
  Ticks end_time = 0;

  /// Glassbox extension: index of the logging thread; absent when the field
  /// is absent or says -1 (unknown).
  std::optional<std::int32_t> thread_index;
  /// Glassbox extension: absent in ExecuTorch-written files.
  std::optional<TimeSource> time_source;
  /// Glassbox extension: counters the delegate attached; empty when none.
  std::vector<Counter> counters;
};

/// Memory handed out by a tracked allocator.
struct AllocationEvent {
  /// 1-based: id N names `RunData::allocators[N - 1]` (the reader checks the
  /// range).
  AllocatorId allocator_id;
  std::uint64_t allocation_size = 0;
};

/// A logged value: an operator output, a program output or a delegate's
/// intermediate output.
struct DebugEvent {
  /// Unsigned in the schema: chain -1 appears as 2^64 - 1.
  std::uint64_t chain_index = 0;
  InstructionId instruction_id;              ///< -1 when unset.
  DelegateDebugIntId delegate_debug_id_int;  ///< -1 when unset.
  std::optional<std::string> delegate_debug_id_str;
  std::optional<std::string> name;
  Value value;
};

/// Which kind of event an `Event` holds.
enum class EventKind : std::uint8_t { kProfile, kAllocation, kDebug };

/// One entry of a run: exactly one of the three event kinds.
struct Event {
  std::variant<ProfileEvent, AllocationEvent, DebugEvent> data;

  EventKind kind() const { return static_cast<EventKind>(data.index()); }
  /// The held event of that kind, or nullptr.
  const ProfileEvent* profile() const { return std::get_if<ProfileEvent>(&data); }
  const AllocationEvent* allocation() const { return std::get_if<AllocationEvent>(&data); }
  const DebugEvent* debug() const { return std::get_if<DebugEvent>(&data); }
};

/// One event block (`RunData`), normally one `execute()`.
struct RunData {
  std::string name;  ///< "" when the file has none.
  std::int32_t bundled_input_index = -1;
  /// Allocator names; AllocationEvent id N is `allocators[N - 1]`.
  std::vector<std::string> allocators;
  /// In file order: the order events ended. ETDumpGen keeps it per thread;
  /// events of several threads interleave in runs of up to 16.
  std::vector<Event> events;

  /// Glassbox extensions (absent in ExecuTorch-written files): events lost
  /// because the buffer was full, calls refused as invalid, and tensors
  /// logged without their data.
  std::optional<std::uint64_t> dropped_events;
  std::optional<std::uint64_t> rejected_events;
  std::optional<std::uint64_t> tensor_data_dropped;
};

/// A backend whose delegate-internal events carry times in its own ticks
/// (cycles), as the delegate declared at init.
struct DelegateTimeScale {
  std::string backend;
  TickRatio ns_per_tick;  ///< Nanoseconds per delegate tick.
  /// Host nanoseconds = delegate ticks * ns_per_tick + host_offset_ns, when
  /// the delegate declared its clock's offset; absent otherwise.
  std::optional<std::int64_t> host_offset_ns;
  friend bool operator==(const DelegateTimeScale&, const DelegateTimeScale&) = default;
};

/// A whole ETDump file.
struct ETDumpFile {
  std::uint32_t version = kETDumpSchemaVersion;
  std::vector<RunData> runs;

  /// Glassbox extensions, absent in ExecuTorch-written files. Without a tick
  /// ratio the time unit is unknown; ExecuTorch's default clock gives
  /// nanoseconds.
  std::optional<TickRatio> tick_ratio;
  std::optional<std::string> program_fingerprint;
  std::optional<std::uint64_t> dropped_events;  ///< Over all runs.
  /// Blocks (executions) refused because the buffer was full.
  std::optional<std::uint64_t> dropped_blocks;
  std::optional<std::string> producer;  ///< e.g. "glassbox 0.1.0".
  /// Glassbox extension: per-backend delegate time scales, in the order
  /// they were declared; empty when none was (and in ExecuTorch's files).
  std::vector<DelegateTimeScale> delegate_time_scales;
  /// Glassbox extension: the names `Counter::name` indexes; empty when no
  /// event has counters.
  std::vector<std::string> counter_names;
};

}  // namespace glassbox::etdump

#pragma once
/// @file
/// The `EventTracer` interface: what the runtime and delegates call to record
/// profiling events, logged values and allocations. `glassbox::etdump::
/// ETDumpGen` implements it and writes an ETDump.
///
///   runtime (Method::execute) ----.
///                                  +--> EventTracer (abstract) --> ETDumpGen
///   delegate (via delegate_hooks.h)'        ^ state: current chain and
///                                             instruction, levels, filter
///
/// Quick start for a delegate author (see delegate_hooks.h):
///
///   auto entry = event_tracer_start_profiling_delegate(
///       context.event_tracer(), nullptr, DelegateDebugIntId(3));
///   run_fused_conv_relu();
///   event_tracer_end_profiling_delegate(context.event_tracer(), entry);
///
/// Equivalents of ExecuTorch's `EventTracer` methods (same meaning unless
/// noted):
///
/// | ExecuTorch                          | Glassbox                          |
/// |-------------------------------------|-----------------------------------|
/// | create_event_block                  | create_event_block                |
/// | start_profiling / end_profiling     | start_profiling / end_profiling   |
/// | start/end_profiling_delegate        | same names                        |
/// | log_profiling_delegate              | same, plus a `TimeSource`         |
/// | log_intermediate_output_delegate(5) | same five overloads               |
/// | log_evalue(EValue, LoggedEValueType)| log_value(ValueView, kind)        |
/// | track_allocator / track_allocation  | same names                        |
/// | set_chain_debug_handle(chain, idx)  | set_chain_instruction             |
/// | set_delegation_intermediate_output_filter | set_delegate_output_filter  |
/// | set_bundled_input_index, levels     | same names                        |
///
/// Deliberate differences, each fixing a known ExecuTorch flaw:
/// - Misuse (a delegate event with both or neither of a name and an int id)
///   is refused with an `Error` value and counted, never an abort.
/// - A delegate event takes its chain and instruction when it STARTS, so a
///   backend that ends it after `execute()` returns still maps it.
/// - "No instruction" is -1 (`kUnsetInstructionId`), not 0.
/// - The filter answers "keep?" (true keeps), not "drop?".
///
/// Thread safety: the per-event methods (start/end/log of profiling events,
/// log_value, log_intermediate_output_delegate, track_allocation) may be
/// called from several threads at once, for example from a delegate's worker
/// pool. Block creation, allocator registration, level and filter setters and
/// `set_chain_instruction` belong to the thread that runs the method.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "glassbox/core/clock.h"
#include "glassbox/core/error.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/core/tensor_view.h"

namespace glassbox::runtime {

class EventTracer;

/// Which kind of identifier an `EventTracerEntry` carries.
enum class DelegateDebugIdType : std::uint8_t { kNone, kInt, kStr };

/// Why a value is logged. The numbers are part of the serialized contract.
enum class LoggedValueKind : std::uint8_t {
  kIntermediateOutput = 0,
  kProgramOutput = 1,
};

/// How much the runtime logs as values. Ordered: compare with >=.
enum class DebugLevel : std::uint8_t {
  kNoLogging = 0,
  kProgramOutputs = 1,
  kIntermediateOutputs = 2,
};

/// How much the runtime profiles. Ordered: compare with >=. kMethodOnly and
/// kAllEvents keep ExecuTorch's numbers (0 and 1), so kNone sits below them.
enum class ProfilingLevel : std::int8_t {
  kNone = -1,       ///< no profile events at all (event blocks and values still)
  kMethodOnly = 0,  ///< only method-level events (Method::execute)
  kAllEvents = 1,   ///< plus operator, instruction and delegate events
};

/// How a profile event's times were obtained (stored in the ETDump).
enum class TimeSource : std::uint8_t {
  kUnknown = 0,
  kMeasured = 1,      ///< start and end were read from the clock
  kDurationOnly = 2,  ///< only a duration was known; start is synthesized
  kEstimated = 3,     ///< modelled or estimated, not measured
};

/// The handle `start_profiling*` returns and `end_profiling*` consumes.
/// Plain data: copy it freely, keep it on the stack.
struct EventTracerEntry {
  // The member order lets a hook on a null tracer copy its entry in two
  // moves (see null_event_tracer_entry): zeros first, then the -1s.

  /// The tracer that started the event (so the older END macros, which take
  /// only the entry, can find it). Null for an entry from a null tracer.
  EventTracer* tracer = nullptr;
  Ticks start_time = 0;
  /// kNone: the tracer's name id (-1 for none); kInt: the delegate int id;
  /// kStr: the tracer's id for the interned identifier string. 32 bits, as
  /// every one of them is, so the entry is 32 bytes (two 16-byte moves).
  std::int32_t event_id = -1;
  ChainId chain_id;              ///< captured when the event started
  InstructionId instruction_id;  ///< captured when the event started
  DelegateDebugIdType delegate_event_id_type = DelegateDebugIdType::kNone;
  std::uint8_t reserved = 0;  // explicit, so the stores above can merge
  /// kOk, or why the start was refused; ending a refused entry does nothing.
  Error error = Error::kOk;
};

/// One delegate event of `EventTracer::log_profiling_delegates`: what
/// identifies it (exactly one of `name` and `int_id`, as for
/// `log_profiling_delegate`) and the metadata it carries (may be null when
/// `metadata_len` is 0). A delegate builds one per operator at init.
struct DelegateEventDesc {
  const char* name = nullptr;
  DelegateDebugIntId int_id = kUnsetDelegateDebugIntId;
  const void* metadata = nullptr;
  std::size_t metadata_len = 0;
};

/// When one event of `EventTracer::log_profiling_delegates` started and
/// ended, in ticks of the tracer's clock.
struct DelegateEventTimes {
  Ticks start = 0;
  Ticks end = 0;
};

/// One named numeric counter a delegate attaches to a profiling event
/// (cycles, MACs, DMA bytes). `name` is a string the delegate keeps for the
/// tracer's lifetime (a literal, normally): a tracer interns each distinct
/// name once, the first time it sees it, and later compares addresses.
struct DelegateCounter {
  const char* name = nullptr;
  std::int64_t value = 0;
};

/// The entry a hook returns without a tracer (or below the level): an
/// EventTracerEntry{} copied from a constant, so that it is built in two
/// 16-byte moves rather than one store per field. The null-tracer hook's
/// budget is 0.6 ns.
inline constexpr EventTracerEntry kNullEventTracerEntry{};
static_assert(sizeof(EventTracerEntry) == 32, "two 16-byte moves for a null entry");
[[gnu::always_inline]] inline EventTracerEntry null_event_tracer_entry() {
  EventTracerEntry entry;
  std::memcpy(static_cast<void*>(&entry), &kNullEventTracerEntry, sizeof entry);
  return entry;
}

/// A value to log, viewed without copying. Build it with the factories.
class ValueView {
 public:
  enum class Kind : std::uint8_t {
    kNone,
    kInt,
    kBool,
    kDouble,
    kTensor,
    kTensorList,
  };

  static ValueView none() { return ValueView(Kind::kNone); }
  static ValueView of_int(std::int64_t v) {
    ValueView r(Kind::kInt);
    r.int_ = v;
    return r;
  }
  static ValueView of_bool(bool v) {
    ValueView r(Kind::kBool);
    r.bool_ = v;
    return r;
  }
  static ValueView of_double(double v) {
    ValueView r(Kind::kDouble);
    r.double_ = v;
    return r;
  }
  /// The view must stay valid for the duration of the logging call.
  static ValueView of_tensor(const TensorView& t) {
    ValueView r(Kind::kTensor);
    r.tensors_ = Span<const TensorView>(&t, 1);
    return r;
  }
  /// The list must stay valid for the duration of the logging call.
  static ValueView of_tensor_list(Span<const TensorView> list) {
    ValueView r(Kind::kTensorList);
    r.tensors_ = list;
    return r;
  }

  Kind kind() const { return kind_; }
  std::int64_t int_value() const { return int_; }
  bool bool_value() const { return bool_; }
  double double_value() const { return double_; }
  /// One element for kTensor, the list for kTensorList, empty otherwise.
  Span<const TensorView> tensors() const { return tensors_; }

 private:
  explicit ValueView(Kind kind) : kind_(kind) {}

  Kind kind_;
  bool bool_ = false;
  std::int64_t int_ = 0;
  double double_ = 0.0;
  Span<const TensorView> tensors_;
};

/// Decides which delegate intermediate outputs are logged.
class DelegateOutputFilter {
 public:
  virtual ~DelegateOutputFilter() = default;
  /// True to log the output named by `name` (string id, or null) or `id`
  /// (int id, or unset). An error is returned to the logging call.
  virtual Result<bool> keep(const char* name, DelegateDebugIntId id) = 0;
};

class EventTracer {
 public:
  virtual ~EventTracer();

  // ---- Blocks ------------------------------------------------------------

  /// Opens a new event block (one ETDump RunData), normally one execute().
  /// `name` is copied. Events logged before the first block go to an
  /// implicit block named "Default".
  virtual Error create_event_block(const char* name) = 0;

  // ---- Framework profiling ----------------------------------------------

  /// Starts a timed event. Unset ids are taken from the current chain and
  /// instruction (`set_chain_instruction`); explicit ids win, each on its
  /// own. `name` is interned (copied once per distinct string).
  virtual EventTracerEntry start_profiling(const char* name, ChainId chain_id = kUnsetChainId,
                                           InstructionId instruction_id = kUnsetInstructionId) = 0;
  /// Ends an event from `start_profiling`. A delegate entry is refused.
  virtual Error end_profiling(const EventTracerEntry& entry) = 0;

  // ---- Delegate profiling -----------------------------------------------

  /// Starts a delegate event identified by EITHER `name` (a string
  /// identifier from the delegate's debug handle map; pass
  /// `kUnsetDelegateDebugIntId`) OR `id` (an int identifier; pass a null
  /// name). Anything else returns an entry whose `error` is
  /// Error::kInvalidArgument, and the refusal is counted in the dump.
  virtual EventTracerEntry start_profiling_delegate(const char* name, DelegateDebugIntId id) = 0;
  /// Ends a delegate event. `metadata` (opaque bytes, such as an op name or
  /// a cycle count) is copied; it may be null when `metadata_len` is 0.
  virtual Error end_profiling_delegate(const EventTracerEntry& entry,
                                       const void* metadata = nullptr,
                                       std::size_t metadata_len = 0) = 0;
  /// Records a finished delegate event whose times the delegate measured
  /// itself, in ticks of `clock()`. Same identifier rules as
  /// `start_profiling_delegate`. Can be called in a loop after the work.
  virtual Error log_profiling_delegate(const char* name, DelegateDebugIntId id, Ticks start_time,
                                       Ticks end_time, const void* metadata = nullptr,
                                       std::size_t metadata_len = 0,
                                       TimeSource time_source = TimeSource::kMeasured) = 0;

  /// Records finished delegate events in one call: `events[i]` took
  /// `times[i]`, in ticks of `clock()`, logged in order as
  /// `log_profiling_delegate` would log each (same identifier rules, same
  /// copy of metadata). For a delegate that keeps its operators' times
  /// while it runs and logs them after its loop (backends::OperatorProfiler):
  /// one call instead of one an operator, and metadata that several events
  /// pass at one address is compared once per call, not per event (the
  /// bytes may not change during the call). Every event is attempted;
  /// returns kOk, or the first event's error. `times` holds at least
  /// `events.size()` entries. This default logs them one by one.
  virtual Error log_profiling_delegates(Span<const DelegateEventDesc> events,
                                        const DelegateEventTimes* times,
                                        TimeSource time_source = TimeSource::kMeasured);

  // ---- Values -----------------------------------------------------------

  /// Logs a delegate's intermediate output. Same identifier rules as
  /// `start_profiling_delegate`. Returns true when logged, false when the
  /// delegate output filter declined it, or an error.
  virtual Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                        const ValueView& value) = 0;
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                const TensorView& output) {
    return log_intermediate_output_delegate(name, id, ValueView::of_tensor(output));
  }
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                Span<const TensorView> output) {
    return log_intermediate_output_delegate(name, id, ValueView::of_tensor_list(output));
  }
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                int output) {
    return log_intermediate_output_delegate(name, id, ValueView::of_int(output));
  }
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                bool output) {
    return log_intermediate_output_delegate(name, id, ValueView::of_bool(output));
  }
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                double output) {
    return log_intermediate_output_delegate(name, id, ValueView::of_double(output));
  }

  /// Logs a value of the method (an operator output or a program output)
  /// under the current chain and instruction. ExecuTorch's `log_evalue`.
  virtual Result<bool> log_value(const ValueView& value, LoggedValueKind kind) = 0;

  // ---- Allocations ------------------------------------------------------

  /// Registers an allocator in the current block; ids are 1-based per block.
  /// `name` is copied. Returns `kUnsetAllocatorId` if it could not be
  /// recorded.
  virtual AllocatorId track_allocator(const char* name) = 0;
  /// Records an allocation of `size` bytes from `allocator`.
  virtual void track_allocation(AllocatorId allocator, std::size_t size) = 0;

  // ---- Time -------------------------------------------------------------

  /// The clock whose ticks this tracer records. Delegates that log
  /// post-time read their timestamps from it.
  virtual const Clock& clock() const = 0;

  /// Declares that `backend`'s delegate-internal events carry times in the
  /// backend's own ticks (cycles of an NPU, say), not in ticks of
  /// `clock()`: nanoseconds = ticks * ns_per_tick. Call it once at init
  /// (`delegate_hooks.h` has the hook); a later call for the same backend
  /// replaces the ratio. The ETDump records it so the Inspector converts
  /// that backend's events without being told. kInvalidArgument for an
  /// empty or over-long name (more than kMaxBackendNameLength bytes) or a
  /// zero in the ratio; kOutOfResources when kMaxDelegateTimeScales
  /// backends have declared one already. Tracers that keep no time scales
  /// answer kNotSupported.
  virtual Error set_delegate_time_scale(const char* backend, TickRatio ns_per_tick);
  static constexpr std::size_t kMaxDelegateTimeScales = 8;

  /// Declares where `backend`'s clock stands against `clock()`, when the
  /// delegate knows it (it synchronised its counter with the host's, say):
  /// host nanoseconds (clock() ticks converted with its tick ratio) =
  /// delegate ticks * ns_per_tick + host_offset_ns. The Inspector then
  /// places that backend's events on the host timeline at those times;
  /// without an offset it aligns them to start with their DELEGATE_CALL.
  /// The backend must have declared its time scale first (kInvalidArgument
  /// otherwise); a later call replaces the offset. Tracers that keep no
  /// time scales answer kNotSupported. Added after set_delegate_time_scale
  /// so the earlier virtual functions keep their places.
  virtual Error set_delegate_clock_offset(const char* backend, std::int64_t host_offset_ns);
  static constexpr std::size_t kMaxBackendNameLength = 63;

  /// `log_profiling_delegate` with named numeric counters attached to the
  /// event (`delegate_hooks.h` has the hook). Each counter's name must be
  /// non-empty, at most kMaxEventCounters counters an event, and a name
  /// appears once an event (kInvalidArgument otherwise, counted as a
  /// rejected event); values are copied. A tracer keeps a fixed number of
  /// distinct names; a counter whose name no longer fits is left out, the
  /// event is kept and the call answers kOutOfResources. This default
  /// logs the event without its counters, for tracers that store none.
  /// Added after set_delegate_clock_offset so the earlier virtual
  /// functions keep their places.
  virtual Error log_profiling_delegate_with_counters(
      const char* name, DelegateDebugIntId id, Ticks start_time, Ticks end_time,
      Span<const DelegateCounter> counters, const void* metadata = nullptr,
      std::size_t metadata_len = 0, TimeSource time_source = TimeSource::kMeasured);
  /// `end_profiling_delegate` with counters (same rules as
  /// `log_profiling_delegate_with_counters`). This default ends the event
  /// without them.
  virtual Error end_profiling_delegate_with_counters(const EventTracerEntry& entry,
                                                     Span<const DelegateCounter> counters,
                                                     const void* metadata = nullptr,
                                                     std::size_t metadata_len = 0);
  static constexpr std::size_t kMaxEventCounters = 16;

  // ---- State (not virtual) ----------------------------------------------

  /// Sets the chain and instruction that later events belong to.
  void set_chain_instruction(ChainId chain, InstructionId instruction) {
    chain_id_.store(chain.value, std::memory_order_relaxed);
    instruction_id_.store(instruction.value, std::memory_order_relaxed);
  }
  ChainId current_chain_id() const { return ChainId(chain_id_.load(std::memory_order_relaxed)); }
  InstructionId current_instruction_id() const {
    return InstructionId(instruction_id_.load(std::memory_order_relaxed));
  }

  /// Index of the bundled input being run, stored on the next block; -1 for
  /// none.
  void set_bundled_input_index(int index) { bundled_input_index_ = index; }
  int bundled_input_index() const { return bundled_input_index_; }

  void set_debug_level(DebugLevel level) { debug_level_ = level; }
  DebugLevel debug_level() const { return debug_level_; }
  void set_profiling_level(ProfilingLevel level) { profiling_level_ = level; }
  ProfilingLevel profiling_level() const { return profiling_level_; }

  /// The filter for delegate intermediate outputs (null: log all). Not
  /// owned; it must outlive the tracer or be reset to null first.
  void set_delegate_output_filter(DelegateOutputFilter* filter) {
    delegate_output_filter_ = filter;
  }
  DelegateOutputFilter* delegate_output_filter() const { return delegate_output_filter_; }

 protected:
  EventTracer() = default;

 private:
  // Atomics because worker threads of a delegate read them while the
  // runtime thread owns them; relaxed loads are plain moves on x86.
  std::atomic<std::int32_t> chain_id_{kUnsetChainId.value};
  std::atomic<std::int32_t> instruction_id_{kUnsetInstructionId.value};
  int bundled_input_index_ = -1;
  DebugLevel debug_level_ = DebugLevel::kNoLogging;
  ProfilingLevel profiling_level_ = ProfilingLevel::kAllEvents;
  DelegateOutputFilter* delegate_output_filter_ = nullptr;
};

}  // namespace glassbox::runtime

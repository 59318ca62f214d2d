#pragma once
/// @file
/// `ETDumpGen`: the `EventTracer` that records a run and writes it as an
/// ETDump (ExecuTorch's format, with Glassbox's extension fields).
///
///   std::vector<uint8_t> memory(1 << 20);
///   ETDumpGen gen(memory);                 // caller buffer: no allocation
///   // or: ETDumpGen gen;                  // growable heap mode
///   method.execute(&gen);                  // the runtime and delegates log
///   Result<Span<const uint8_t>> dump = gen.get_etdump_data();
///   write_file("run.etdp", *dump);
///
/// How it is fast. Logging appends one fixed-size 32-byte record to a
/// preallocated array with no locks, no strings and no atomic operation:
/// each logging thread claims 16 slots ahead in one atomic add (a run) and
/// fills them in order; a run ends with its block. Names and string
/// identifiers are interned once, and so is delegate metadata (the first 31
/// distinct byte strings of up to 112 bytes, such as "matmul: brg:avx2"):
/// an event carrying it is still one record, and the ETDump holds the
/// string once; other metadata is copied per event. The FlatBuffer is built
/// only in `get_etdump_data()`. ExecuTorch's ETDumpGen builds the FlatBuffer inline
/// for every event.
///
/// Memory. In caller-buffer mode records grow up from the start of the
/// buffer and an arena (names, logged values, blocks) grows down from its
/// end; `get_etdump_data()` then writes the ETDump back to front over the
/// records it has already read, so a record's 32 bytes are not paid twice.
/// Every event is charged its serialized size when it is logged (60 bytes
/// for a profile or delegate event, more for names, metadata and values),
/// so serialization can never run out of space; a 1 MB buffer holds about
/// 17,000 int-id delegate events. When the buffer is full, events are
/// dropped and counted (RunData.dropped_events) and later blocks are
/// refused and counted (ETDump.dropped_blocks); earlier events are never
/// touched and nothing aborts. `capacity()` tells how many events fit. In
/// heap mode records and the arena grow in chunks (allocation only when a
/// chunk fills) and the ETDump is written once into one buffer of the
/// charged size.
///
/// Threads. The per-event methods may be called concurrently from any
/// number of threads (a delegate's worker pool); each profile event records
/// a small index of the thread that logged it. `create_event_block`,
/// `track_allocator`, the setters and `get_etdump_data` / `reset` belong to
/// the thread that runs the method, and `get_etdump_data` must not run while
/// other threads are still logging (join the pool first).
///
/// Errors are values: misuse (a delegate event with both or neither of a
/// name and an int id, ending a delegate entry with `end_profiling`) returns
/// Error::kInvalidArgument and is counted as a rejected event.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "glassbox/core/clock.h"
#include "glassbox/core/internal/large_buffer.h"
#include "glassbox/core/mutex.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/internal/counter_names.h"
#include "glassbox/etdump/internal/etdump_gen_storage.h"
#include "glassbox/etdump/internal/metadata_table.h"
#include "glassbox/runtime/event_tracer.h"

namespace glassbox::etdump {
namespace internal {
using glassbox::internal::LargeBuffer;
}  // namespace internal

struct ETDumpGenOptions {
  /// The clock events are stamped with; its tick ratio goes into the dump.
  Clock clock = Clock::steady();
  /// Distinct names and string identifiers the tracer can intern.
  std::size_t max_names = 256;
  /// Event blocks (executions) it records at most; 0: as many as fit.
  std::size_t max_blocks = 0;
  /// Heap mode: the most events kept before dropping (bounds memory).
  std::size_t heap_max_events = std::size_t{1} << 26;
  /// Heap mode: whether memory past the first 2 MiB of records, and a dump
  /// of 32 MiB or more, is asked for as transparent huge pages (Linux). A
  /// million events then fault in about 40 pages instead of 22,000, which
  /// in a VM halves the cost of a recording end to end; the price is that
  /// a kernel short of free huge pages may stall one fault to compact
  /// memory (`defrag` setting). `glassbox run` takes its faults between
  /// executions (`reserve_like_last_block`), never inside a timed one.
  bool heap_huge_pages = true;
};

class ETDumpGen final : public runtime::EventTracer {
 public:
  /// Growable heap mode.
  explicit ETDumpGen(const ETDumpGenOptions& options = {});
  /// Caller-buffer mode: never allocates. `buffer` must outlive the tracer.
  /// If it is too small to hold even the fixed tables, `status()` says so
  /// and every event is dropped.
  explicit ETDumpGen(Span<std::uint8_t> buffer, const ETDumpGenOptions& options = {});
  ~ETDumpGen() override;
  ETDumpGen(const ETDumpGen&) = delete;
  ETDumpGen& operator=(const ETDumpGen&) = delete;

  /// kOk, or why the tracer cannot record (buffer too small).
  Error status() const { return status_; }
  /// Single-slot events (profile or delegate events without metadata)
  /// this tracer can hold in all, given what its arena holds so far.
  std::size_t capacity() const;
  bool is_caller_buffer() const { return caller_buffer_; }

  // ---- EventTracer ------------------------------------------------------
  using EventTracer::log_intermediate_output_delegate;

  Error create_event_block(const char* name) override;
  runtime::EventTracerEntry start_profiling(
      const char* name, ChainId chain_id = kUnsetChainId,
      InstructionId instruction_id = kUnsetInstructionId) override;
  Error end_profiling(const runtime::EventTracerEntry& entry) override;
  runtime::EventTracerEntry start_profiling_delegate(const char* name,
                                                     DelegateDebugIntId id) override;
  Error end_profiling_delegate(const runtime::EventTracerEntry& entry,
                               const void* metadata = nullptr,
                               std::size_t metadata_len = 0) override;
  Error log_profiling_delegate(
      const char* name, DelegateDebugIntId id, Ticks start_time, Ticks end_time,
      const void* metadata = nullptr, std::size_t metadata_len = 0,
      runtime::TimeSource time_source = runtime::TimeSource::kMeasured) override;
  Error log_profiling_delegates(
      Span<const runtime::DelegateEventDesc> events, const runtime::DelegateEventTimes* times,
      runtime::TimeSource time_source = runtime::TimeSource::kMeasured) override;
  /// Counters are kept as records beside their event (no allocation in
  /// caller-buffer mode) and their names in a table of
  /// internal::CounterNameTable::kMaxNames names a dump.
  Error log_profiling_delegate_with_counters(
      const char* name, DelegateDebugIntId id, Ticks start_time, Ticks end_time,
      Span<const runtime::DelegateCounter> counters, const void* metadata = nullptr,
      std::size_t metadata_len = 0,
      runtime::TimeSource time_source = runtime::TimeSource::kMeasured) override;
  Error end_profiling_delegate_with_counters(const runtime::EventTracerEntry& entry,
                                             Span<const runtime::DelegateCounter> counters,
                                             const void* metadata = nullptr,
                                             std::size_t metadata_len = 0) override;
  Result<bool> log_intermediate_output_delegate(const char* name, DelegateDebugIntId id,
                                                const runtime::ValueView& value) override;
  Result<bool> log_value(const runtime::ValueView& value, runtime::LoggedValueKind kind) override;
  AllocatorId track_allocator(const char* name) override;
  void track_allocation(AllocatorId allocator, std::size_t size) override;
  const Clock& clock() const override { return clock_; }

  // ---- Data ------------------------------------------------------------

  /// Where tensor bytes of logged values go. Not owned; must outlive the
  /// tracer or be replaced first. Without a sink, tensors are logged with
  /// offset -1 and counted in RunData.tensor_data_dropped.
  void set_data_sink(DataSink* sink);
  DataSink* data_sink() const { return data_sink_; }

  /// Stored in the dump so the Inspector can check it against the ETRecord
  /// (at most 64 characters kept; copied).
  void set_program_fingerprint(const char* fingerprint);

  /// Records a delegate's time scale (see EventTracer). Kept across
  /// `reset()`: delegates declare it once, at init.
  Error set_delegate_time_scale(const char* backend, TickRatio ns_per_tick) override;
  /// Records the offset of a backend's declared clock (see EventTracer).
  Error set_delegate_clock_offset(const char* backend, std::int64_t host_offset_ns) override;

  /// Serializes everything logged so far into one ETDump (size-prefixed
  /// FlatBuffer). The span stays valid until the next call, `reset()` or
  /// destruction.
  ///
  /// Heap mode: logging may continue afterwards and a later call returns a
  /// dump with the new events too. Caller-buffer mode: the dump is written
  /// over the records, so the tracer is then finished until `reset()`:
  /// later events are dropped (counted in `dropped_events()`, not in the
  /// dump) and later calls return the same dump. The data sink is kept in
  /// both modes.
  Result<Span<const std::uint8_t>> get_etdump_data();

  /// Heap mode: allocates now, and faults in, the record storage and block
  /// entries that `executions` more blocks as large as the current one will
  /// need, so that recording them allocates nothing and takes no page fault
  /// inside a timed execution (the runner calls it after its first recorded
  /// execution). Call between executions; a no-op in caller-buffer mode or
  /// before any block.
  void reserve_like_last_block(std::size_t executions);

  /// Forgets every block, event and name. Keeps the sink and settings.
  void reset();

  // ---- Counters --------------------------------------------------------
  std::size_t num_blocks() const;
  std::uint64_t num_events() const;
  std::uint64_t dropped_events() const { return dropped_.load(std::memory_order_relaxed); }
  /// Blocks refused (buffer full, `max_blocks` reached or tracer finished).
  std::uint64_t dropped_blocks() const { return dropped_blocks_.load(std::memory_order_relaxed); }
  std::uint64_t rejected_events() const { return rejected_.load(std::memory_order_relaxed); }
  std::uint64_t tensor_data_dropped() const {
    return tensor_data_dropped_.load(std::memory_order_relaxed);
  }

 private:
  void init_heap();
  void init_buffer(Span<std::uint8_t> buffer);
  // Claims `count` consecutive record slots; their first index, or
  // RecordStore::kFull (a drop, counted) when full.
  std::uint64_t claim(std::uint32_t count);
  internal::Record* claim_one();
  [[gnu::noinline]] std::uint64_t claim_new_run(std::uint32_t count);
  // Later events are dropped (counted) until reset().
  void stop_recording();
  Error refuse_block();
  std::uint64_t count_events() const;
  Error reject() {
    rejected_.fetch_add(1, std::memory_order_relaxed);
    return Error::kInvalidArgument;
  }
  // start_profiling_delegate past its fast path: a name, an invalid id, or
  // a clock other than the TSC.
  [[gnu::noinline]] runtime::EventTracerEntry start_profiling_delegate_slow(const char* name,
                                                                            DelegateDebugIntId id);
  // end_profiling_delegate with a clock other than the TSC (out of line,
  // so that the TSC path needs no stack frame).
  [[gnu::noinline]] Error end_profiling_delegate_steady(const runtime::EventTracerEntry& entry,
                                                        const void* metadata,
                                                        std::size_t metadata_len);
  Error end_delegate_event_at(const runtime::EventTracerEntry& entry, Ticks end,
                              const void* metadata, std::size_t metadata_len);
  // end_profiling_delegate past its fast path (any entry, any metadata,
  // `num_counters` kCounter records to put before the event).
  [[gnu::noinline]] Error end_delegate_event(const runtime::EventTracerEntry& entry, Ticks end,
                                             const void* metadata, std::size_t metadata_len,
                                             const internal::Record* counters = nullptr,
                                             std::uint32_t num_counters = 0);
  // The kCounter records of an event's counters, into `out` (room for
  // kMaxEventCounters): kOk; kInvalidArgument (counted as rejected) for
  // misuse; kOutOfResources when a name did not fit (that counter is left
  // out, the others kept).
  Error counter_records(Span<const runtime::DelegateCounter> counters, internal::Record* out,
                        std::uint32_t* count);
  // A post-time delegate event's identifier as its record holds it (the
  // int id, or the interned name's slot): kOk, or the error to return
  // (a refusal or a full name table, each counted).
  Error delegate_id_value(const char* name, DelegateDebugIntId id, std::uint32_t* out);
  // Claims `count` consecutive slots, all allocated: the first index, or
  // RecordStore::kFull (a drop, counted).
  std::uint64_t claim_slots(std::uint32_t count);
  Error write_delegate_event(bool string_id, std::uint32_t id, Ticks start, Ticks end,
                             ChainId chain, InstructionId instruction, const void* metadata,
                             std::size_t metadata_len, runtime::TimeSource source);
  // Any metadata (none too) and any counters; the event and all it
  // carries are one claim, kept whole or dropped whole.
  Error write_delegate_event_with_metadata(bool string_id, std::uint32_t id, Ticks start, Ticks end,
                                           ChainId chain, InstructionId instruction,
                                           const void* metadata, std::size_t metadata_len,
                                           runtime::TimeSource source,
                                           const internal::Record* counters = nullptr,
                                           std::uint32_t num_counters = 0);
  Result<bool> write_value(const runtime::ValueView& value, std::uint8_t flags, std::uint32_t id);
  // Copies the tensor's bytes to the sink; the offset, or -1 if not written.
  std::int64_t write_tensor_data(const TensorView& tensor);

  // First, so that with the base class's fields an event's reads of the
  // tracer (vtable pointer, chain and instruction, level, clock, the
  // store's epoch and slots) fall in its first two cache lines: after a
  // delegate's kernel has run, each line the event needs is a cache miss.
  Clock clock_;
  internal::RecordStore records_;

  ETDumpGenOptions options_;
  Error status_ = Error::kOk;
  bool caller_buffer_ = false;

  internal::NameTable names_;
  // Delegate metadata seen before: an event carrying it is one record.
  internal::MetadataTable metadata_;
  // Which interned names are counter names (ETDump.counter_names).
  internal::CounterNameTable counter_names_;
  internal::Arena arena_;
  std::unique_ptr<internal::NameSlot[]> name_slots_heap_;

  // Blocks are created by the runtime thread only; they live in the arena,
  // newest first.
  internal::BlockEntry* last_block_ = nullptr;
  std::size_t num_blocks_ = 0;
  // Written by the runtime thread, read by threads that track allocations.
  std::atomic<std::uint32_t> allocators_in_block_{0};

  // Heap mode: where the ETDump and the serialization scratch go.
  internal::LargeBuffer output_heap_;
  internal::LargeBuffer scratch_heap_;
  Span<const std::uint8_t> output_;
  // Caller-buffer mode: set once the ETDump has been written over the
  // records; events counted then.
  bool finished_ = false;
  std::uint64_t finished_events_ = 0;

  // Set when a block is refused; nothing more is recorded, so no event
  // lands in the wrong block.
  std::atomic<bool> blocks_exhausted_{false};
  // Set when an event did not fit: later blocks are refused, not left empty.
  std::atomic<bool> full_{false};
  std::atomic<std::uint64_t> dropped_blocks_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> rejected_{0};
  std::atomic<std::uint64_t> tensor_data_dropped_{0};

  DataSink* data_sink_ = nullptr;
  Mutex sink_mutex_;
  char fingerprint_[65] = {};
  struct DelegateScale {
    char backend[kMaxBackendNameLength + 1] = {};
    TickRatio ns_per_tick;
    bool has_host_offset = false;
    std::int64_t host_offset_ns = 0;
  };
  DelegateScale delegate_scales_[kMaxDelegateTimeScales];
  std::size_t num_delegate_scales_ = 0;
};

}  // namespace glassbox::etdump

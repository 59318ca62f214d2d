#pragma once
/// Profiling of a delegate that runs its operators one after another in a
/// loop, in the delegate's log mode (DelegateLogMode):
///
///   OperatorProfiler profiler(d->events, d->mode);  // events: built at init
///   if (Error e = profiler.begin(context); e != Error::kOk) return e;
///   for (i...) {
///     const Error e = profiler.run(i, [&] { return run_operator(i); });
///     if (e != Error::kOk) { profiler.finish(i); return e; }  // keeps what ran
///     if (logged_an_output) profiler.interrupt();
///   }
///   profiler.finish(num_ops);
///
/// Real time: start/end hooks around each operator. Post time, the default:
/// timestamps are kept while the operators run, and the same events are
/// logged by finish(), after the loop, where the tracer's memory is still
/// in the cache. Between two operators one clock read ends the first and
/// starts the second, so the delegate's few nanoseconds of dispatch between
/// them count to the second (two reads per operator would cost about 20 ns
/// with the TSC, one costs 10). Work of the delegate's own between
/// operators (logging an output, perturbing it) is left out: `interrupt()`
/// makes the next operator's time start afresh. Below profiling level
/// `all` no clock is read at all. Runtime side: no exceptions, and the only
/// allocation is the timestamps, from the execution's temporary memory.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "glassbox/core/clock.h"
#include "glassbox/core/error.h"
#include "glassbox/core/ids.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/delegate_hooks.h"
#include "glassbox/runtime/delegate_specs.h"
#include "glassbox/runtime/memory_allocator.h"

namespace glassbox::backends {

/// What a delegate logs for each of its operators, built at init and laid
/// out for logging: one 32-byte entry per operator, in order, and metadata
/// equal to an earlier operator's pointing at that one's bytes. Logging
/// after a delegate's loop then reads entries in sequence and a few
/// distinct metadata strings, instead of each operator's own state and its
/// own copy of the string (several cache misses an event, measured: a
/// post-time event cost about 38 ns inside a model).
class OperatorEvents {
 public:
  using Op = runtime::DelegateEventDesc;

  /// Room for `num_ops` operators from the method's allocator; false when
  /// it is short.
  bool init(runtime::MemoryAllocator& allocator, std::uint32_t num_ops) {
    ops_ = allocator.allocate_array<Op>(num_ops);
    num_ops_ = ops_ != nullptr ? num_ops : 0;
    return ops_ != nullptr || num_ops == 0;
  }
  /// Operator `i`'s identifiers and metadata; the bytes must outlive the
  /// table. Init time only: it compares with every earlier operator.
  void set(std::uint32_t i, const char* name, DelegateDebugIntId int_id, const void* metadata,
           std::size_t metadata_len) {
    for (std::uint32_t j = 0; j < i && metadata != nullptr; ++j) {
      if (ops_[j].metadata_len == metadata_len &&
          std::memcmp(ops_[j].metadata, metadata, metadata_len) == 0) {
        metadata = ops_[j].metadata;
        break;
      }
    }
    ops_[i] = Op{name, int_id, metadata, metadata_len};
  }
  const Op& operator[](std::uint32_t i) const { return ops_[i]; }
  std::uint32_t size() const { return num_ops_; }
  /// The first `count` operators' events (count <= size()).
  Span<const Op> first(std::uint32_t count) const { return {ops_, count}; }

 private:
  Op* ops_ = nullptr;
  std::uint32_t num_ops_ = 0;
};

/// One execution's profiling (see the top of this file).
class OperatorProfiler {
 public:
  OperatorProfiler(const OperatorEvents& ops, runtime::DelegateLogMode mode)
      : ops_(ops), post_time_(mode == runtime::DelegateLogMode::kPostTime) {}

  /// Takes the execution's tracer; post time, allocates each operator's
  /// times from its temporary memory when the tracer records delegate
  /// events (and nothing otherwise).
  Error begin(runtime::BackendExecutionContext& context) {
    tracer_ = context.event_tracer();
    if (!post_time_ || !runtime::event_tracer_records_delegate_profiling(tracer_) ||
        ops_.size() == 0) {
      return Error::kOk;
    }
    clock_ = &tracer_->clock();  // one virtual call an execution, not one an operator
    times_ = static_cast<runtime::DelegateEventTimes*>(
        context.allocate(std::size_t{ops_.size()} * sizeof(runtime::DelegateEventTimes)));
    return times_ != nullptr ? Error::kOk : Error::kMemoryAllocationFailed;
  }

  /// Runs operator `i` (below ops.size(), in order) with `run_operator`,
  /// which returns an Error, and profiles it.
  template <class Run>
  Error run(std::uint32_t i, Run&& run_operator) {
    if (!post_time_) {
      const OperatorEvents::Op& op = ops_[i];
      const runtime::EventTracerEntry entry =
          runtime::event_tracer_start_profiling_delegate(tracer_, op.name, op.int_id);
      const Error e = run_operator();
      (void)runtime::event_tracer_end_profiling_delegate(tracer_, entry, op.metadata,
                                                         op.metadata_len);
      return e;
    }
    if (times_ == nullptr) return run_operator();
    if (!chained_) last_ = clock_->now();
    times_[i].start = last_;
    const Error e = run_operator();
    last_ = clock_->now();
    times_[i].end = last_;
    chained_ = true;
    return e;
  }

  /// The delegate did work of its own since the last operator ended: the
  /// next operator's time starts when it does.
  void interrupt() { chained_ = false; }

  /// Post time: logs operators [0, ran) in order, all of them after the
  /// loop in one call, or those that ran when one failed. Real time:
  /// nothing to do.
  void finish(std::uint32_t ran) const {
    if (times_ == nullptr) return;
    (void)runtime::event_tracer_log_profiling_delegates(
        tracer_, ops_.first(std::min(ran, ops_.size())), times_);
  }

 private:
  const OperatorEvents& ops_;
  bool post_time_;
  runtime::EventTracer* tracer_ = nullptr;
  const Clock* clock_ = nullptr;
  runtime::DelegateEventTimes* times_ = nullptr;
  Ticks last_ = 0;
  bool chained_ = false;
};

}  // namespace glassbox::backends

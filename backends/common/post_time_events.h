#pragma once
/// Post-time profiling for a delegate that runs its operators in a loop
/// (DelegateLogMode::kPostTime): timestamps are kept while the operators
/// run, and their events are logged after the loop, where the tracer's
/// memory is still in the cache.
///
///   PostTimeEvents events;
///   if (Error e = events.begin(context, num_ops); e != Error::kOk) return e;
///   for (i...) {
///     if (events.on()) events.before(i);
///     run(i);
///     if (events.on()) events.after(i);
///     if (logged_an_output) events.interrupt();
///   }
///   events.log(num_ops, [&](std::uint32_t i) { return PostTimeEvents::Op{...}; });
///
/// Between two operators one clock read ends the first and starts the
/// second, so the delegate's few nanoseconds of dispatch between them count
/// to the second (an event pair per operator costs two reads, about 20 ns
/// with the TSC). Work of the delegate's own between operators (logging an
/// output, perturbing it) is left out: `interrupt()` makes the next
/// operator's time start afresh. Runtime side: no exceptions, and the only
/// allocation is the timestamps, from the execution's temporary memory.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/clock.h"
#include "glassbox/core/error.h"
#include "glassbox/core/ids.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/delegate_hooks.h"

namespace glassbox::backends {

class PostTimeEvents {
 public:
  /// One operator's event as the delegate describes it.
  struct Op {
    const char* name = nullptr;  // a string identifier, or null
    DelegateDebugIntId int_id = kUnsetDelegateDebugIntId;
    const void* metadata = nullptr;
    std::size_t metadata_len = 0;
  };

  /// Allocates two timestamps per operator from the execution's temporary
  /// memory when the tracer records delegate events, and nothing otherwise
  /// (then on() is false and no clock is read).
  Error begin(runtime::BackendExecutionContext& context, std::uint32_t num_ops) {
    runtime::EventTracer* tracer = context.event_tracer();
    if (!runtime::event_tracer_records_delegate_profiling(tracer) || num_ops == 0) {
      return Error::kOk;
    }
    times_ = static_cast<Ticks*>(context.allocate(2 * std::size_t{num_ops} * sizeof(Ticks)));
    if (times_ == nullptr) return Error::kMemoryAllocationFailed;
    tracer_ = tracer;
    num_ops_ = num_ops;
    chained_ = false;
    return Error::kOk;
  }

  /// Whether timestamps are being kept.
  bool on() const { return times_ != nullptr; }

  /// Just before operator `i` (below num_ops, in order) runs.
  void before(std::uint32_t i) {
    if (!chained_) last_ = tracer_->clock().now();
    times_[2 * i] = last_;
  }
  /// Just after it ran.
  void after(std::uint32_t i) {
    last_ = tracer_->clock().now();
    times_[2 * i + 1] = last_;
    chained_ = true;
  }
  /// The delegate did work of its own since the last operator ended: the
  /// next operator's time starts when it does.
  void interrupt() { chained_ = false; }

  /// Logs operators [0, ran) in order (`describe(i)` returns an Op): all
  /// of them after the loop, or those that ran when one failed.
  template <class Describe>
  void log(std::uint32_t ran, Describe&& describe) const {
    if (times_ == nullptr) return;
    for (std::uint32_t i = 0; i < ran && i < num_ops_; ++i) {
      const Op op = describe(i);
      (void)runtime::event_tracer_log_profiling_delegate(tracer_, op.name, op.int_id, times_[2 * i],
                                                         times_[2 * i + 1], op.metadata,
                                                         op.metadata_len);
    }
  }

 private:
  runtime::EventTracer* tracer_ = nullptr;
  Ticks* times_ = nullptr;
  std::uint32_t num_ops_ = 0;
  Ticks last_ = 0;
  bool chained_ = false;
};

}  // namespace glassbox::backends

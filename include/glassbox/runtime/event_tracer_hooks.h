#pragma once
/// @file
/// Hooks the runtime itself calls around methods, instructions and
/// operators. Every hook:
/// - is a no-op when the tracer is null (one predictable branch);
/// - vanishes entirely when tracing is built off (GLASSBOX_ENABLE_TRACING=OFF):
///   its body is `if constexpr (kTracingEnabled)`, so both builds type-check
///   the same code and no class layout depends on the flag.
///
///   {
///     EventTracerProfileMethodScope method(tracer, "Method::execute");
///     for (...) {
///       EventTracerProfileInstructionScope instr(tracer, chain, id);
///       EventTracerProfileOpScope op(tracer, "OPERATOR_CALL");
///       ...
///     }
///   }

#include "glassbox/config.h"
#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runtime {

/// Opens a new event block.
inline void event_tracer_create_event_block(EventTracer* tracer, const char* name) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr) (void)tracer->create_event_block(name);
  }
}

/// True when method-level events are recorded (any level but kNone).
inline bool event_tracer_profiles_methods(const EventTracer* tracer) {
  return tracer != nullptr && tracer->profiling_level() >= ProfilingLevel::kMethodOnly;
}

/// Starts a framework event at ProfilingLevel::kMethodOnly and above.
inline EventTracerEntry event_tracer_begin_profiling_event(EventTracer* tracer, const char* name) {
  if constexpr (kTracingEnabled) {
    if (event_tracer_profiles_methods(tracer)) return tracer->start_profiling(name);
  }
  return null_event_tracer_entry();
}

/// Ends an event from `event_tracer_begin_profiling_event` (an entry it
/// did not start, from a null tracer or at kNone, is ignored).
inline void event_tracer_end_profiling_event(EventTracer* tracer, const EventTracerEntry& entry) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr && entry.tracer != nullptr) (void)tracer->end_profiling(entry);
  }
}

/// Registers an allocator; `kUnsetAllocatorId` when tracing is off.
inline AllocatorId event_tracer_track_allocator(EventTracer* tracer, const char* name) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr) return tracer->track_allocator(name);
  }
  return kUnsetAllocatorId;
}

inline void event_tracer_track_allocation(EventTracer* tracer, AllocatorId allocator,
                                          std::size_t size) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr) tracer->track_allocation(allocator, size);
  }
}

/// Logs an operator output, only at DebugLevel::kIntermediateOutputs.
inline void event_tracer_log_value(EventTracer* tracer, const ValueView& value) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr && tracer->debug_level() >= DebugLevel::kIntermediateOutputs) {
      (void)tracer->log_value(value, LoggedValueKind::kIntermediateOutput);
    }
  }
}

/// Logs a program output, at DebugLevel::kProgramOutputs and above.
inline void event_tracer_log_value_output(EventTracer* tracer, const ValueView& value) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr && tracer->debug_level() >= DebugLevel::kProgramOutputs) {
      (void)tracer->log_value(value, LoggedValueKind::kProgramOutput);
    }
  }
}

/// Stores the bundled input index for the next block.
inline void event_tracer_set_bundled_input_index(EventTracer* tracer, int index) {
  if constexpr (kTracingEnabled) {
    if (tracer != nullptr) tracer->set_bundled_input_index(index);
  }
}

/// RAII: profiles an operator-level scope, only when the profiling level is
/// ProfilingLevel::kAllEvents (checked once, at construction, so a level
/// change inside the scope cannot leave an event half-open).
class EventTracerProfileOpScope {
 public:
  EventTracerProfileOpScope(EventTracer* tracer, const char* name) {
    if constexpr (kTracingEnabled) {
      if (tracer != nullptr && tracer->profiling_level() >= ProfilingLevel::kAllEvents) {
        tracer_ = tracer;
        entry_ = tracer->start_profiling(name);
      }
    }
  }
  ~EventTracerProfileOpScope() {
    if constexpr (kTracingEnabled) {
      if (tracer_ != nullptr) (void)tracer_->end_profiling(entry_);
    }
  }
  EventTracerProfileOpScope(const EventTracerProfileOpScope&) = delete;
  EventTracerProfileOpScope& operator=(const EventTracerProfileOpScope&) = delete;

 private:
  EventTracer* tracer_ = nullptr;
  EventTracerEntry entry_;
};

/// RAII: profiles a method-level scope at ProfilingLevel::kMethodOnly and
/// above (checked once, at construction).
class EventTracerProfileMethodScope {
 public:
  EventTracerProfileMethodScope(EventTracer* tracer, const char* name) {
    if constexpr (kTracingEnabled) {
      if (event_tracer_profiles_methods(tracer)) {
        tracer_ = tracer;
        entry_ = tracer->start_profiling(name);
      }
    }
  }
  ~EventTracerProfileMethodScope() {
    if constexpr (kTracingEnabled) {
      if (tracer_ != nullptr) (void)tracer_->end_profiling(entry_);
    }
  }
  EventTracerProfileMethodScope(const EventTracerProfileMethodScope&) = delete;
  EventTracerProfileMethodScope& operator=(const EventTracerProfileMethodScope&) = delete;

 private:
  EventTracer* tracer_ = nullptr;
  EventTracerEntry entry_;
};

/// RAII: sets the current chain and instruction for the events logged in
/// the scope, and unsets them (-1, -1) at its end.
class EventTracerProfileInstructionScope {
 public:
  EventTracerProfileInstructionScope(EventTracer* tracer, ChainId chain,
                                     InstructionId instruction) {
    if constexpr (kTracingEnabled) {
      if (tracer != nullptr) {
        tracer_ = tracer;
        tracer->set_chain_instruction(chain, instruction);
      }
    }
  }
  ~EventTracerProfileInstructionScope() {
    if constexpr (kTracingEnabled) {
      if (tracer_ != nullptr) {
        tracer_->set_chain_instruction(kUnsetChainId, kUnsetInstructionId);
      }
    }
  }
  EventTracerProfileInstructionScope(const EventTracerProfileInstructionScope&) = delete;
  EventTracerProfileInstructionScope& operator=(const EventTracerProfileInstructionScope&) = delete;

 private:
  EventTracer* tracer_ = nullptr;
};

}  // namespace glassbox::runtime

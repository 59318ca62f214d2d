#pragma once
/// @file
/// `Method`: one loaded, runnable method of a `Program`.
///
///   MemoryAllocator method_memory(buffer), temp_memory(temp_buffer);
///   Result<Method> method = Method::load(program, "forward", &method_memory,
///                                        &temp_memory, &etdump_gen, &diag);
///   method->set_input(0, data, bytes);
///   method->execute();
///   const Tensor& y = method->output(0);
///
/// Instrumented the way ExecuTorch's executor is, so ETDumps look the same:
/// loading logs `Method::init` into a "Default" block; every `execute()`
/// opens an "Execute" block with a `Method::execute` event, and per
/// instruction an `OPERATOR_CALL` event (with the kernel's own
/// `native_call_<op>` inside) or a `DELEGATE_CALL` event, each stamped with
/// its instruction id (chain 0). Framework events that belong to no
/// instruction carry -1. At DebugLevel::kIntermediateOutputs every
/// instruction's outputs are logged (only outputs, not inputs, unlike
/// ExecuTorch's delegate calls); at kProgramOutputs and above the method's
/// outputs.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/diagnostics.h"
#include "glassbox/runtime/event_tracer.h"
#include "glassbox/runtime/kernel_registry.h"
#include "glassbox/runtime/memory_allocator.h"
#include "glassbox/runtime/program.h"
#include "glassbox/runtime/tensor.h"

namespace glassbox::runtime {

class Method {
 public:
  /// Loads method `name` of `program` (which must outlive it). Tables, the
  /// activation arena, kernel scratch and delegate state come from
  /// `method_allocator`; per-instruction temporaries from `temp_allocator`
  /// (reset after every instruction). `tracer` may be null.
  static Result<Method> load(const Program& program, const char* name,
                             MemoryAllocator* method_allocator, MemoryAllocator* temp_allocator,
                             EventTracer* tracer, Diagnostics* diagnostics = nullptr);

  Method(Method&& other) noexcept;
  Method& operator=(Method&&) = delete;
  Method(const Method&) = delete;
  ~Method();

  std::size_t num_inputs() const { return num_inputs_; }
  std::size_t num_outputs() const { return num_outputs_; }
  std::size_t num_instructions() const { return num_instructions_; }
  const Tensor& input(std::size_t index) const { return *inputs_[index]; }
  const Tensor& output(std::size_t index) const { return *outputs_[index]; }
  /// Copies `nbytes` (which must equal the input's size) into input `index`.
  Error set_input(std::size_t index, const void* data, std::size_t nbytes);

  /// Runs every instruction once. `diagnostics` names a failing
  /// instruction.
  Error execute(Diagnostics* diagnostics = nullptr);

  const char* name() const { return name_; }
  EventTracer* event_tracer() const { return tracer_; }
  /// Switches tracing for later executions (null: none), e.g. off for
  /// warm-up runs.
  void set_event_tracer(EventTracer* tracer) { tracer_ = tracer; }

  /// Everything the runtime knows about one instruction, resolved at load.
  struct Instruction;
  struct Delegate;

 private:
  Method() = default;
  Error run_instruction(std::size_t index, Diagnostics* diagnostics);
  Error prepare_for_actual_sizes(std::size_t index, Diagnostics* diagnostics);

  const char* name_ = "";
  EventTracer* tracer_ = nullptr;
  MemoryAllocator* temp_ = nullptr;
  Tensor* values_ = nullptr;
  std::size_t num_values_ = 0;
  Tensor** inputs_ = nullptr;
  Tensor** outputs_ = nullptr;
  std::size_t num_inputs_ = 0;
  std::size_t num_outputs_ = 0;
  Instruction* instructions_ = nullptr;
  std::size_t num_instructions_ = 0;
  Delegate* delegates_ = nullptr;
  std::size_t num_delegates_ = 0;
  Span<std::uint8_t> scratch_;
};

}  // namespace glassbox::runtime

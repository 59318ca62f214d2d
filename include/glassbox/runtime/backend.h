#pragma once
/// @file
/// The runtime half of a delegate: `BackendInterface`, the contexts the
/// runtime hands it, and the registry that finds it by name.
///
///   class MyBackend final : public BackendInterface { ... };
///   static MyBackend backend;
///   register_backend("MyBackend", &backend);   // before Program::load
///
/// `init` runs once when a method is loaded (parse and validate the
/// processed bytes; keep state in memory from `context.allocator()`),
/// `execute` once per call (log events through `context.event_tracer()`
/// with the identifiers the AOT half put in its debug handle map), and
/// `destroy` when the method goes away.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/event_tracer.h"
#include "glassbox/runtime/memory_allocator.h"
#include "glassbox/runtime/tensor.h"

namespace glassbox::runtime {

/// One compile spec, viewing the program's bytes.
struct CompileSpecView {
  const char* key = "";
  Span<const std::uint8_t> value;
};

/// What a backend gets at init time.
class BackendInitContext {
 public:
  BackendInitContext(MemoryAllocator* allocator, EventTracer* tracer, const char* method_name)
      : allocator_(allocator), tracer_(tracer), method_name_(method_name) {}
  /// Memory that lives as long as the method.
  MemoryAllocator* allocator() const { return allocator_; }
  /// May be null (tracing off).
  EventTracer* event_tracer() const { return tracer_; }
  const char* method_name() const { return method_name_; }

 private:
  MemoryAllocator* allocator_;
  EventTracer* tracer_;
  const char* method_name_;
};

/// What a backend gets for one call.
class BackendExecutionContext {
 public:
  BackendExecutionContext(MemoryAllocator* temp_allocator, EventTracer* tracer,
                          const char* method_name)
      : temp_(temp_allocator), tracer_(tracer), method_name_(method_name) {}
  /// May be null (tracing off). Its current chain and instruction are the
  /// delegate call's.
  EventTracer* event_tracer() const { return tracer_; }
  /// Scratch memory, freed after this instruction.
  void* allocate(std::size_t size, std::size_t alignment = MemoryAllocator::kDefaultAlignment) {
    return temp_->allocate(size, alignment);
  }
  const char* method_name() const { return method_name_; }

 private:
  MemoryAllocator* temp_;
  EventTracer* tracer_;
  const char* method_name_;
};

/// A backend's per-delegate state, opaque to the runtime.
using DelegateHandle = void;

class BackendInterface {
 public:
  virtual ~BackendInterface();
  /// False when the backend cannot run here (missing hardware); programs
  /// that use it then fail to load with a clear error.
  virtual bool is_available() const = 0;
  /// Parses and validates `processed` (owned by the program, which outlives
  /// the handle). Errors are values; a corrupt blob must never crash.
  virtual Result<DelegateHandle*> init(BackendInitContext& context,
                                       Span<const std::uint8_t> processed,
                                       Span<const CompileSpecView> specs) = 0;
  /// Called at program load for each delegate call of `handle`, with the
  /// call's planned tensors: proves the blob can run on them (every shape
  /// it computes overflow-checked, each output matching its planned buffer
  /// in dtype and size), so that a corrupt blob fails to load instead of
  /// writing out of bounds at run time. The default accepts any tensors.
  virtual ErrorInfo prepare(DelegateHandle* handle, Span<Tensor* const> inputs,
                            Span<Tensor* const> outputs) const;
  /// Runs the delegate: reads `inputs`, writes `outputs` (shapes and
  /// buffers are planned by the runtime).
  virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                        Span<Tensor* const> inputs, Span<Tensor* const> outputs) = 0;
  virtual void destroy(DelegateHandle* handle) { (void)handle; }
};

/// Registers `backend` (not owned; must outlive every program using it)
/// under `name` (copied by pointer: pass a literal). Error::kInvalidState
/// for a duplicate name, kOutOfResources past 32 backends.
Error register_backend(const char* name, BackendInterface* backend);
/// The backend registered under `name`, or null.
BackendInterface* find_backend(const char* name);
/// How many backends are registered.
std::size_t num_registered_backends();

}  // namespace glassbox::runtime

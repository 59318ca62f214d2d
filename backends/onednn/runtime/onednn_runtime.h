#pragma once
/// @file
/// The oneDNN delegate's runtime half, on oneDNN's C API (dnnl.h: status
/// codes, no exceptions). At init it parses and validates the processed
/// bytes (program_parser.h) and creates every primitive once: convolution
/// and matmul weights and every activation in the memory format oneDNN
/// picks for this CPU (format_tag::any; weights reordered once, at init),
/// one buffer per tensor and one scratchpad shared by all primitives
/// (user scratchpad mode) from the method's allocator. Execute copies the
/// inputs in, runs the primitives in order and copies the outputs out; on
/// that path oneDNN allocates nothing we ask for (its OpenMP runtime
/// keeps its own thread pool).
///
/// Events: each operator is a delegate event under its identifier with
/// "<primitive kind>: <implementation>" as metadata ("convolution:
/// brg:avx2", from impl_info_str). A kReorder operator's metadata names
/// both memory formats ("layout: abcd -> aBcd8b (reorder jit:uni)"), so
/// memory format changes are rows of their own in the ops view. The mode is the compile spec
/// "profiling" ("posttime", the default: timestamps kept, logged after the
/// loop, also when a primitive fails; "realtime": start/end around each
/// primitive) unless overridden. Each
/// operator's output is logged (event_tracer_log_output_delegate, recorded
/// at DebugLevel::kIntermediateOutputs) in plain row-major order: a
/// blocked output goes through a reorder created at init into one shared
/// buffer first. A convolution's sum operand is reordered into its output
/// buffer before it runs, inside its event.
///
/// Threads: compile spec "threads" (default 1) unless overridden; set
/// with omp_set_num_threads before each execute.
///
/// Convolutions: large 3x3 ones run oneDNN's Winograd kernel, with their
/// source and output reordered inside their event (docs/operators.md),
/// unless set_winograd(false) (`glassbox run --conv-algorithm direct`).

#include <cstdint>

#include "backends/common/run_overrides.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends::onednn {

class OnednnBackendRuntime final : public runtime::BackendInterface, public RunOverrides {
 public:
  /// False when oneDNN cannot create a CPU engine.
  bool is_available() const override;
  Result<runtime::DelegateHandle*> init(runtime::BackendInitContext& context,
                                        Span<const std::uint8_t> processed,
                                        Span<const runtime::CompileSpecView> specs) override;
  /// Checks the call's tensors against the blob's slot shapes.
  ErrorInfo prepare(runtime::DelegateHandle* handle, Span<runtime::Tensor* const> inputs,
                    Span<runtime::Tensor* const> outputs) const override;
  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                Span<runtime::Tensor* const> inputs, Span<runtime::Tensor* const> outputs) override;
  /// Destroys the primitives and memory objects (buffers belong to the
  /// method's allocator).
  void destroy(runtime::DelegateHandle* handle) override;
  ~OnednnBackendRuntime() override;

 private:
  // One CPU engine and stream for every delegate (created on first init).
  bool ensure_engine();

  void* engine_ = nullptr;
  void* stream_ = nullptr;
};

/// The process-wide instance, registered by register_onednn_backend_runtime.
OnednnBackendRuntime& onednn_backend_runtime();

/// Registers the runtime half under kOnednnBackendName (idempotent).
Error register_onednn_backend_runtime();

}  // namespace glassbox::backends::onednn

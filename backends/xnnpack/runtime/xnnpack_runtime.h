#pragma once
/// @file
/// The XNNPACK delegate's runtime half. At init it parses and validates
/// the processed bytes (program_parser.h), plans the slots into shared
/// buffers from the method's allocator (buffer_plan.h; a convolution that
/// only feeds a channel concatenation writes into it, concat_in_place.h), creates a pthreadpool and
/// every XNNPACK operator once (weights packed once) and sets them up on those buffers. Each
/// execute copies the inputs in, runs the operators in order, and copies the outputs out.
///
/// Per-operator profiling (XNNPACK 2022 has no profiling API, so the timing
/// is ours, around each xnn_run_operator): every operator is logged as a
/// delegate event under the identifier the AOT half recorded, with the
/// operator type ("convolution_nhwc_f32", ...) as metadata, either
/// - real time: event_tracer_start/end_profiling_delegate around it, or
/// - post time: clock timestamps kept while running, all events logged with
///   one event_tracer_log_profiling_delegates call after the loop (nothing
///   but a clock read between operators).
/// The mode is the compile spec "profiling" ("posttime", the default, or
/// "realtime") unless set_profiling_mode_override says otherwise; post
/// time, the operators that ran are logged when one fails too. Each
/// operator's output is logged with event_tracer_log_output_delegate (the
/// hook records only at DebugLevel::kIntermediateOutputs); NHWC outputs
/// are converted to NCHW for that, so they compare with the portable run.
/// Int8 slots (format 1.6) are logged as the graph types them: CHAR, or
/// BYTE with the top bit flipped back (a uint8 tensor is stored as int8
/// minus 128); delegate inputs and outputs of those types are copied in and
/// out the same way.
/// Consecutive operators with one identifier (a source op decomposed, as
/// hardsigmoid is) each log their time; only the last logs its output.
///
/// Threads: compile spec "threads" (default 1), unless
/// set_threads_override says otherwise; 1 runs on the calling thread.

#include <pthreadpool.h>

#include <cstdint>

#include "backends/common/run_overrides.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends::xnnpack {

class XnnpackBackendRuntime final : public runtime::BackendInterface, public RunOverrides {
 public:
  /// False when XNNPACK cannot initialise on this CPU.
  bool is_available() const override;
  Result<runtime::DelegateHandle*> init(runtime::BackendInitContext& context,
                                        Span<const std::uint8_t> processed,
                                        Span<const runtime::CompileSpecView> specs) override;
  /// Checks the call's tensors against the blob's slot shapes (which the
  /// parser bounded and checked op by op).
  ErrorInfo prepare(runtime::DelegateHandle* handle, Span<runtime::Tensor* const> inputs,
                    Span<runtime::Tensor* const> outputs) const override;
  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                Span<runtime::Tensor* const> inputs, Span<runtime::Tensor* const> outputs) override;
  /// Deletes the XNNPACK operators (the thread pool is shared, see below).
  void destroy(runtime::DelegateHandle* handle) override;
  ~XnnpackBackendRuntime() override;

 private:
  /// The thread pool of `threads` threads every delegate shares, created on
  /// first use (at init). One pool per program, not one per delegate: a
  /// transformer splits into tens of delegates, and as many pools of
  /// spinning workers on two cores made 2 threads 400x slower than one
  /// (measured on the encoder). Delegates run one after another, so sharing
  /// is safe. Null on failure.
  pthreadpool_t shared_pool(std::uint32_t threads);

  // Pools by thread count (index threads - 2; 64 threads at most).
  pthreadpool_t pools_[63] = {};
};

/// The process-wide instance, registered by register_xnnpack_backend_runtime.
XnnpackBackendRuntime& xnnpack_backend_runtime();

/// Registers the runtime half under kXnnpackBackendName (idempotent).
Error register_xnnpack_backend_runtime();

}  // namespace glassbox::backends::xnnpack

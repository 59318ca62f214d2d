#pragma once
/// @file
/// The demo delegate's runtime half: parses the instruction list its AOT
/// half wrote (backends/demo/demo_format.h), validates it, and really
/// computes it (fused conv+relu, conv, relu, sin, cos, div) with the
/// portable kernels, so its outputs equal the source graph's.
///
/// For every op it logs a delegate profiling event under the identifier
/// the AOT half recorded (int or string), in one of two modes:
/// - real time: `event_tracer_start_profiling_delegate` before the op and
///   `event_tracer_end_profiling_delegate` after it, with the op name as
///   metadata;
/// - post time: timestamps are taken while running and every event is
///   logged with `event_tracer_log_profiling_delegate` after the loop.
/// The mode comes from the compile spec "profiling" ("posttime", the
/// default, or "realtime"), unless `set_profiling_mode_override` says otherwise (a run
/// option). At DebugLevel::kIntermediateOutputs each op's output is logged
/// too.
///
/// Compile spec "clock" ("tracer", the default, or "cycles") makes it act
/// like an NPU that counts cycles: it stamps ops with its own 250 MHz
/// counter (kDemoCycleTime per cycle), logs post-time in cycles, and
/// declares that scale to the tracer at init, so the ETDump carries it and
/// the Inspector converts the cycles back to nanoseconds. On a board, the
/// board's own counter takes the stand-in's place
/// (`DemoBackendRuntime::set_cycle_counter`).
/// The common compile specs, the deliberate fault "perturb" among them, are
/// glassbox/runtime/delegate_specs.h's.

#include <cstdint>

#include "glassbox/core/clock.h"
#include "glassbox/runtime/backend.h"
#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends::demo {

inline constexpr char kDemoClockSpecKey[] = "clock";
/// Nanoseconds per cycle of the demo's counter ("clock" = "cycles").
inline constexpr TickRatio kDemoCycleTime{4, 1};

/// A cycle counter a board supplies: `read` returns its ticks (64-bit and
/// monotonic: a 24-bit SysTick extended by its wraps), `ns_per_tick` its rate.
struct DemoCycleCounter {
  Ticks (*read)();
  TickRatio ns_per_tick;
};

class DemoBackendRuntime final : public runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<runtime::DelegateHandle*> init(runtime::BackendInitContext& context,
                                        Span<const std::uint8_t> processed,
                                        Span<const runtime::CompileSpecView> specs) override;
  ErrorInfo prepare(runtime::DelegateHandle* handle, Span<runtime::Tensor* const> inputs,
                    Span<runtime::Tensor* const> outputs) const override;
  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                Span<runtime::Tensor* const> inputs, Span<runtime::Tensor* const> outputs) override;

  /// Forces a profiling mode for delegates initialised from now on, or
  /// clears the override (nullptr).
  void set_profiling_mode_override(const runtime::DelegateLogMode* mode);

  /// Makes delegates initialised from now on stamp their ops with the
  /// board's `counter` (copied) and declare its rate, as with "clock" =
  /// "cycles" whatever their spec says: a board has no other clock for them
  /// (tests/baremetal/demo_main.cc gives SysTick). nullptr: the spec decides
  /// again, "cycles" meaning the 250 MHz stand-in.
  void set_cycle_counter(const DemoCycleCounter* counter);

 private:
  bool has_counter_ = false;
  DemoCycleCounter counter_{};
  bool has_override_ = false;
  runtime::DelegateLogMode override_ = runtime::DelegateLogMode::kRealTime;
};

/// The process-wide instance, registered by `register_demo_backend_runtime`.
DemoBackendRuntime& demo_backend_runtime();

/// Registers the runtime half under kDemoBackendName (idempotent).
Error register_demo_backend_runtime();

}  // namespace glassbox::backends::demo

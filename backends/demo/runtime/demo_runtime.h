#pragma once
/// @file
/// The demo delegate's runtime half: parses the instruction list its AOT
/// half wrote (backends/demo/aot/demo_format.h), validates it, and really
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
/// The mode comes from the compile spec "profiling" ("realtime" or
/// "posttime"), unless `set_profiling_mode_override` says otherwise (a run
/// option). At DebugLevel::kIntermediateOutputs each op's output is logged
/// too.
///
/// Deliberate fault, for numeric debugging tests: compile spec
/// "perturb" (kPerturbSpecKey) naming an op kind ("conv_relu", "conv",
/// "relu", "sin", "cos" or "div"; "none" for none), or
/// `set_perturbation_override`, makes every op of that kind add
/// kPerturbation to each element of its output, after computing it and
/// before logging it, so the wrong value flows on exactly as a buggy kernel's
/// would.

#include <cstdint>

#include "glassbox/runtime/backend.h"

namespace glassbox::backends::demo {

enum class ProfilingMode : std::uint8_t { kRealTime, kPostTime };

/// The compile spec that names the op kind to perturb.
inline constexpr char kPerturbSpecKey[] = "perturb";
/// What a perturbed op adds to each element of its output: far above
/// float rounding, so a comparison with the reference cannot miss it.
inline constexpr float kPerturbation = 0.05f;

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
  void set_profiling_mode_override(const ProfilingMode* mode);

  /// Forces the perturbed op kind (as the "perturb" spec spells it, "none"
  /// for none) for delegates initialised from now on; nullptr clears the
  /// override. Error::kInvalidArgument (and no change) for an unknown kind.
  /// `kind` is only read during the call.
  Error set_perturbation_override(const char* kind);

 private:
  bool has_override_ = false;
  ProfilingMode override_ = ProfilingMode::kRealTime;
  bool has_perturbation_override_ = false;
  // 0 = none, else the DemoOpKind value (a byte, so this header does not
  // need the AOT format header).
  std::uint8_t perturbation_override_ = 0;
};

/// The process-wide instance, registered by `register_demo_backend_runtime`.
DemoBackendRuntime& demo_backend_runtime();

/// Registers the runtime half under kDemoBackendName (idempotent).
Error register_demo_backend_runtime();

}  // namespace glassbox::backends::demo

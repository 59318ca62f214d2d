#pragma once
/// @file
/// The compile specs every delegate understands, parsed once for all
/// backends on the device side (no allocation, no exceptions). A backend's
/// own specs (the demo has none, XNNPACK none beyond these) are its own.
///
/// | key        | value                                   | absent        |
/// |------------|-----------------------------------------|---------------|
/// | profiling  | "realtime" or "posttime"                | realtime      |
/// | threads    | decimal integer in [1, kMaxDelegateThreads] | 1         |
/// | perturb    | a delegate debug identifier (decimal int or string) | none |
/// | identifiers| read ahead of time only (aot/compile_spec.h) |          |
///
/// "perturb" is a deliberate fault for numeric debugging: every operator of
/// the delegate with that identifier adds kPerturbation to each element of
/// its output after computing it and before logging it, so the wrong value
/// flows on as a buggy kernel's would. The spec reaches every delegate of a
/// program; the fault belongs to the ones that have the identifier
/// (`glassbox lower --perturb` checks that one does).

#include <cstdint>
#include <optional>
#include <string_view>

#include "glassbox/core/ids.h"
#include "glassbox/core/result.h"
#include "glassbox/core/span.h"
#include "glassbox/runtime/backend.h"

namespace glassbox::runtime {

/// How a delegate logs its operators' profiling events: around each
/// operator as it runs, or all at once after the loop with the timestamps
/// taken while running. The events are the same; post time, the default,
/// leaves only a clock read between operators, so profiling disturbs the
/// model less (on the encoders, whose operators take a few microseconds:
/// docs/benchmarks.md, "Profiling overhead").
enum class DelegateLogMode : std::uint8_t { kRealTime, kPostTime };

/// A log mode by its name in compile specs and on command lines
/// ("realtime" or "posttime"); nullopt for any other text.
inline std::optional<DelegateLogMode> delegate_log_mode_named(std::string_view name) {
  if (name == "realtime") return DelegateLogMode::kRealTime;
  if (name == "posttime") return DelegateLogMode::kPostTime;
  return std::nullopt;
}

inline constexpr char kProfilingSpecKey[] = "profiling";
inline constexpr char kThreadsSpecKey[] = "threads";
inline constexpr char kPerturbSpecKey[] = "perturb";
inline constexpr std::uint32_t kMaxDelegateThreads = 64;
/// What a perturbed operator adds to each element of its output: far above
/// float rounding, so a comparison with the reference cannot miss it.
inline constexpr float kPerturbation = 0.05f;

/// The common specs of one delegate, as parsed from its compile specs.
struct DelegateSpecs {
  DelegateLogMode log_mode = DelegateLogMode::kPostTime;
  std::uint32_t threads = 1;
  /// The "perturb" spec's value, or empty (views the program's bytes).
  Span<const std::uint8_t> perturb;

  /// Whether the operator with this identifier (`name` for a string
  /// identifier, else `int_id`) is the one "perturb" names.
  bool perturbs(DelegateDebugIntId int_id, const char* name) const;
};

/// Parses the common specs; unknown keys are left to the backend. Errors
/// name the spec and what it must be.
Result<DelegateSpecs> parse_delegate_specs(Span<const CompileSpecView> specs);

/// Whether `spec`'s value is exactly the bytes of `text`.
bool compile_spec_value_is(const CompileSpecView& spec, const char* text);

}  // namespace glassbox::runtime

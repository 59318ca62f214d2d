#pragma once
/// @file
/// The tracing clock: ticks plus the ratio that turns ticks into
/// nanoseconds. Tracers store ticks and record the ratio once per dump, so
/// no reader ever has to guess a time unit. Both sources below tick in
/// nanoseconds (ratio 1/1); readers still honour any ratio a dump states.
///
/// Two sources:
/// - `ClockKind::kSteady`: std::chrono::steady_clock. 18-25 ns a read on
///   the KVM guests we measured.
/// - `ClockKind::kTsc`: the x86 time-stamp counter (rdtsc), calibrated once
///   against steady_clock and scaled to nanoseconds as it is read (one
///   multiply), so its ticks are nanoseconds too (ratio 1/1) and a dump
///   from it reads right in ExecuTorch's tools, which assume nanoseconds.
///   About 10 ns a read on the same guests. Only offered where the CPU has
///   an invariant TSC; `Clock::tsc()` falls back to steady otherwise.

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GLASSBOX_HAS_RDTSC 1
#else
#define GLASSBOX_HAS_RDTSC 0
#endif

namespace glassbox {

/// Raw clock ticks. Only meaningful together with a `TickRatio`.
using Ticks = std::uint64_t;

/// nanoseconds = ticks * numerator / denominator.
struct TickRatio {
  std::uint64_t numerator = 1;
  std::uint64_t denominator = 1;

  double ns_per_tick() const {
    return static_cast<double>(numerator) / static_cast<double>(denominator);
  }
  double to_ns(Ticks ticks) const { return static_cast<double>(ticks) * ns_per_tick(); }
  friend bool operator==(TickRatio, TickRatio) = default;
};

enum class ClockKind : std::uint8_t { kSteady = 0, kTsc = 1 };

class Clock {
 public:
  /// steady_clock; ticks are nanoseconds.
  static Clock steady();
  /// The TSC in nanoseconds, calibrated now (takes about 20 ms the first
  /// time in a process, then the calibration is reused). Falls back to
  /// `steady()` where there is no usable TSC.
  static Clock tsc();

  Clock() : Clock(steady()) {}

  /// The current time in ticks of this clock.
  Ticks now() const {
#if GLASSBOX_HAS_RDTSC
    // tsc_now(): a 64x64 -> 128-bit multiply, exact for any counter
    // value, and cheaper than the division a TickRatio would need.
    if (kind_ == ClockKind::kTsc) return tsc_now();
#endif
    return static_cast<Ticks>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count());
  }

  /// now() of a clock the caller found to be kTsc: no branch and no call,
  /// so a hot path that checked kind() once needs no stack frame.
  Ticks tsc_now() const {
#if GLASSBOX_HAS_RDTSC
    __extension__ using Wide = unsigned __int128;
    return static_cast<Ticks>((static_cast<Wide>(__rdtsc()) * tsc_ns_per_tick_q32_) >> 32);
#else
    return now();
#endif
  }

  ClockKind kind() const { return kind_; }
  /// What one tick is: a nanosecond for both sources.
  TickRatio ratio() const { return TickRatio{1, 1}; }

 private:
  Clock(ClockKind kind, std::uint64_t tsc_ns_per_tick_q32 = 0)
      : kind_(kind), tsc_ns_per_tick_q32_(tsc_ns_per_tick_q32) {}

  ClockKind kind_;
  // kTsc: nanoseconds per TSC tick, fixed point with 32 fraction bits
  // (about 2e-10 ns of resolution per tick).
  std::uint64_t tsc_ns_per_tick_q32_;
};

/// Whether this CPU has an invariant TSC that `Clock::tsc()` will use.
bool has_invariant_tsc();

}  // namespace glassbox

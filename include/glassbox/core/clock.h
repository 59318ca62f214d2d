#pragma once
/// @file
/// The tracing clock: raw ticks plus the ratio that turns ticks into
/// nanoseconds. Tracers store ticks (cheap to read) and record the ratio once
/// per dump, so no reader ever has to guess a time unit.
///
/// Two sources:
/// - `ClockKind::kSteady`: std::chrono::steady_clock, ticks are nanoseconds
///   (ratio 1/1). About 30 ns a read on a KVM guest.
/// - `ClockKind::kTsc`: the x86 time-stamp counter (rdtsc), about 11 ns a
///   read, calibrated once against steady_clock. Only offered where the CPU
///   has an invariant TSC; `Clock::tsc()` falls back to steady otherwise.

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
  /// The TSC, calibrated now (takes about 20 ms the first time in a process,
  /// then the calibration is reused). Falls back to `steady()` where there is
  /// no usable TSC.
  static Clock tsc();

  Clock() : Clock(steady()) {}

  /// The current time in ticks of this clock.
  Ticks now() const {
#if GLASSBOX_HAS_RDTSC
    if (kind_ == ClockKind::kTsc) return __rdtsc();
#endif
    return static_cast<Ticks>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count());
  }

  ClockKind kind() const { return kind_; }
  TickRatio ratio() const { return ratio_; }

 private:
  Clock(ClockKind kind, TickRatio ratio) : kind_(kind), ratio_(ratio) {}

  ClockKind kind_;
  TickRatio ratio_;
};

/// Whether this CPU has an invariant TSC that `Clock::tsc()` will use.
bool has_invariant_tsc();

}  // namespace glassbox

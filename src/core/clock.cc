#include "glassbox/core/clock.h"

#include <thread>

#if GLASSBOX_HAS_RDTSC
#include <cpuid.h>
#endif

namespace glassbox {
namespace {

#if GLASSBOX_HAS_RDTSC
// (Only the TSC calibration reads it: without rdtsc, as on aarch64, it
// would be an unused function, an error with -Werror.)
std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// Measures TSC ticks against steady_clock over a short sleep: nanoseconds
// per tick, fixed point with 32 fraction bits. 20 ms against a nanosecond
// clock puts the error near 1e-7 (0.1 us a second).
std::uint64_t calibrate_tsc_ns_per_tick_q32() {
  constexpr auto kCalibrationTime = std::chrono::milliseconds(20);
  const std::uint64_t ns0 = steady_ns();
  const std::uint64_t t0 = __rdtsc();
  std::this_thread::sleep_for(kCalibrationTime);
  const std::uint64_t ns1 = steady_ns();
  const std::uint64_t t1 = __rdtsc();
  const std::uint64_t ns = ns1 - ns0;
  const std::uint64_t ticks = t1 - t0;
  // 0: unusable (no tick, or a span too long to shift); tsc() falls back.
  if (ns == 0 || ticks == 0 || ns >= (std::uint64_t{1} << 32)) return 0;
  return (ns << 32) / ticks;
}
#endif

}  // namespace

bool has_invariant_tsc() {
#if GLASSBOX_HAS_RDTSC
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) {
    return false;
  }
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;  // CPUID.80000007H:EDX[8] = invariant TSC
#else
  return false;
#endif
}

Clock Clock::steady() { return Clock(ClockKind::kSteady); }

Clock Clock::tsc() {
#if GLASSBOX_HAS_RDTSC
  if (!has_invariant_tsc()) return steady();
  // Calibrated once per process: a function-local static is thread-safe.
  static const std::uint64_t ns_per_tick_q32 = calibrate_tsc_ns_per_tick_q32();
  if (ns_per_tick_q32 == 0) return steady();
  return Clock(ClockKind::kTsc, ns_per_tick_q32);
#else
  return steady();
#endif
}

}  // namespace glassbox

#include "glassbox/core/clock.h"

#include <numeric>
#include <thread>

#if GLASSBOX_HAS_RDTSC
#include <cpuid.h>
#endif

namespace glassbox {
namespace {

std::uint64_t steady_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

#if GLASSBOX_HAS_RDTSC
// Measures TSC ticks against steady_clock over a short sleep. The ratio is
// kept as a reduced fraction of the two measured spans, so converting a
// duration back gives exactly the calibration's ns for its ticks.
TickRatio calibrate_tsc() {
  constexpr auto kCalibrationTime = std::chrono::milliseconds(20);
  const std::uint64_t ns0 = steady_ns();
  const std::uint64_t t0 = __rdtsc();
  std::this_thread::sleep_for(kCalibrationTime);
  const std::uint64_t ns1 = steady_ns();
  const std::uint64_t t1 = __rdtsc();
  std::uint64_t ns = ns1 - ns0;
  std::uint64_t ticks = t1 - t0;
  if (ns == 0 || ticks == 0) return TickRatio{1, 1};
  const std::uint64_t g = std::gcd(ns, ticks);
  return TickRatio{ns / g, ticks / g};
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

Clock Clock::steady() { return Clock(ClockKind::kSteady, TickRatio{1, 1}); }

Clock Clock::tsc() {
#if GLASSBOX_HAS_RDTSC
  if (!has_invariant_tsc()) return steady();
  // Calibrated once per process: a function-local static is thread-safe.
  static const TickRatio ratio = calibrate_tsc();
  return Clock(ClockKind::kTsc, ratio);
#else
  return steady();
#endif
}

}  // namespace glassbox

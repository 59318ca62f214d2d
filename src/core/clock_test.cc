#include "glassbox/core/clock.h"

#include <gtest/gtest.h>

#include <thread>

namespace glassbox {
namespace {

TEST(ClockTest, SteadyTicksAreNanoseconds) {
  Clock c = Clock::steady();
  EXPECT_EQ(c.kind(), ClockKind::kSteady);
  EXPECT_EQ(c.ratio(), (TickRatio{1, 1}));
  Ticks a = c.now();
  Ticks b = c.now();
  EXPECT_LE(a, b);
}

// Not a timing assertion: over a 30 ms sleep the TSC clock must advance
// by about what steady_clock does, within a factor of two either way. It
// fails only for a wrong unit (raw cycles would read 2-4x too many), not
// because the machine is slow.
TEST(ClockTest, TscTicksAreNanoseconds) {
  Clock c = Clock::tsc();
  EXPECT_EQ(c.ratio(), (TickRatio{1, 1}));
  Clock steady = Clock::steady();
  const Ticks s0 = steady.now();
  const Ticks a = c.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const Ticks b = c.now();
  const Ticks s1 = steady.now();
  ASSERT_GT(b, a);
  const double tsc_ns = static_cast<double>(b - a);
  const double steady_ns = static_cast<double>(s1 - s0);
  EXPECT_GT(tsc_ns, 0.5 * steady_ns);
  EXPECT_LT(tsc_ns, 2.0 * steady_ns);
}

TEST(TickRatioTest, Converts) {
  TickRatio r{5, 2};
  EXPECT_DOUBLE_EQ(r.to_ns(4), 10.0);
}

}  // namespace
}  // namespace glassbox

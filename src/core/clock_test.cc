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

// Not a timing assertion: a 30 ms sleep converted through the calibrated
// ratio must land in a generous window, which fails only if the ratio is
// off by a large factor (a wrong unit), not because the machine is slow.
TEST(ClockTest, TscRatioConvertsToNanoseconds) {
  Clock c = Clock::tsc();
  Ticks a = c.now();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  Ticks b = c.now();
  double ns = c.ratio().to_ns(b - a);
  EXPECT_GT(ns, 25e6);
  EXPECT_LT(ns, 30e9);
}

TEST(TickRatioTest, Converts) {
  TickRatio r{5, 2};
  EXPECT_DOUBLE_EQ(r.to_ns(4), 10.0);
}

}  // namespace
}  // namespace glassbox

#include <gtest/gtest.h>

#include <vector>

#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {
namespace {

TEST(PerfStatsTest, EmptyIsAllZero) {
  const PerfStats s = PerfStats::of({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.p90, 0);
}

TEST(PerfStatsTest, OneSampleIsEveryStatistic) {
  const std::vector<double> samples = {42};
  const PerfStats s = PerfStats::of(samples);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.min, 42);
  EXPECT_EQ(s.p10, 42);
  EXPECT_EQ(s.p50, 42);
  EXPECT_EQ(s.p90, 42);
  EXPECT_EQ(s.max, 42);
  EXPECT_EQ(s.stddev, 0);
}

TEST(PerfStatsTest, PercentilesInterpolateBetweenRanks) {
  // Unsorted on purpose: of() sorts a copy.
  const std::vector<double> samples = {40, 10, 30, 20};
  const PerfStats s = PerfStats::of(samples);
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.total, 100);
  EXPECT_DOUBLE_EQ(s.mean, 25);
  EXPECT_DOUBLE_EQ(s.min, 10);
  EXPECT_DOUBLE_EQ(s.max, 40);
  EXPECT_DOUBLE_EQ(s.p50, 25);  // midway between 20 and 30
  EXPECT_DOUBLE_EQ(s.p10, 13);  // rank 0.3: 10 + 0.3 * 10
  EXPECT_DOUBLE_EQ(s.p90, 37);  // rank 2.7: 30 + 0.7 * 10
  // Population standard deviation: sqrt(((15^2 + 5^2) * 2) / 4).
  EXPECT_DOUBLE_EQ(s.stddev, 11.180339887498949);
}

}  // namespace
}  // namespace glassbox::inspector

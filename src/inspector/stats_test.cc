#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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
  // Unsorted on purpose: of() selects ranks in a copy.
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

// Selection instead of a sort gives the percentiles a full sort gives, for
// every size from 1 to 64 and with repeated values.
TEST(PerfStatsTest, PercentilesMatchASortedCopyForManySizes) {
  auto sorted_percentile = [](std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
    const auto lower = static_cast<std::size_t>(rank);
    const std::size_t upper = std::min(lower + 1, v.size() - 1);
    return v[lower] + (v[upper] - v[lower]) * (rank - static_cast<double>(lower));
  };
  std::uint32_t state = 12345;
  for (std::size_t n = 1; n <= 64; ++n) {
    std::vector<double> samples(n);
    for (double& x : samples) {
      state = state * 1664525u + 1013904223u;
      x = static_cast<double>((state >> 8) % 17);  // repeats on purpose
    }
    const PerfStats s = PerfStats::of(samples);
    EXPECT_DOUBLE_EQ(s.p10, sorted_percentile(samples, 10)) << n;
    EXPECT_DOUBLE_EQ(s.p50, sorted_percentile(samples, 50)) << n;
    EXPECT_DOUBLE_EQ(s.p90, sorted_percentile(samples, 90)) << n;
    EXPECT_EQ(s.min, *std::min_element(samples.begin(), samples.end())) << n;
    EXPECT_EQ(s.max, *std::max_element(samples.begin(), samples.end())) << n;
  }
}

}  // namespace
}  // namespace glassbox::inspector

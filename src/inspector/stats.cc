#include <algorithm>
#include <cmath>
#include <vector>

#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {
namespace {

// Linear interpolation between the two nearest ranks (numpy's default), so
// p50 of an even count is the midpoint and small counts stay meaningful.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.size() == 1) return sorted[0];
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

}  // namespace

PerfStats PerfStats::of(std::span<const double> samples) {
  PerfStats stats;
  if (samples.empty()) return stats;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  stats.count = sorted.size();
  for (double s : sorted) stats.total += s;
  const double n = static_cast<double>(sorted.size());
  stats.mean = stats.total / n;
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.p10 = percentile(sorted, 10);
  stats.p50 = percentile(sorted, 50);
  stats.p90 = percentile(sorted, 90);
  double squares = 0;
  for (double s : sorted) squares += (s - stats.mean) * (s - stats.mean);
  stats.stddev = std::sqrt(squares / n);
  return stats;
}

}  // namespace glassbox::inspector

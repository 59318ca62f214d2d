#include <algorithm>
#include <cmath>
#include <vector>

#include "glassbox/inspector/inspector.h"

namespace glassbox::inspector {
namespace {

// The value of 0-based rank `k` of `v` as if sorted, given that every rank
// below `from` is already in place with no larger value after it. Selection,
// not a sort: a million-event dump has groups of thousands of samples.
double rank_value(std::vector<double>& v, std::size_t from, std::size_t k) {
  std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from),
                   v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// Linear interpolation between the two nearest ranks (numpy's default), so
// p50 of an even count is the midpoint and small counts stay meaningful.
// Percentiles are asked for in increasing order: `placed` is how many of the
// smallest values are already in place (and rises).
double percentile(std::vector<double>& v, double p, std::size_t& placed) {
  if (v.size() == 1) return v[0];
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, v.size() - 1);
  const double low = rank_value(v, std::min(placed, lower), lower);
  // Everything after `lower` is no smaller: the next rank is their minimum.
  const double high =
      upper == lower ? low
                     : *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(upper), v.end());
  placed = lower + 1;
  const double fraction = rank - static_cast<double>(lower);
  return low + (high - low) * fraction;
}

}  // namespace

PerfStats PerfStats::of(std::span<const double> samples) {
  PerfStats stats;
  if (samples.empty()) return stats;
  std::vector<double> values(samples.begin(), samples.end());
  stats.count = values.size();
  const double n = static_cast<double>(values.size());
  stats.min = values.front();
  stats.max = values.front();
  for (double s : values) {
    stats.total += s;
    stats.min = std::min(stats.min, s);
    stats.max = std::max(stats.max, s);
  }
  stats.mean = stats.total / n;
  std::size_t placed = 0;
  stats.p10 = percentile(values, 10, placed);
  stats.p50 = percentile(values, 50, placed);
  stats.p90 = percentile(values, 90, placed);
  double squares = 0;
  for (double s : values) squares += (s - stats.mean) * (s - stats.mean);
  stats.stddev = std::sqrt(squares / n);
  return stats;
}

}  // namespace glassbox::inspector

// The comparators of numeric debugging, and the names they go by. The
// non-finite rules are in numeric.h; in short, nothing is replaced.

#include <algorithm>
#include <cmath>
#include <limits>

#include "glassbox/inspector/numeric.h"

namespace glassbox::inspector {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void count(double v, NonFinite* counts) {
  if (std::isnan(v)) ++counts->nan;
  if (std::isinf(v)) ++counts->inf;
}

}  // namespace

std::string_view to_string(Comparator comparator) {
  switch (comparator) {
    case Comparator::kMaxAbs: return "max_abs";
    case Comparator::kL1: return "l1";
    case Comparator::kMse: return "mse";
    case Comparator::kSnr: return "snr";
    case Comparator::kCosine: return "cosine";
  }
  return "?";
}

std::vector<Comparator> all_comparators() {
  return {Comparator::kMaxAbs, Comparator::kL1, Comparator::kMse, Comparator::kSnr,
          Comparator::kCosine};
}

StatusOr<Comparator> parse_comparator(std::string_view text) {
  for (Comparator c : all_comparators()) {
    if (to_string(c) == text) return c;
  }
  return Status(Error::kInvalidArgument, "unknown comparator \"" + std::string(text) +
                                             "\"; use max_abs, l1, mse, snr, cosine or all");
}

StatusOr<std::vector<Comparator>> parse_comparators(std::string_view text) {
  if (text == "all") return all_comparators();
  std::vector<bool> chosen(all_comparators().size(), false);
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) {
      return Status(Error::kInvalidArgument,
                    "empty entry in the comparator list \"" + std::string(text) + "\"");
    }
    GLASSBOX_ASSIGN_OR_RETURN(Comparator c, parse_comparator(item));
    chosen[static_cast<std::size_t>(c)] = true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::vector<Comparator> out;
  for (Comparator c : all_comparators()) {
    if (chosen[static_cast<std::size_t>(c)]) out.push_back(c);
  }
  return out;
}

double default_threshold(Comparator metric) {
  switch (metric) {
    case Comparator::kMaxAbs: return 1e-3;
    case Comparator::kL1: return 1e-4;
    case Comparator::kMse: return 1e-6;
    case Comparator::kSnr: return 40;
    case Comparator::kCosine: return 0.9999;
  }
  return 0;
}

bool exceeds_threshold(Comparator metric, double value, double threshold) {
  if (std::isnan(value)) return true;
  switch (metric) {
    case Comparator::kMaxAbs:
    case Comparator::kL1:
    case Comparator::kMse: return value > threshold;
    case Comparator::kSnr:
    case Comparator::kCosine: return value < threshold;
  }
  return true;
}

double Comparison::value(Comparator comparator) const {
  switch (comparator) {
    case Comparator::kMaxAbs: return max_abs;
    case Comparator::kL1: return l1;
    case Comparator::kMse: return mse;
    case Comparator::kSnr: return snr_db;
    case Comparator::kCosine: return cosine;
  }
  return kNaN;
}

Comparison compare_values(std::span<const double> runtime, std::span<const float> reference) {
  Comparison c;
  const std::size_t n = std::min(runtime.size(), reference.size());
  // Sums in double: float32 sums over a million elements lose the small
  // errors this is meant to find.
  double sum_abs = 0, sum_sq = 0, ref_sq = 0, run_sq = 0, dot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = runtime[i];
    const double b = reference[i];
    count(a, &c.runtime_nonfinite);
    count(b, &c.reference_nonfinite);
    if (!std::isfinite(a) || !std::isfinite(b)) {
      const bool agree = (std::isnan(a) && std::isnan(b)) || (std::isinf(a) && a == b);
      if (!agree) ++c.nonfinite_mismatches;
      continue;
    }
    const double d = a - b;
    c.max_abs = std::max(c.max_abs, std::fabs(d));
    sum_abs += std::fabs(d);
    sum_sq += d * d;
    ref_sq += b * b;
    run_sq += a * a;
    dot += a * b;
  }
  if (c.nonfinite_mismatches > 0) {
    c.max_abs = c.l1 = c.mse = kInf;
    c.snr_db = -kInf;
    c.cosine = kNaN;
    return c;
  }
  if (n > 0) {
    c.l1 = sum_abs / static_cast<double>(n);
    c.mse = sum_sq / static_cast<double>(n);
  }
  if (sum_sq == 0) {
    c.snr_db = kInf;
  } else if (ref_sq == 0) {
    c.snr_db = -kInf;
  } else {
    c.snr_db = 10 * std::log10(ref_sq / sum_sq);
  }
  if (ref_sq == 0 && run_sq == 0) {
    c.cosine = 1;
  } else if (ref_sq == 0 || run_sq == 0) {
    c.cosine = 0;
  } else {
    c.cosine = dot / std::sqrt(ref_sq * run_sq);
  }
  return c;
}

}  // namespace glassbox::inspector

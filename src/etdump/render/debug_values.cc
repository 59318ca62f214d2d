#include "src/etdump/render/debug_values.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::etdump {

namespace {

// The values of a tensor that has data in `debug_data`.
StatusOr<std::vector<double>> decode(const Tensor& tensor, const DebugData& debug_data,
                                     const std::string& where) {
  auto values = read_tensor_values(tensor, debug_data.bytes);
  if (!values.ok()) {
    // Data past the end is the debug data's fault (short, or another
    // run's); damaged metadata is the ETDump's.
    const bool etdump_fault = values.error() != Error::kMismatch && !debug_data.etdump_name.empty();
    return values.status().with_context((etdump_fault ? debug_data.etdump_name : debug_data.name) +
                                        ": tensor of " + where);
  }
  return values;
}

}  // namespace

StatusOr<std::optional<std::vector<double>>> tensor_values(const Tensor& tensor,
                                                           const DebugData* debug_data,
                                                           const std::string& where) {
  using Values = std::optional<std::vector<double>>;
  if (debug_data == nullptr || tensor.offset == -1) return Values();
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<double> values, decode(tensor, *debug_data, where));
  return Values(std::move(values));
}

StatusOr<std::optional<ValueSummary>> ValueSummaries::get(const Tensor& tensor,
                                                          const std::string& where) {
  using Summary = std::optional<ValueSummary>;
  if (debug_data_ == nullptr || tensor.offset == -1) return Summary();
  Key key{tensor.offset, tensor.scalar_type, tensor.sizes, tensor.strides};
  if (auto it = done_.find(key); it != done_.end()) return Summary(it->second);
  GLASSBOX_ASSIGN_OR_RETURN(std::vector<double> values, decode(tensor, *debug_data_, where));
  ValueSummary summary;
  summary.count = values.size();
  double sum = 0;
  std::size_t finite = 0;
  summary.min = std::numeric_limits<double>::infinity();
  summary.max = -std::numeric_limits<double>::infinity();
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    ++finite;
    sum += v;
    summary.min = std::min(summary.min, v);
    summary.max = std::max(summary.max, v);
  }
  summary.non_finite = summary.count - finite;
  if (finite == 0) {
    summary.min = summary.max = summary.mean = std::numeric_limits<double>::quiet_NaN();
  } else {
    summary.mean = sum / static_cast<double>(finite);
  }
  values.resize(std::min(values.size(), kSummaryValues));
  summary.first = std::move(values);
  return Summary(done_.emplace(std::move(key), std::move(summary)).first->second);
}

std::optional<double> duration_ns(const ETDumpFile& file, const ProfileEvent& event) {
  if (!file.tick_ratio) return std::nullopt;
  // Subtract as doubles: an event whose end precedes its start (a clock
  // going backwards on another core) shows a negative duration, not 2^64.
  const double ticks = static_cast<double>(event.end_time) - static_cast<double>(event.start_time);
  return ticks * file.tick_ratio->ns_per_tick();
}

const char* time_source_name(TimeSource source) {
  switch (source) {
    case TimeSource::kUnknown: return "unknown";
    case TimeSource::kMeasured: return "measured";
    case TimeSource::kDurationOnly: return "duration_only";
    case TimeSource::kEstimated: return "estimated";
  }
  return "unknown";
}

std::string counter_name(const ETDumpFile& file, const Counter& c) {
  if (c.name < file.counter_names.size()) return file.counter_names[c.name];
  return "#" + std::to_string(c.name);
}

std::string to_hex(const std::vector<std::uint8_t>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

std::string dtype_name(const Tensor& tensor) {
  if (const auto type = tensor.known_scalar_type()) {
    return std::string(to_string(*type));
  }
  return "UNKNOWN(" + std::to_string(tensor.scalar_type) + ")";
}

}  // namespace glassbox::etdump

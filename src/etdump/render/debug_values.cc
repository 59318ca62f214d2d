#include "src/etdump/render/debug_values.h"

#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::etdump {

StatusOr<std::optional<std::vector<double>>> tensor_values(const Tensor& tensor,
                                                           const DebugData* debug_data,
                                                           const std::string& where) {
  using Values = std::optional<std::vector<double>>;
  if (debug_data == nullptr || tensor.offset == -1) return Values();
  auto values = read_tensor_values(tensor, debug_data->bytes);
  if (!values.ok()) {
    return values.status().with_context(debug_data->name + ": tensor of " + where);
  }
  return Values(std::move(values).value());
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

#pragma once
// Private: what the JSON and text renderers share, so that both decode and
// fail the same way.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "glassbox/etdump/etdump_render.h"

namespace glassbox::etdump {

/// The tensor's values, or nullopt when there is no debug data or the tensor
/// has none (offset -1). Any other decoding failure is an error naming the
/// debug-data file and `where` ("event 3 of run 1").
StatusOr<std::optional<std::vector<double>>> tensor_values(const Tensor& tensor,
                                                           const DebugData* debug_data,
                                                           const std::string& where);

/// What `--values summary` shows of a tensor's values.
struct ValueSummary {
  std::size_t count = 0;       ///< Elements.
  std::size_t non_finite = 0;  ///< NaNs and infinities: not in min, max, mean.
  /// Of the finite values; NaN (JSON null) when there are none.
  double min = 0;
  double max = 0;
  double mean = 0;
  std::vector<double> first;  ///< The first kSummaryValues values.
};

/// How many values a summary (and the text form) shows.
inline constexpr std::size_t kSummaryValues = 8;

/// Summaries of tensor values, each distinct tensor (offset, dtype, sizes,
/// strides) decoded once: a dump whose many events all point at one large
/// tensor costs one decoding, not one per event.
class ValueSummaries {
 public:
  /// `debug_data` may be null; it must outlive this object.
  explicit ValueSummaries(const DebugData* debug_data) : debug_data_(debug_data) {}

  /// nullopt and errors as tensor_values.
  StatusOr<std::optional<ValueSummary>> get(const Tensor& tensor, const std::string& where);

 private:
  using Key =
      std::tuple<std::int64_t, std::int8_t, std::vector<std::int64_t>, std::vector<std::int64_t>>;
  const DebugData* debug_data_;
  std::map<Key, ValueSummary> done_;
};

/// A duration in nanoseconds, or nullopt without a tick ratio.
std::optional<double> duration_ns(const ETDumpFile& file, const ProfileEvent& event);

/// "measured", "duration_only", "estimated" or "unknown".
const char* time_source_name(TimeSource source);

/// The name of counter `c` (file.counter_names[c.name]); "#N" when out of
/// range, which the reader never lets through.
std::string counter_name(const ETDumpFile& file, const Counter& c);

/// Lowercase hex of `bytes`, two digits a byte.
std::string to_hex(const std::vector<std::uint8_t>& bytes);

/// "FLOAT", or "UNKNOWN(99)" for a scalar type this build does not know.
std::string dtype_name(const Tensor& tensor);

}  // namespace glassbox::etdump

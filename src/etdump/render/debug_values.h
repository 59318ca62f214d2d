#pragma once
// Private: what the JSON and text renderers share, so that both decode and
// fail the same way.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
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

/// A duration in nanoseconds, or nullopt without a tick ratio.
std::optional<double> duration_ns(const ETDumpFile& file, const ProfileEvent& event);

/// "measured", "duration_only", "estimated" or "unknown".
const char* time_source_name(TimeSource source);

/// Lowercase hex of `bytes`, two digits a byte.
std::string to_hex(const std::vector<std::uint8_t>& bytes);

/// "FLOAT", or "UNKNOWN(99)" for a scalar type this build does not know.
std::string dtype_name(const Tensor& tensor);

}  // namespace glassbox::etdump

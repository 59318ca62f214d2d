#pragma once
// Tensor values for `etdump show --debug-data`: shared by the JSON and text
// renderers so that both decode and fail the same way.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"

namespace glassbox::cli {

/// A debug-data file loaded for the whole command.
struct DebugData {
  std::string name;  ///< For error messages.
  std::span<const std::uint8_t> bytes;
};

/// The tensor's values, or nullopt when there is no debug data or the tensor
/// has none (offset -1). Any other decoding failure is an error naming the
/// debug-data file and `where` ("event 3 of run 1").
StatusOr<std::optional<std::vector<double>>> tensor_values(
    const etdump::Tensor& tensor, const DebugData* debug_data,
    const std::string& where);

/// A duration in nanoseconds, or nullopt without a tick ratio.
std::optional<double> duration_ns(const etdump::ETDumpFile& file,
                                  const etdump::ProfileEvent& event);

/// "measured", "duration_only", "estimated" or "unknown".
const char* time_source_name(etdump::TimeSource source);

/// Lowercase hex of `bytes`, two digits a byte.
std::string to_hex(const std::vector<std::uint8_t>& bytes);

/// "FLOAT", or "UNKNOWN(99)" for a scalar type this build does not know.
std::string dtype_name(const etdump::Tensor& tensor);

}  // namespace glassbox::cli

#pragma once
// `glassbox etdump show --format json`: the stable JSON form of an ETDump,
// specified in docs/etdump-json.md. Keys keep a fixed order.

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "nlohmann/json.hpp"
#include "src/cli/debug_values.h"

namespace glassbox::cli {

/// The JSON document for `file`. With `debug_data` (may be null), tensors
/// carry their "values"; a tensor whose data cannot be decoded is an error.
StatusOr<nlohmann::ordered_json> etdump_to_json(const etdump::ETDumpFile& file,
                                                const DebugData* debug_data);

}  // namespace glassbox::cli

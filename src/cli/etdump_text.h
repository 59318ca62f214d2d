#pragma once
// `glassbox etdump show --format text`: a readable listing, one line per
// event under a header per run. Not a stable format: scripts use JSON.

#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etdump/etdump_model.h"
#include "src/cli/debug_values.h"

namespace glassbox::cli {

/// The listing for `file`; with `debug_data` (may be null) tensors show
/// their first values.
StatusOr<std::string> etdump_to_text(const etdump::ETDumpFile& file,
                                     const DebugData* debug_data);

}  // namespace glassbox::cli

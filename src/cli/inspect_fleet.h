#pragma once
// `glassbox inspect` over many dumps: each decoded and grouped on a worker
// thread, folded in path order into one InspectorAggregator per value of
// the --group-by tag (one in all without it), then rendered.

#include <ostream>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etrecord/etrecord.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/inspector.h"
#include "src/cli/fleet_reader.h"

namespace glassbox::cli {

/// The rendering of `view` over the dumps `fleet` names; skipped dumps and
/// the summary go to `err`.
StatusOr<std::string> inspect_fleet(const FleetOptions& fleet, const std::string& group_by,
                                    const etrecord::ETRecord* record,
                                    inspector::InspectorOptions options, inspector::View view,
                                    inspector::Format format, std::ostream& err);

}  // namespace glassbox::cli

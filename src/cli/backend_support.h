#pragma once
// The AOT half of the delegates this build of the CLI knows, behind one
// interface, so that optional backends (XNNPACK needs its Debian packages)
// compile in or out in one place (CMake picks xnnpack_support.cc or
// xnnpack_support_stub.cc). The runtime half is the runner's
// (src/runner/runtime_support.h).

#include <cstdint>
#include <string>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"
#include "glassbox/export/program_manager.h"

namespace glassbox::cli {

/// True when the XNNPACK delegate is built in.
bool xnnpack_available();

/// Adds the XNNPACK partitioner and its identifier compile spec to
/// `recipe`; Error::kNotSupported when the backend is not built in.
Status add_xnnpack_to_recipe(const std::string& identifiers, exporter::Recipe* recipe);

/// The XNNPACK partition report of `graph`: per node, in node order, why
/// the partitioner leaves it on the portable kernels, or empty when it
/// takes it. Error::kNotSupported when the backend is not built in.
StatusOr<std::vector<std::string>> xnnpack_partition_reasons(const aot::Graph& graph);

}  // namespace glassbox::cli

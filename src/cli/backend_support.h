#pragma once
// The AOT half of the delegates this build of the CLI knows, behind one
// interface, so that optional backends (XNNPACK needs its Debian packages)
// compile in or out in one place (CMake picks xnnpack_support.cc or
// xnnpack_support_stub.cc). The runtime half is the runner's
// (src/runner/runtime_support.h).

#include <cstdint>
#include <string>

#include "glassbox/core/status.h"
#include "glassbox/etrecord/program_manager.h"

namespace glassbox::cli {

/// True when the XNNPACK delegate is built in.
bool xnnpack_available();

/// Adds the XNNPACK partitioner and its identifier compile spec to
/// `recipe`; Error::kNotSupported when the backend is not built in.
Status add_xnnpack_to_recipe(const std::string& identifiers, etrecord::Recipe* recipe);

}  // namespace glassbox::cli

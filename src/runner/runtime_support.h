#pragma once
// Private: the runtime half of the optional backends, so that XNNPACK (it
// needs its Debian packages) compiles in or out in one place (CMake picks
// xnnpack_runtime_support.cc or xnnpack_runtime_support_stub.cc).

#include <cstdint>
#include <string>

#include "glassbox/core/status.h"

namespace glassbox::runner {

/// Registers XNNPACK's runtime half and applies run options: `profiling`
/// "realtime" | "posttime" | "" (the program's compile spec) and `threads`
/// (0: the program's compile spec). A no-op when not built in.
Status configure_xnnpack_runtime(const std::string& profiling, std::uint32_t threads);

}  // namespace glassbox::runner

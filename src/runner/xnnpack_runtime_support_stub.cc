// Built instead of xnnpack_runtime_support.cc when XNNPACK's packages are
// missing.

#include "src/runner/runtime_support.h"

namespace glassbox::runner {

Status configure_xnnpack_runtime(const std::string&, std::uint32_t) { return Status(); }

}  // namespace glassbox::runner

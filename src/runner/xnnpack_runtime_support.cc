#include "backends/xnnpack/runtime/xnnpack_runtime.h"
#include "src/runner/runtime_support.h"

namespace glassbox::runner {

Status configure_xnnpack_runtime(const std::string& profiling, std::uint32_t threads) {
  const Error e = backends::xnnpack::register_xnnpack_backend_runtime();
  if (e != Error::kOk) {
    return Status(e, "cannot register the XNNPACK backend's runtime half");
  }
  auto& runtime = backends::xnnpack::xnnpack_backend_runtime();
  if (profiling == "realtime" || profiling == "posttime") {
    const auto mode = profiling == "realtime" ? backends::xnnpack::ProfilingMode::kRealTime
                                              : backends::xnnpack::ProfilingMode::kPostTime;
    runtime.set_profiling_mode_override(&mode);
  } else {
    runtime.set_profiling_mode_override(nullptr);
  }
  runtime.set_threads_override(threads);
  return Status();
}

}  // namespace glassbox::runner

#include "backends/demo/demo_plugin.h"

#include <string>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/runtime/demo_runtime.h"

namespace glassbox::backends::demo {
namespace {

StatusOr<aot::Partitioner> make_partitioner() {
  GLASSBOX_ASSIGN_OR_RETURN(DemoBackend * backend, registered_backend<DemoBackend>(
                                                       kDemoBackendName, &register_demo_backend));
  return make_demo_partitioner(*backend);
}

Status prepare_runtime(const RunSettings& settings) {
  const Error e = register_demo_backend_runtime();
  if (e != Error::kOk) return Status(e, "cannot register the demo backend's runtime half");
  demo_backend_runtime().set_profiling_mode_override(
      settings.log_mode.has_value() ? &*settings.log_mode : nullptr);
  return Status();
}

}  // namespace

const BackendPlugin& demo_plugin() {
  static const BackendPlugin plugin{
      .name = "demo",
      .summary = "the demo delegate: fuses conv+relu, decomposes tan into sin, cos, div",
      .make_partitioner = &make_partitioner,
      .partition_report = nullptr,
      .prepare_runtime = &prepare_runtime,
  };
  return plugin;
}

}  // namespace glassbox::backends::demo

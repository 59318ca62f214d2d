#include "backends/xnnpack/xnnpack_plugin.h"

#include "backends/xnnpack/aot/xnnpack_backend.h"
#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "backends/xnnpack/runtime/xnnpack_runtime.h"

namespace glassbox::backends::xnnpack {
namespace {

StatusOr<aot::Partitioner> make_partitioner() {
  GLASSBOX_ASSIGN_OR_RETURN(
      XnnpackBackend * backend,
      registered_backend<XnnpackBackend>(kXnnpackBackendName, &register_xnnpack_backend));
  return make_xnnpack_partitioner(*backend);
}

StatusOr<std::vector<std::string>> partition_report(const aot::Graph& graph) {
  return xnnpack_partition_report(graph);
}

StatusOr<std::vector<bool>> int8_report(const aot::Graph& graph) {
  return xnnpack_int8_report(graph);
}

Status prepare_runtime(const RunSettings& settings) {
  const Error e = register_xnnpack_backend_runtime();
  if (e != Error::kOk) return Status(e, "cannot register the XNNPACK backend's runtime half");
  XnnpackBackendRuntime& runtime = xnnpack_backend_runtime();
  runtime.set_profiling_mode_override(settings.log_mode.has_value() ? &*settings.log_mode
                                                                    : nullptr);
  runtime.set_threads_override(settings.threads);
  return Status();
}

}  // namespace

const BackendPlugin& xnnpack_plugin() {
  static const BackendPlugin plugin{
      .name = "xnnpack",
      .summary = "the XNNPACK delegate (CPU kernels; NHWC inside, conversions at its borders)",
      .make_partitioner = &make_partitioner,
      .partition_report = &partition_report,
      .prepare_runtime = &prepare_runtime,
      .int8_report = &int8_report,
  };
  return plugin;
}

}  // namespace glassbox::backends::xnnpack

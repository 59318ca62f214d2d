#include "backends/onednn/onednn_plugin.h"

#include "backends/onednn/aot/onednn_backend.h"
#include "backends/onednn/aot/onednn_partitioner.h"
#include "backends/onednn/runtime/onednn_runtime.h"

namespace glassbox::backends::onednn {
namespace {

StatusOr<aot::Partitioner> make_partitioner() {
  GLASSBOX_ASSIGN_OR_RETURN(
      OnednnBackend * backend,
      registered_backend<OnednnBackend>(kOnednnBackendName, &register_onednn_backend));
  return make_onednn_partitioner(*backend);
}

StatusOr<std::vector<std::string>> partition_report(const aot::Graph& graph) {
  return onednn_partition_report(graph);
}

Status prepare_runtime(const RunSettings& settings) {
  const Error e = register_onednn_backend_runtime();
  if (e != Error::kOk) return Status(e, "cannot register the oneDNN backend's runtime half");
  OnednnBackendRuntime& runtime = onednn_backend_runtime();
  runtime.set_profiling_mode_override(settings.log_mode.has_value() ? &*settings.log_mode
                                                                    : nullptr);
  runtime.set_threads_override(settings.threads);
  runtime.set_winograd(settings.winograd);
  return Status();
}

}  // namespace

const BackendPlugin& onednn_plugin() {
  static const BackendPlugin plugin{
      .name = "onednn",
      .summary =
          "the oneDNN delegate (CPU primitives; memory formats chosen by oneDNN, reorders "
          "at its borders)",
      .make_partitioner = &make_partitioner,
      .partition_report = &partition_report,
      .prepare_runtime = &prepare_runtime,
  };
  return plugin;
}

}  // namespace glassbox::backends::onednn

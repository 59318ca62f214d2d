#include "backends/xnnpack/aot/xnnpack_backend.h"
#include "backends/xnnpack/aot/xnnpack_partitioner.h"
#include "src/cli/backend_support.h"

namespace glassbox::cli {

bool xnnpack_available() { return true; }

Status add_xnnpack_to_recipe(const std::string& identifiers, exporter::Recipe* recipe) {
  // The registry owns the backend; a second `lower` in one process (tests)
  // finds it there.
  aot::BackendRegistry& registry = aot::global_backend_registry();
  if (!registry.lookup(backends::xnnpack::kXnnpackBackendName).ok()) {
    GLASSBOX_RETURN_IF_ERROR(backends::xnnpack::register_xnnpack_backend(registry));
  }
  GLASSBOX_ASSIGN_OR_RETURN(aot::BackendDetails * details,
                            registry.lookup(backends::xnnpack::kXnnpackBackendName));
  auto* xnn = dynamic_cast<backends::xnnpack::XnnpackBackend*>(details);
  if (xnn == nullptr) {
    return Status(Error::kInternal,
                  "'XnnpackBackend' is registered but is not the XNNPACK backend");
  }
  recipe->partitioners.push_back(backends::xnnpack::make_xnnpack_partitioner(*xnn));
  recipe->compile_specs.push_back(
      aot::CompileSpec::from_string(backends::xnnpack::kIdentifiersSpecKey, identifiers));
  return Status();
}

StatusOr<std::vector<std::string>> xnnpack_partition_reasons(const aot::Graph& graph) {
  return backends::xnnpack::xnnpack_partition_report(graph);
}

}  // namespace glassbox::cli

#include "backends/common/backend_plugin.h"
#include "backends/common/compile_specs.h"
#include "backends/demo/demo_plugin.h"
#if GLASSBOX_HAVE_XNNPACK
#include "backends/xnnpack/xnnpack_plugin.h"
#endif
#if GLASSBOX_HAVE_ONEDNN
#include "backends/onednn/onednn_plugin.h"
#endif

namespace glassbox::backends {
namespace {

// The one list of built-in backends. XNNPACK is optional (it needs Debian's
// libxnnpack-dev), as is oneDNN (libdnnl-dev); CMake defines
// GLASSBOX_HAVE_XNNPACK / GLASSBOX_HAVE_ONEDNN when each is built.
const BackendPlugin* const kBuiltIn[] = {
    &demo::demo_plugin(),
#if GLASSBOX_HAVE_XNNPACK
    &xnnpack::xnnpack_plugin(),
#endif
#if GLASSBOX_HAVE_ONEDNN
    &onednn::onednn_plugin(),
#endif
};

}  // namespace

std::span<const BackendPlugin* const> backend_plugins() { return kBuiltIn; }

const BackendPlugin* find_backend_plugin(std::string_view name) {
  for (const BackendPlugin* plugin : kBuiltIn) {
    if (plugin->name == name) return plugin;
  }
  return nullptr;
}

Status add_to_recipe(const BackendPlugin& plugin, const LowerSettings& settings,
                     exporter::Recipe* recipe) {
  GLASSBOX_ASSIGN_OR_RETURN(aot::Partitioner partitioner, plugin.make_partitioner());
  recipe->partitioners.push_back(std::move(partitioner));
  recipe->compile_specs.push_back(
      aot::CompileSpec::from_string(kIdentifiersSpecKey, settings.identifiers));
  if (!settings.perturb.empty()) {
    recipe->compile_specs.push_back(
        aot::CompileSpec::from_string(runtime::kPerturbSpecKey, settings.perturb));
  }
  return Status();
}

Status prepare_backend_runtimes(const RunSettings& settings) {
  for (const BackendPlugin* plugin : kBuiltIn) {
    GLASSBOX_RETURN_IF_ERROR(plugin->prepare_runtime(settings));
  }
  return Status();
}

}  // namespace glassbox::backends

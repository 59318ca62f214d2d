#include <cstring>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "backends/common/compile_specs.h"
#include "backends/demo/demo_plugin.h"
#include "glassbox/core/check.h"
#if GLASSBOX_HAVE_XNNPACK
#include "backends/xnnpack/xnnpack_plugin.h"
#endif
#if GLASSBOX_HAVE_ONEDNN
#include "backends/onednn/onednn_plugin.h"
#endif

namespace glassbox::backends {
namespace {

// The built-in backends. XNNPACK is optional (it needs Debian's
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

struct Registry {
  std::vector<const BackendPlugin*> plugins;
  std::vector<std::string> origins;  // parallel to plugins
};

Registry& storage() {
  static Registry r;
  return r;
}

Status add(const PluginEntry& entry, std::string_view origin) {
  if (entry.abi_version != kPluginAbiVersion) {
    return Status(Error::kVersionMismatch, std::string(origin) + ": plug-in ABI version " +
                                               std::to_string(entry.abi_version) +
                                               ", this glassbox loads version " +
                                               std::to_string(kPluginAbiVersion));
  }
  constexpr const char* kOwnTag = GLASSBOX_PLUGIN_BUILD_TAG;
  if (entry.build_tag == nullptr || std::strcmp(entry.build_tag, kOwnTag) != 0) {
    return Status(Error::kVersionMismatch,
                  std::string(origin) + ": plug-in built as '" +
                      (entry.build_tag == nullptr ? "(no tag)" : entry.build_tag) +
                      "', this glassbox is '" + kOwnTag +
                      "' (rebuild it with the same compiler against this version's headers)");
  }
  const BackendPlugin* plugin = entry.plugin;
  if (plugin == nullptr || plugin->name.empty() || plugin->make_partitioner == nullptr ||
      plugin->prepare_runtime == nullptr) {
    return Status(Error::kInvalidArgument,
                  std::string(origin) +
                      ": plug-in entry lacks a backend, its name, its partitioner or its "
                      "runtime half");
  }
  if (plugin->name == "portable") {
    return Status(
        Error::kInvalidArgument,
        std::string(origin) + ": 'portable' is not a backend name (it means no delegation)");
  }
  Registry& r = storage();
  for (std::size_t i = 0; i < r.plugins.size(); ++i) {
    if (r.plugins[i] == plugin) return Status();  // the same library loaded twice
    if (r.plugins[i]->name == plugin->name) {
      return Status(Error::kInvalidArgument, std::string(origin) + ": backend '" +
                                                 std::string(plugin->name) +
                                                 "' is already registered (" + r.origins[i] + ")");
    }
  }
  r.plugins.push_back(plugin);
  r.origins.emplace_back(origin);
  return Status();
}

// Built-ins take the same path as plug-ins, with the same checks, on the
// registry's first use; they are built with this binary, so they pass.
Registry& registry() {
  static const bool built_ins_registered = [] {
    for (const BackendPlugin* plugin : kBuiltIn) {
      GLASSBOX_CHECK(
          add(PluginEntry{kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, plugin}, "built in").ok());
    }
    return true;
  }();
  (void)built_ins_registered;
  return storage();
}

}  // namespace

Status register_backend_plugin(const PluginEntry& entry, std::string_view origin) {
  registry();  // the built-ins first, so a plug-in cannot take their names
  return add(entry, origin);
}

std::span<const BackendPlugin* const> backend_plugins() { return registry().plugins; }

const BackendPlugin* find_backend_plugin(std::string_view name) {
  for (const BackendPlugin* plugin : registry().plugins) {
    if (plugin->name == name) return plugin;
  }
  return nullptr;
}

etdump::RawTraceDecoderLookup raw_trace_decoders() {
  return [](std::string_view backend) -> GlassboxRawTraceDecoder {
    const BackendPlugin* plugin = find_backend_plugin(backend);
    return plugin == nullptr ? nullptr : plugin->decode_raw_trace;
  };
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
  for (const BackendPlugin* plugin : registry().plugins) {
    GLASSBOX_RETURN_IF_ERROR(plugin->prepare_runtime(settings));
  }
  return Status();
}

}  // namespace glassbox::backends

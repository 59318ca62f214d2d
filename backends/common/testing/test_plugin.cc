// A plug-in for plugin_loader_test, one library per case: which one is
// chosen by the TEST_PLUGIN_<KIND> definition (backends/CMakeLists.txt).
// Its functions are never called except by the valid one's test, so they
// stay trivial.
#include "glassbox/backends/plugin.h"

namespace {

using glassbox::Status;
using glassbox::StatusOr;
using glassbox::backends::BackendPlugin;
using glassbox::backends::PluginEntry;

StatusOr<glassbox::aot::Partitioner> make_partitioner() {
  return Status(glassbox::Error::kNotSupported, "loader_test_backend partitions nothing");
}

Status prepare_runtime(const glassbox::backends::RunSettings&) { return Status(); }

#if TEST_PLUGIN_CLASH
constexpr const char* kName = "demo";  // a built-in backend's name
#else
constexpr const char* kName = "loader_test_backend";
#endif

const BackendPlugin kPlugin{
    .name = kName,
    .summary = "a plug-in for plugin_loader_test",
    .make_partitioner = &make_partitioner,
    .partition_report = nullptr,
    .prepare_runtime = &prepare_runtime,
};

#if TEST_PLUGIN_WRONG_ABI
// A future layout: only the first field is shared.
struct FutureEntry {
  std::uint32_t abi_version;
  const void* something_else;
};
constexpr std::uint32_t kFutureAbiVersion = 999;
const FutureEntry kEntry{kFutureAbiVersion, nullptr};
#elif TEST_PLUGIN_WRONG_TAG
const PluginEntry kEntry{glassbox::backends::kPluginAbiVersion, "gcc-1 libstdc++-1 glassbox-0.0.0",
                         &kPlugin};
#else
const PluginEntry kEntry{glassbox::backends::kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG,
                         &kPlugin};
#endif

}  // namespace

#if TEST_PLUGIN_NO_ENTRY
// Exports something, but not the entry point.
extern "C" GLASSBOX_PLUGIN_EXPORT const void* some_other_entry(void) { return &kEntry; }
#else
extern "C" GLASSBOX_PLUGIN_EXPORT const void* glassbox_plugin_entry(void) { return &kEntry; }
#endif

// Built instead of xnnpack_support.cc when XNNPACK's packages are missing.

#include "src/cli/backend_support.h"

namespace glassbox::cli {

bool xnnpack_available() { return false; }

namespace {

Status not_built_in() {
  return Status(Error::kNotSupported,
                "this glassbox was built without the XNNPACK backend (install "
                "libxnnpack-dev libpthreadpool-dev libcpuinfo-dev and rebuild)");
}

}  // namespace

Status add_xnnpack_to_recipe(const std::string&, exporter::Recipe*) { return not_built_in(); }

StatusOr<std::vector<std::string>> xnnpack_partition_reasons(const aot::Graph&) {
  return not_built_in();
}

}  // namespace glassbox::cli

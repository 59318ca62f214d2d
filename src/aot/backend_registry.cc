#include "glassbox/aot/backend_details.h"

namespace glassbox::aot {

Status BackendRegistry::register_backend(std::unique_ptr<BackendDetails> backend) {
  if (backend == nullptr) return Status(Error::kInvalidArgument, "register_backend: null backend");
  std::string name = backend->name();
  if (name.empty()) return Status(Error::kInvalidArgument, "register_backend: empty backend name");
  if (backends_.contains(name)) {
    return Status(Error::kInvalidArgument, "backend '" + name + "' is already registered");
  }
  backends_.emplace(std::move(name), std::move(backend));
  return Status();
}

StatusOr<BackendDetails*> BackendRegistry::lookup(std::string_view name) const {
  auto it = backends_.find(name);
  if (it == backends_.end()) {
    return Status(Error::kNotFound, "no backend named '" + std::string(name) + "' is registered");
  }
  return it->second.get();
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& entry : backends_) names.push_back(entry.first);
  return names;
}

BackendRegistry& global_backend_registry() {
  static BackendRegistry registry;
  return registry;
}

}  // namespace glassbox::aot

#include <cstring>

#include "glassbox/core/mutex.h"
#include "glassbox/runtime/backend.h"

namespace glassbox::runtime {
namespace {

constexpr std::size_t kMaxBackends = 32;

struct Entry {
  const char* name;
  BackendInterface* backend;
};

// A fixed table: registration usually runs from static initialisers, before
// any allocator exists.
struct Registry {
  Mutex mutex;
  Entry entries[kMaxBackends] = {};
  std::size_t count = 0;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

BackendInterface::~BackendInterface() = default;

ErrorInfo BackendInterface::prepare(DelegateHandle* handle, Span<Tensor* const> inputs,
                                    Span<Tensor* const> outputs) const {
  (void)handle;
  (void)inputs;
  (void)outputs;
  return kOk;
}

Error register_backend(const char* name, BackendInterface* backend) {
  if (name == nullptr || backend == nullptr) return Error::kInvalidArgument;
  Registry& r = registry();
  std::lock_guard<Mutex> lock(r.mutex);
  for (std::size_t i = 0; i < r.count; ++i) {
    if (std::strcmp(r.entries[i].name, name) == 0) return Error::kInvalidState;
  }
  if (r.count == kMaxBackends) return Error::kOutOfResources;
  r.entries[r.count++] = Entry{name, backend};
  return Error::kOk;
}

BackendInterface* find_backend(const char* name) {
  if (name == nullptr) return nullptr;
  Registry& r = registry();
  std::lock_guard<Mutex> lock(r.mutex);
  for (std::size_t i = 0; i < r.count; ++i) {
    if (std::strcmp(r.entries[i].name, name) == 0) return r.entries[i].backend;
  }
  return nullptr;
}

std::size_t num_registered_backends() {
  Registry& r = registry();
  std::lock_guard<Mutex> lock(r.mutex);
  return r.count;
}

}  // namespace glassbox::runtime

#include "glassbox/core/check.h"

#include <cstdio>
#include <cstdlib>

namespace glassbox::internal {

void check_failed(const char* condition, const char* file, int line) noexcept {
  std::fprintf(stderr, "glassbox: internal check failed: %s at %s:%d\n", condition, file, line);
  std::abort();
}

}  // namespace glassbox::internal

#pragma once
// Counting every heap allocation of a test process, for the no-heap tests:
// the malloc family is replaced (libstdc++'s operator new calls malloc) and
// counts while `allocations_during` watches. It DEFINES those functions:
// include it in exactly one source file of a test binary.
//
// Sanitizers bring their own allocator and must keep it, so the count is
// taken on glibc without sanitizers only: a test checks
// kCountsAllocations and skips otherwise.

#include <atomic>
#include <cerrno>
#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GLASSBOX_COUNTS_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define GLASSBOX_COUNTS_ALLOCATIONS 0
#endif
#endif
#if !defined(GLASSBOX_COUNTS_ALLOCATIONS) && defined(__GLIBC__)
#define GLASSBOX_COUNTS_ALLOCATIONS 1
#endif
#ifndef GLASSBOX_COUNTS_ALLOCATIONS
#define GLASSBOX_COUNTS_ALLOCATIONS 0
#endif

namespace glassbox::testing {

inline constexpr bool kCountsAllocations = GLASSBOX_COUNTS_ALLOCATIONS != 0;

namespace allocation_count {
inline std::atomic<bool> watching{false};
inline std::atomic<std::size_t> allocations{0};

// Unused in sanitizer builds, which keep their own allocator.
[[maybe_unused]] inline void note() {
  if (watching.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
  }
}
}  // namespace allocation_count

/// Allocations made while `run` runs (0 when they are not counted).
template <typename Run>
std::size_t allocations_during(Run run) {
  allocation_count::allocations.store(0);
  allocation_count::watching.store(true);
  run();
  allocation_count::watching.store(false);
  return allocation_count::allocations.load();
}

}  // namespace glassbox::testing

#if GLASSBOX_COUNTS_ALLOCATIONS
// glibc's own entry points, which its malloc family forwards to.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

void* malloc(std::size_t size) {
  glassbox::testing::allocation_count::note();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  glassbox::testing::allocation_count::note();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) {
  glassbox::testing::allocation_count::note();
  return __libc_realloc(pointer, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  glassbox::testing::allocation_count::note();
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  glassbox::testing::allocation_count::note();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  glassbox::testing::allocation_count::note();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"
#endif

#include "glassbox/core/internal/large_buffer.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace glassbox::internal {

// `pages` is unused where huge pages are compiled out (not Linux: bare
// metal), where every buffer comes from malloc.
bool LargeBuffer::allocate(std::size_t bytes, [[maybe_unused]] Pages pages, Fill fill) {
  release();
  if (bytes == 0) return true;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (pages == Pages::kFreshHuge) {
    // Over-allocate by one huge page so that the buffer can start on a
    // huge-page boundary: only aligned 2 MiB ranges can be huge pages.
    // The slack is address space only, never touched.
    const std::size_t mapped = bytes + kHugePageBytes;
    void* mapping =
        mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) return false;
    const auto start = reinterpret_cast<std::uintptr_t>(mapping);
    const std::uintptr_t aligned =
        (start + kHugePageBytes - 1) & ~(std::uintptr_t{kHugePageBytes} - 1);
    // Advice, not a requirement: a kernel without huge pages refuses it.
    (void)madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
    mapping_ = mapping;
    mapping_bytes_ = mapped;
    data_ = reinterpret_cast<std::uint8_t*>(aligned);  // fresh pages: zero
    size_ = bytes;
    return true;
  }
#endif
  data_ =
      static_cast<std::uint8_t*>(fill == Fill::kZero ? std::calloc(bytes, 1) : std::malloc(bytes));
  if (data_ == nullptr) return false;
  size_ = bytes;
  return true;
}

void LargeBuffer::release() {
#if defined(__linux__)
  if (mapping_ != nullptr) {
    munmap(mapping_, mapping_bytes_);
    data_ = nullptr;
  }
#endif
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
  mapping_ = nullptr;
  mapping_bytes_ = 0;
}

}  // namespace glassbox::internal

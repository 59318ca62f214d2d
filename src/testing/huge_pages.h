#pragma once
// Test helpers: whether memory was advised for transparent huge pages, as
// the kernel shows it, for the tests of internal::LargeBuffer and of the
// buffers built on it.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace glassbox::testing {

inline constexpr std::size_t kTestHugePageBytes = std::size_t{2} << 20;

// Whether the mapping holding `address` was advised for huge pages (the
// "hg" flag in /proc/self/smaps); nullopt where that cannot be read.
inline std::optional<bool> advised_huge(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return std::nullopt;
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  std::string line;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.find(" hg") != std::string::npos;
    }
  }
  return std::nullopt;
}

// Whether this kernel has transparent huge pages at all, and shows the
// advice in smaps: a mapping of our own, advised directly, must carry the
// flag. qemu-user (make test-aarch64) accepts madvise and drops it.
inline bool kernel_has_huge_pages() {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) return false;
  const std::size_t bytes = 2 * kTestHugePageBytes;
  void* probe = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool shown =
      madvise(probe, bytes, MADV_HUGEPAGE) == 0 && advised_huge(probe) == std::optional<bool>(true);
  munmap(probe, bytes);
  return shown;
}

}  // namespace glassbox::testing

#pragma once
// Memory for heap-mode recordings: buffers of megabytes (record slabs, the
// serialized ETDump) that are written once, front to back, and freed whole.

#include <cstddef>
#include <cstdint>

namespace glassbox::internal {

// One buffer, from one of two sources:
// - kReusable: malloc, which serves and reuses freed memory for buffers
//   up to its own mmap threshold (glibc: at most 32 MiB), so a recording
//   that follows another takes no page faults;
// - kFreshHuge: an anonymous mapping aligned to and advised for transparent
//   huge pages, where the platform has them. Fresh 4 KiB pages cost a
//   page fault each on first write (about 2 us in a VM: 44 ms for the
//   88 MB a million events take in heap mode); 2 MiB pages take one fault
//   per 512 of them. Without huge pages the advice is ignored and the
//   mapping is ordinary fresh memory, as malloc gives above its threshold.
// See docs/benchmarks.md for what each saves.
class LargeBuffer {
 public:
  enum class Pages { kReusable, kFreshHuge };
  enum class Fill { kAny, kZero };

  // Above this, malloc maps fresh memory for every buffer anyway.
  static constexpr std::size_t kFreshBytes = std::size_t{32} << 20;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

  LargeBuffer() = default;
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  ~LargeBuffer() { release(); }

  // Replaces the buffer with `bytes` bytes, 16-aligned (zero for kZero);
  // false (and empty) when there is no memory.
  bool allocate(std::size_t bytes, Pages pages, Fill fill);
  void release();

  std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  // Non-null: data_ is inside a mapping of mapping_bytes_ at mapping_.
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
};

}  // namespace glassbox::internal

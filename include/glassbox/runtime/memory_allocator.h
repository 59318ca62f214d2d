#pragma once
/// @file
/// `MemoryAllocator`: the bump allocator the runtime takes all its memory
/// from (method tables, the activation arena, kernel scratch, delegate
/// state). Device side: give it a buffer and nothing else is allocated.
/// Host tools may let it grow on the heap instead.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "glassbox/core/span.h"

namespace glassbox::runtime {

class MemoryAllocator {
 public:
  static constexpr std::size_t kDefaultAlignment = 16;

  /// Allocates from `buffer` only (which must outlive the allocator).
  explicit MemoryAllocator(Span<std::uint8_t> buffer) : buffer_(buffer) {}
  /// Grows on the heap in chunks (host tools).
  MemoryAllocator() = default;
  MemoryAllocator(const MemoryAllocator&) = delete;
  MemoryAllocator& operator=(const MemoryAllocator&) = delete;

  /// `size` bytes aligned to `alignment` (a power of two); null when the
  /// buffer is exhausted. The memory is not initialised.
  void* allocate(std::size_t size, std::size_t alignment = kDefaultAlignment);

  /// Typed convenience: `count` default-initialised Ts, or null.
  template <typename T>
  T* allocate_array(std::size_t count) {
    if (count > SIZE_MAX / sizeof(T)) return nullptr;
    void* p = allocate(count * sizeof(T),
                       alignof(T) > kDefaultAlignment ? alignof(T) : kDefaultAlignment);
    if (p == nullptr) return nullptr;
    T* out = static_cast<T*>(p);
    for (std::size_t i = 0; i < count; ++i) new (&out[i]) T();
    return out;
  }

  /// Frees everything at once (the temp allocator after each instruction).
  void reset();
  std::size_t used_bytes() const { return used_total_; }

 private:
  Span<std::uint8_t> buffer_;
  std::size_t used_ = 0;  // in buffer_ or the current heap chunk
  std::size_t used_total_ = 0;
  std::vector<std::unique_ptr<std::uint8_t[]>> chunks_;  // heap mode
  std::uint8_t* chunk_ = nullptr;
  std::size_t chunk_size_ = 0;
  bool heap() const { return buffer_.data() == nullptr; }
};

}  // namespace glassbox::runtime

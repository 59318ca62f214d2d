#include "glassbox/runtime/memory_allocator.h"

#include <cstdint>
#include <new>

namespace glassbox::runtime {
namespace {

constexpr std::size_t kHeapChunk = 1 << 20;

std::size_t padding_for(const std::uint8_t* p, std::size_t alignment) {
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  return (alignment - addr % alignment) % alignment;
}

}  // namespace

void* MemoryAllocator::allocate(std::size_t size, std::size_t alignment) {
  // A size near SIZE_MAX would wrap the capacity arithmetic below.
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || size > SIZE_MAX / 2) return nullptr;
  std::uint8_t* base = heap() ? chunk_ : buffer_.data();
  std::size_t capacity = heap() ? chunk_size_ : buffer_.size();
  std::size_t pad = base ? padding_for(base + used_, alignment) : 0;
  if (base == nullptr || used_ + pad > capacity || size > capacity - used_ - pad) {
    if (!heap()) return nullptr;
    // A fresh chunk, large enough for this request and its alignment.
    const std::size_t want = size + alignment > kHeapChunk ? size + alignment : kHeapChunk;
    std::unique_ptr<std::uint8_t[]> chunk(new (std::nothrow) std::uint8_t[want]);
    if (chunk == nullptr) return nullptr;
    chunk_ = chunk.get();
    chunk_size_ = want;
    used_ = 0;
    chunks_.push_back(std::move(chunk));
    base = chunk_;
    pad = padding_for(base, alignment);
  }
  void* out = base + used_ + pad;
  used_ += pad + size;
  used_total_ += pad + size;
  return out;
}

void MemoryAllocator::reset() {
  used_ = 0;
  used_total_ = 0;
  if (heap()) {
    // Keep the newest chunk for reuse; the temp allocator resets often.
    if (!chunks_.empty()) {
      std::unique_ptr<std::uint8_t[]> last = std::move(chunks_.back());
      chunks_.clear();
      chunks_.push_back(std::move(last));
    }
  }
}

}  // namespace glassbox::runtime

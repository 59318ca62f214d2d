#pragma once
/// @file
/// Appends little-endian values to a delegate blob, for the AOT halves'
/// encoders. The hosts we build on are little-endian, which each runtime
/// parser also pins down with a static_assert.

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace glassbox::backends {

class BlobWriter {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
  }
  /// Zero bytes up to the next multiple of `alignment`.
  void pad_to(std::size_t alignment) {
    while (bytes_.size() % alignment != 0) bytes_.push_back(0);
  }
  std::vector<std::uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

}  // namespace glassbox::backends

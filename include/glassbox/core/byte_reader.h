#pragma once
/// @file
/// `ByteReader`: a bounds-checked cursor over untrusted little-endian bytes
/// (delegate blobs). Every read either succeeds whole or fails and leaves
/// the cursor where it was, so a parser can check each field in turn and
/// stop at the first bad one. Device-safe: no allocation, no exceptions.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "glassbox/core/span.h"

namespace glassbox {

static_assert(std::endian::native == std::endian::little,
              "blobs are little-endian and read with memcpy");

class ByteReader {
 public:
  explicit ByteReader(Span<const std::uint8_t> bytes) : bytes_(bytes) {}

  /// Copies the next `n` bytes into `out`; false if fewer remain.
  bool read(void* out, std::size_t n) {
    if (n > remaining()) return false;
    std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  /// Reads one trivially copyable value (copied, so alignment is free).
  template <typename T>
  bool read(T* out) {
    return read(out, sizeof(T));
  }
  /// The next `n` bytes in place (unaligned), or null if fewer remain.
  const std::uint8_t* take(std::size_t n) {
    if (n > remaining()) return nullptr;
    const std::uint8_t* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  Span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

}  // namespace glassbox

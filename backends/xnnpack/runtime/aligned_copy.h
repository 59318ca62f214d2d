#pragma once
/// @file
/// An aligned heap copy of a blob's unaligned weights, for the time an
/// operator is created. The blob's kernels and biases are unaligned byte
/// views; XNNPACK (and the delegate's own packing) read them as arrays of
/// T, so they are copied first and freed when the copy goes out of scope.
/// Init only: never on an execute path.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace glassbox::backends::xnnpack {

template <typename T>
class AlignedCopyOf {
 public:
  /// `count` Ts from `bytes`; get() is null when count is 0 or malloc fails.
  AlignedCopyOf(const std::uint8_t* bytes, std::size_t count)
      : data_(count == 0 ? nullptr : static_cast<T*>(std::malloc(count * sizeof(T)))) {
    if (data_ != nullptr) std::memcpy(data_, bytes, count * sizeof(T));
  }
  ~AlignedCopyOf() { std::free(data_); }
  AlignedCopyOf(const AlignedCopyOf&) = delete;
  AlignedCopyOf& operator=(const AlignedCopyOf&) = delete;
  const T* get() const { return data_; }

 private:
  T* data_;
};

using AlignedCopy = AlignedCopyOf<float>;

}  // namespace glassbox::backends::xnnpack

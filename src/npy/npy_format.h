#pragma once
// Constants of the .npy layout shared by the reader and the writer
// (numpy/lib/format.py documents the format).

#include <cstddef>
#include <string_view>

namespace glassbox::npy::internal {

/// "\x93NUMPY", then the major and minor version bytes.
inline constexpr std::string_view kMagic = "\x93NUMPY";
inline constexpr std::size_t kMagicSize = 6;
/// magic + version: where the header length field starts.
inline constexpr std::size_t kPreambleSize = kMagicSize + 2;
/// numpy pads magic + version + length + header to a multiple of this.
inline constexpr std::size_t kHeaderAlignment = 64;

}  // namespace glassbox::npy::internal

#pragma once
/// @file
/// `Span<T>`: a non-owning view of contiguous elements. The standard one is
/// exactly what we need; the alias keeps our signatures short and lets the
/// device side change it in one place if a platform lacks <span>.

#include <cstddef>
#include <cstdint>
#include <span>

namespace glassbox {

template <typename T>
using Span = std::span<T>;

/// Read-only bytes.
using ByteSpan = Span<const std::uint8_t>;

}  // namespace glassbox

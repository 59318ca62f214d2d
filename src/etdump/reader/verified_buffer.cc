#include "src/etdump/reader/verified_buffer.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "glassbox/schema/etdump_generated.h"

namespace glassbox::etdump {
namespace {

constexpr std::size_t kPrefixSize = sizeof(flatbuffers::uoffset_t);
constexpr std::size_t kIdentifierSize = flatbuffers::kFileIdentifierLength;
// A FlatBuffer starts with its root offset, then the identifier.
constexpr std::size_t kUnprefixedIdentifierAt = sizeof(flatbuffers::uoffset_t);
constexpr std::size_t kPrefixedIdentifierAt = kPrefixSize + kUnprefixedIdentifierAt;
// The widest scalar in the schema is 8 bytes (ulong, TickRatio).
constexpr std::size_t kBufferAlignment = 8;
// Nested tables in our schema go about 8 deep; anything far deeper is bogus.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;

Status corrupt(std::string message) { return Status(Error::kCorruptData, std::move(message)); }

bool has_identifier_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  return bytes.size() >= at + kIdentifierSize &&
         std::memcmp(bytes.data() + at, ::etdump::ETDumpIdentifier(), kIdentifierSize) == 0;
}

std::uint32_t read_le32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// The four identifier bytes, printable, with anything else as \xNN.
std::string quote_identifier(std::span<const std::uint8_t> id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t c : id) {
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

// Where the FlatBuffer is, once the prefix (if any) has been checked.
struct Layout {
  std::span<const std::uint8_t> buffer;  // including the prefix, if any
  bool size_prefixed = false;
};

StatusOr<Layout> locate(std::span<const std::uint8_t> bytes) {
  if (has_identifier_at(bytes, kPrefixedIdentifierAt)) {
    const std::size_t declared = read_le32(bytes.data());
    const std::size_t present = bytes.size() - kPrefixSize;
    if (declared > present) {
      return corrupt("truncated: size prefix says " + std::to_string(declared) +
                     " bytes, file has " + std::to_string(present) + " after the 4-byte prefix");
    }
    // Zero padding after the buffer (as left by tools that align files) is
    // harmless; anything else means the file is not what the prefix says.
    const auto tail = bytes.subspan(kPrefixSize + declared);
    if (std::any_of(tail.begin(), tail.end(), [](std::uint8_t b) { return b != 0; })) {
      return corrupt("size prefix says " + std::to_string(declared) + " bytes, but the file has " +
                     std::to_string(tail.size()) + " more non-padding bytes after them");
    }
    return Layout{bytes.first(kPrefixSize + declared), true};
  }
  if (has_identifier_at(bytes, kUnprefixedIdentifierAt)) {
    return Layout{bytes, false};
  }
  if (bytes.size() < kPrefixedIdentifierAt + kIdentifierSize) {
    return corrupt("too short to be an ETDump (" + std::to_string(bytes.size()) + " bytes)");
  }
  // We write size-prefixed files, so report the identifier where ours sit.
  return corrupt("not an ETDump (file identifier is '" +
                 quote_identifier(bytes.subspan(kPrefixedIdentifierAt, kIdentifierSize)) +
                 "', expected '" + ::etdump::ETDumpIdentifier() + "')");
}

}  // namespace

StatusOr<VerifiedBuffer> VerifiedBuffer::verify(std::span<const std::uint8_t> bytes) {
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return corrupt("too large for a FlatBuffer (" + std::to_string(bytes.size()) + " bytes)");
  }
  GLASSBOX_ASSIGN_OR_RETURN(Layout layout, locate(bytes));

  VerifiedBuffer result;
  result.size_prefixed_ = layout.size_prefixed;
  std::span<const std::uint8_t> buffer = layout.buffer;
  if (reinterpret_cast<std::uintptr_t>(buffer.data()) % kBufferAlignment != 0) {
    result.aligned_copy_.resize((buffer.size() + kBufferAlignment - 1) / kBufferAlignment);
    std::memcpy(result.aligned_copy_.data(), buffer.data(), buffer.size());
    buffer = {reinterpret_cast<const std::uint8_t*>(result.aligned_copy_.data()), buffer.size()};
  }

  flatbuffers::Verifier::Options options;
  options.max_depth = kMaxDepth;
  // Every table takes at least 4 bytes, so a real file never has more than
  // size / 4 of them; the limit only stops inputs that point many offsets at
  // the same table to make verification slow.
  options.max_tables = static_cast<flatbuffers::uoffset_t>(buffer.size() / 4 + 64);
  options.check_alignment = true;
  flatbuffers::Verifier verifier(buffer.data(), buffer.size(), options);
  const bool ok = layout.size_prefixed ? ::etdump::VerifySizePrefixedETDumpBuffer(verifier)
                                       : ::etdump::VerifyETDumpBuffer(verifier);
  if (!ok) {
    return corrupt(
        "corrupt: the FlatBuffer failed verification (an offset, length or "
        "alignment is invalid)");
  }
  result.root_ = layout.size_prefixed ? ::etdump::GetSizePrefixedETDump(buffer.data())
                                      : ::etdump::GetETDump(buffer.data());
  return result;
}

}  // namespace glassbox::etdump

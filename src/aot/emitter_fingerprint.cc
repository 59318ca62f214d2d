#include <cstring>

#include "program_generated.h"
#include "src/aot/emitter_internal.h"

namespace glassbox::aot {
namespace internal {

std::uint64_t fnv1a_with_zeroed_range(std::span<const std::uint8_t> bytes, std::size_t skip_begin,
                                      std::size_t skip_length) {
  constexpr std::uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
  constexpr std::uint64_t kPrime = 0x100000001b3ull;
  std::uint64_t hash = kOffsetBasis;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const bool zeroed = i >= skip_begin && i - skip_begin < skip_length;
    hash ^= zeroed ? 0u : bytes[i];
    hash *= kPrime;
  }
  return hash;
}

std::string fingerprint_hex(std::uint64_t hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(kFingerprintLength, '0');
  for (std::size_t i = kFingerprintLength; i-- > 0; hash >>= 4) hex[i] = kDigits[hash & 0xf];
  return hex;
}

}  // namespace internal

StatusOr<std::string> fingerprint_of(std::span<const std::uint8_t> program) {
  flatbuffers::Verifier verifier(program.data(), program.size());
  if (program.size() < 8 || !gbx::ProgramBufferHasIdentifier(program.data()) ||
      !gbx::VerifyProgramBuffer(verifier)) {
    return Status(Error::kCorruptData, "program: not a valid .gbx FlatBuffer (identifier 'GBX0')");
  }
  const flatbuffers::String* stored = gbx::GetProgram(program.data())->fingerprint();
  if (stored == nullptr || stored->size() != kFingerprintLength) {
    return Status(Error::kCorruptData, "program: the fingerprint field is not " +
                                           std::to_string(kFingerprintLength) + " characters long");
  }
  const auto begin = static_cast<std::size_t>(
      reinterpret_cast<const std::uint8_t*>(stored->data()) - program.data());
  return internal::fingerprint_hex(
      internal::fnv1a_with_zeroed_range(program, begin, kFingerprintLength));
}

}  // namespace glassbox::aot

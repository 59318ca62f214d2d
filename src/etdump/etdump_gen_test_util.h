#pragma once
// Test helpers shared by the ETDumpGen tests.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "etdump_generated.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"

namespace glassbox::etdump::testing_util {

// The writer lays out FlatBuffers by hand: every dump a test produces goes
// through the FlatBuffers verifier of the generated schema code, with its
// alignment checks, before anything reads it.
inline ::testing::AssertionResult Verifies(Span<const std::uint8_t> bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!::etdump::VerifySizePrefixedETDumpBuffer(verifier)) {
    return ::testing::AssertionFailure() << "the FlatBuffers verifier rejects the dump";
  }
  return ::testing::AssertionSuccess();
}

// A profile event's metadata as text, "<none>" when it has none.
inline std::string metadata_of(const ProfileEvent& p) {
  return p.delegate_debug_metadata
             ? std::string(p.delegate_debug_metadata->begin(), p.delegate_debug_metadata->end())
             : std::string("<none>");
}

// Serializes, verifies and parses.
inline StatusOr<ETDumpFile> serialize(ETDumpGen& gen, const char* name = "test.etdp") {
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  if (!data.ok()) return Status(data.error_info());
  EXPECT_TRUE(Verifies(*data));
  return parse_etdump(*data, name);
}

// The same for a caller-buffer tracer on `memory`: the dump must lie
// inside it.
inline StatusOr<ETDumpFile> serialize_in(ETDumpGen& gen, const std::vector<std::uint8_t>& memory,
                                         const char* name) {
  Result<Span<const std::uint8_t>> data = gen.get_etdump_data();
  if (!data.ok()) return Status(data.error_info());
  EXPECT_GE(data->data(), memory.data());
  EXPECT_LE(data->data() + data->size(), memory.data() + memory.size());
  EXPECT_TRUE(Verifies(*data));
  return parse_etdump(*data, name);
}

// A tracer in either memory mode (a 1 MiB caller buffer, or the heap),
// and its dump serialized, verified and parsed.
class Tracer {
 public:
  explicit Tracer(bool caller_buffer) {
    if (caller_buffer) {
      memory_.resize(1 << 20);
      gen = std::make_unique<ETDumpGen>(Span<std::uint8_t>(memory_));
    } else {
      gen = std::make_unique<ETDumpGen>();
    }
  }
  ETDumpFile dump() {
    StatusOr<ETDumpFile> file = serialize(*gen);
    EXPECT_TRUE(file.ok()) << file.status().message();
    return file.ok() ? *file : ETDumpFile{};
  }
  std::unique_ptr<ETDumpGen> gen;

 private:
  std::vector<std::uint8_t> memory_;
};

}  // namespace glassbox::etdump::testing_util

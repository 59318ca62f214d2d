// libFuzzer target: any byte string must give a parse or an error, never a
// crash, a sanitizer report or a hang. Decoding tensor values from the same
// bytes (as if they were the debug data) exercises that path too, and so
// does the in-place reader (ETDumpBuffer), which must accept exactly what
// parse_etdump accepts and visit every profile event it decodes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "glassbox/etdump/etdump_buffer.h"
#include "glassbox/etdump/etdump_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  auto file = glassbox::etdump::parse_etdump(bytes, "fuzz");
  auto buffer = glassbox::etdump::ETDumpBuffer::parse({bytes.begin(), bytes.end()}, "fuzz");
  if (file.ok() != buffer.ok()) std::abort();
  if (!file.ok()) return 0;
  std::size_t profile_events = 0, visited = 0;
  for (const auto& run : file->runs) {
    for (const auto& event : run.events) profile_events += event.profile() != nullptr;
  }
  buffer->for_each_profile_event([&](std::size_t, const auto&) { ++visited; });
  if (visited != profile_events || buffer->profile_events() != profile_events) std::abort();
  for (const auto& run : file->runs) {
    for (const auto& event : run.events) {
      const auto* debug = event.debug();
      if (debug == nullptr) continue;
      if (debug->value.tensor) {
        (void)glassbox::etdump::read_tensor_values(*debug->value.tensor, bytes);
      }
      if (debug->value.tensor_list) {
        for (const auto& t : *debug->value.tensor_list) {
          (void)glassbox::etdump::read_tensor_values(t, bytes);
        }
      }
    }
  }
  return 0;
}

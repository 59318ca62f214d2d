// libFuzzer target: any byte string must give a parse or an error, never a
// crash, a sanitizer report or a hang. Decoding tensor values from the same
// bytes (as if they were the debug data) exercises that path too.

#include <cstddef>
#include <cstdint>
#include <span>

#include "glassbox/etdump/etdump_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  auto file = glassbox::etdump::parse_etdump(bytes, "fuzz");
  if (!file.ok()) return 0;
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

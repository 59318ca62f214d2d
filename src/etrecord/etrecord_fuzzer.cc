// libFuzzer target: any bytes given to ETRecord::load_from_memory must give
// a record or an error, never a crash, hang or unbounded allocation.

#include <cstddef>
#include <cstdint>
#include <span>

#include "glassbox/etrecord/etrecord.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto record = glassbox::etrecord::ETRecord::load_from_memory(
      std::span<const std::uint8_t>(data, size), "fuzz.etrecord");
  if (record.ok()) {
    // What loads must also save: the reader accepts nothing the writer rejects.
    (void)record->to_bytes();
  }
  return 0;
}

// libFuzzer target: any bytes given to npy::parse must give an array or an
// error, never a crash, hang or unbounded allocation.

#include <cstddef>
#include <cstdint>
#include <span>

#include "glassbox/npy/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto array = glassbox::npy::parse(std::span<const std::uint8_t>(data, size), "fuzz.npy");
  if (array.ok()) {
    // What parses must round-trip through the writer.
    (void)glassbox::npy::serialize(*array);
  }
  return 0;
}

// libFuzzer target: any bytes given to import_onnx_from_memory must give a
// graph or an error, never a crash, hang or unbounded allocation.

#include <cstddef>
#include <cstdint>
#include <span>

#include "frontends/onnx/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)glassbox::frontends::onnx::import_onnx_from_memory(
      std::span<const std::uint8_t>(data, size), {}, "fuzz.onnx");
  return 0;
}

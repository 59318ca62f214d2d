// libFuzzer target for the oneDNN runtime half's blob parser: any bytes
// must give a parsed program or an error, never a crash, leak or huge
// allocation. Parsed programs also go through full init (primitive
// creation) and destroy, since that is where the parsed numbers reach
// oneDNN.

#include <cstddef>
#include <cstdint>

#include "backends/onednn/runtime/onednn_runtime.h"
#include "backends/onednn/runtime/program_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace glassbox;
  const Span<const std::uint8_t> blob(data, size);
  runtime::MemoryAllocator memory;
  if (!backends::onednn::parse_dnn_program(blob, &memory).ok()) return 0;
  runtime::MemoryAllocator init_memory;
  runtime::BackendInitContext context(&init_memory, nullptr, "forward");
  auto& backend = backends::onednn::onednn_backend_runtime();
  Result<runtime::DelegateHandle*> handle = backend.init(context, blob, {});
  if (handle.ok()) backend.destroy(*handle);
  return 0;
}

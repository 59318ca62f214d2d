// libFuzzer target: Program::load and Method::load on arbitrary bytes must
// return an error or succeed, never crash or read out of bounds.

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/demo/runtime/demo_runtime.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace {
// Keep each input's work small: a valid-looking program may plan a big
// arena, which is legal but not worth allocating here.
constexpr std::size_t kMaxFuzzMethodMemory = 64 << 20;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace glassbox::runtime;
  static const bool registered =
      glassbox::backends::demo::register_demo_backend_runtime() == glassbox::Error::kOk;
  (void)registered;
  // FlatBuffers verification assumes an aligned buffer, as a file read into
  // a vector is.
  std::vector<std::uint8_t> bytes(data, data + size);
  Diagnostics diagnostics;
  auto program = Program::load(bytes, &diagnostics);
  if (!program.ok()) return 0;
  // Reused across inputs: fresh 64 MiB per input would be all page faults.
  static std::vector<std::uint8_t> method_buffer(kMaxFuzzMethodMemory);
  static std::vector<std::uint8_t> temp_buffer(1 << 20);
  MemoryAllocator method_memory(method_buffer), temp_memory(temp_buffer);
  auto method = Method::load(*program, program->method_name(0), &method_memory, &temp_memory,
                             nullptr, &diagnostics);
  (void)method;
  return 0;
}

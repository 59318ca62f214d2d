// libFuzzer target: any bytes given as a dump's tag sidecar must give tags
// or an error naming the sidecar, never a crash or hang.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/cli/dump_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)glassbox::cli::parse_sidecar_tags(text, "fuzz.etdp.json");
  return 0;
}

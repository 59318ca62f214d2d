// libFuzzer: arbitrary bytes as an ETDump; whatever the reader accepts goes
// through the Inspector into a whole page, which must not crash or throw.

#include <cstddef>
#include <cstdint>
#include <span>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/inspector.h"
#include "glassbox/report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  using namespace glassbox;
  StatusOr<etdump::ETDumpFile> dump =
      etdump::parse_etdump(std::span<const std::uint8_t>(bytes, size), "fuzz.etdp");
  if (!dump.ok()) return 0;
  StatusOr<inspector::Inspector> insp = inspector::Inspector::create(*dump);
  if (!insp.ok()) return 0;
  report::ReportOptions options;
  options.timeline_event_limit = 64;  // Exercises sampling on small inputs.
  (void)report::render_report({.current = &*insp}, options);
  return 0;
}

// Records one delegate event with ETDumpGen, as a delegate's runtime would,
// (named: a delegate event has a name or an integer identifier, not both)
// and writes the ETDump to the path given: proof that the installed headers
// and libraries are enough.
#include <cstdint>
#include <cstdio>

#include "glassbox/core/span.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runtime/delegate_hooks.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: install_consumer OUT.etdp\n");
    return 2;
  }
  glassbox::etdump::ETDumpGen tracer;
  if (tracer.create_event_block("Execute") != glassbox::Error::kOk) {
    std::fprintf(stderr, "install_consumer: create_event_block failed\n");
    return 1;
  }
  glassbox::runtime::EventTracerEntry entry =
      glassbox::runtime::event_tracer_start_profiling_delegate(&tracer, "consumer_op",
                                                               glassbox::kUnsetDelegateDebugIntId);
  if (glassbox::runtime::event_tracer_end_profiling_delegate(&tracer, entry) !=
      glassbox::Error::kOk) {
    std::fprintf(stderr, "install_consumer: end_profiling_delegate failed\n");
    return 1;
  }
  glassbox::Result<glassbox::Span<const std::uint8_t>> dump = tracer.get_etdump_data();
  if (!dump.ok()) {
    std::fprintf(stderr, "install_consumer: %s\n", dump.message());
    return 1;
  }
  std::FILE* file = std::fopen(argv[1], "wb");
  if (file == nullptr) {
    std::fprintf(stderr, "install_consumer: cannot open %s\n", argv[1]);
    return 1;
  }
  const bool written = std::fwrite(dump->data(), 1, dump->size(), file) == dump->size();
  if (std::fclose(file) != 0 || !written) {
    std::fprintf(stderr, "install_consumer: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("install_consumer: %zu bytes written to %s\n", dump->size(), argv[1]);
  return 0;
}

// Writes a fixed sequence of events with ETDumpGen on a caller buffer, with
// fixed timestamps (no clock is read), to OUT.etdp and the tensors' bytes
// to OUT.etdp.bin:
//
//   etdump_fixed_events OUT.etdp
//
// The same events must give the same bytes on every machine: ctest
// etdump_fixed_events_golden compares both files with the host's, committed
// in testdata/etdump/ (tests/device/CMakeLists.txt); `make test-aarch64`
// runs it under qemu-aarch64, so an ETDump written on aarch64 is checked
// byte for byte against the x86-64 one.

#include <cstdio>
#include <cstring>

#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"

namespace {

using glassbox::DelegateDebugIntId;
using glassbox::Error;
using glassbox::Span;
using glassbox::TickRatio;
namespace runtime = glassbox::runtime;

constexpr std::size_t kETDumpBytes = 64 * 1024;
constexpr std::size_t kDebugDataBytes = 1024;
constexpr std::size_t kDebugDataAlignment = 64;

alignas(64) std::uint8_t g_etdump_memory[kETDumpBytes];
alignas(64) std::uint8_t g_debug_data[kDebugDataBytes];

bool write_file(const char* path, Span<const std::uint8_t> bytes) {
  std::FILE* out = std::fopen(path, "wb");
  if (out == nullptr) return false;
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  return std::fclose(out) == 0 && written;
}

// Every kind of record ETDumpGen writes, except clock-stamped ones.
bool log_events(glassbox::etdump::ETDumpGen& gen) {
  gen.set_program_fingerprint("fixed-events");
  bool ok = gen.set_delegate_time_scale("NpuBackend", TickRatio{4, 1}) == Error::kOk;
  ok = ok && gen.create_event_block("Default") == Error::kOk;
  ok = ok && gen.log_profiling_delegate(nullptr, DelegateDebugIntId(7), 100, 250) == Error::kOk;
  ok = ok && gen.create_event_block("Execute") == Error::kOk;
  static constexpr char kMetadata[] = "conv2d: 3x3";
  ok = ok && gen.log_profiling_delegate("fused_conv_relu", glassbox::kUnsetDelegateDebugIntId, 1000,
                                        1750, kMetadata, sizeof(kMetadata) - 1) == Error::kOk;
  const runtime::DelegateEventDesc batch[] = {
      {nullptr, DelegateDebugIntId(1), kMetadata, sizeof(kMetadata) - 1},
      {nullptr, DelegateDebugIntId(2), nullptr, 0},
  };
  const runtime::DelegateEventTimes times[] = {{2000, 2100}, {2100, 2400}};
  ok = ok &&
       gen.log_profiling_delegates(batch, times, runtime::TimeSource::kDurationOnly) == Error::kOk;
  const glassbox::AllocatorId planned = gen.track_allocator("planned");
  gen.track_allocation(planned, 4096);
  static constexpr std::int64_t kSizes[] = {2, 3};
  static constexpr float kData[] = {-1.5f, 0.0f, 0.25f, 3.0f, 1e-8f, 65504.0f};
  const glassbox::TensorView tensor{glassbox::ScalarType::kFloat, kSizes, {}, kData};
  ok = ok && gen.log_value(runtime::ValueView::of_tensor(tensor),
                           runtime::LoggedValueKind::kIntermediateOutput)
                 .ok();
  ok = ok && gen.log_intermediate_output_delegate(nullptr, DelegateDebugIntId(2),
                                                  runtime::ValueView::of_double(0.125))
                 .ok();
  ok =
      ok &&
      gen.log_value(runtime::ValueView::of_int(-42), runtime::LoggedValueKind::kProgramOutput).ok();
  ok = ok &&
       gen.log_value(runtime::ValueView::of_bool(true), runtime::LoggedValueKind::kProgramOutput)
           .ok();
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.etdp\n", argv[0]);
    return 2;
  }
  glassbox::Result<glassbox::etdump::BufferDataSink> sink =
      glassbox::etdump::BufferDataSink::create(Span<std::uint8_t>(g_debug_data, kDebugDataBytes),
                                               kDebugDataAlignment);
  if (!sink.ok()) return 1;
  glassbox::etdump::ETDumpGen gen(Span<std::uint8_t>(g_etdump_memory, kETDumpBytes));
  gen.set_data_sink(&*sink);
  if (!log_events(gen)) {
    std::fprintf(stderr, "etdump_fixed_events: an event was refused\n");
    return 1;
  }
  glassbox::Result<Span<const std::uint8_t>> dump = gen.get_etdump_data();
  char data_path[4096];
  if (!dump.ok() || std::strlen(argv[1]) + 5 > sizeof(data_path)) {
    std::fprintf(stderr, "etdump_fixed_events: cannot serialize the ETDump\n");
    return 1;
  }
  std::snprintf(data_path, sizeof(data_path), "%s.bin", argv[1]);
  if (!write_file(argv[1], *dump) || !write_file(data_path, sink->data())) {
    std::fprintf(stderr, "etdump_fixed_events: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}

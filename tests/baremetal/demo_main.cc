// The demo on bare metal (`make demo-baremetal`, docs/device.md): the demo
// model (ConvReLUTanModel) as the host's glassbox lowered it to the demo
// delegate, embedded in the image (demo_program.cc, generated at build
// time), runs on qemu-system-arm's mps2-an385 (Cortex-M3) a few times with
// ETDumpGen on a static buffer. The delegate stamps its ops with the board's
// SysTick counter and declares its 25 MHz rate; the ETDump goes back to the
// host through semihosting as build/baremetal/demo.etdp (relative to qemu's
// working directory, the source root). Exit status 0 on success, 1 with one
// line on the console otherwise.
//
// No heap: the program, its planned memory (activations, in the board's
// PSRAM) and the ETDump buffer are all static.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backends/demo/runtime/demo_runtime.h"
#include "board_clock.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runtime/kernel_registry.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "semihost.h"

// demo_program.cc (tests/baremetal/embed.cmake): the .gbx bytes.
extern "C" const std::uint8_t glassbox_demo_program[];
extern "C" const std::size_t glassbox_demo_program_size;

namespace glassbox::runtime {

// This image's kernel table: the demo delegate takes all five operators of
// the model, so none. Defining it here keeps the portable registry (every
// kernel, kernel_registry.cc) out of the link, as tests/size does.
const Kernel* find_kernel(const char* /*op*/) { return nullptr; }

}  // namespace glassbox::runtime

namespace {

using glassbox::Error;
using glassbox::Span;
namespace runtime = glassbox::runtime;

constexpr int kExecutions = 3;
constexpr char kETDumpPath[] = "build/baremetal/demo.etdp";
// The model's planned activations (4x3x64x64 in, 4x32x64x64 out) and the
// delegate's intermediates (4x16x64x64 and 4x32x64x64 floats, conv
// scratch): megabytes, so in the 16 MiB PSRAM (mps2_an385.ld).
constexpr std::size_t kMethodBytes = 4 * 1024 * 1024;
constexpr std::size_t kTempBytes = 10 * 1024 * 1024;
constexpr std::size_t kInputFloats = 4 * 3 * 64 * 64;
// About 30 events an execution.
constexpr std::size_t kETDumpBytes = 64 * 1024;

[[gnu::section(".psram")]] alignas(64) std::uint8_t g_method_memory[kMethodBytes];
[[gnu::section(".psram")]] alignas(64) std::uint8_t g_temp_memory[kTempBytes];
[[gnu::section(".psram")]] alignas(64) float g_input[kInputFloats];
alignas(64) std::uint8_t g_etdump_memory[kETDumpBytes];

glassbox::Ticks read_systick() { return board_clock_ticks(); }

int fail(const char* what, const char* detail = "") {
  semihost_write_error("glassbox: bare-metal demo: ");
  semihost_write_error(what);
  if (detail[0] != '\0') {
    semihost_write_error(": ");
    semihost_write_error(detail);
  }
  semihost_write_error("\n");
  return 1;
}

}  // namespace

int main() {
  board_clock_start();
  namespace demo = glassbox::backends::demo;
  // SysTick at the board's 25 MHz: 40 ns a tick.
  const demo::DemoCycleCounter systick{read_systick,
                                       glassbox::TickRatio{1000000000u / BOARD_CLOCK_HZ, 1}};
  demo::demo_backend_runtime().set_cycle_counter(&systick);
  if (demo::register_demo_backend_runtime() != Error::kOk) {
    return fail("cannot register the demo backend");
  }

  runtime::Diagnostics diagnostics;
  glassbox::Result<runtime::Program> program = runtime::Program::load(
      Span<const std::uint8_t>(glassbox_demo_program, glassbox_demo_program_size), &diagnostics);
  if (!program.ok()) return fail("cannot load the program", diagnostics.message);

  glassbox::etdump::ETDumpGen etdump(Span<std::uint8_t>(g_etdump_memory, kETDumpBytes));
  etdump.set_program_fingerprint(program->fingerprint());
  runtime::MemoryAllocator method_memory(Span<std::uint8_t>(g_method_memory, kMethodBytes));
  runtime::MemoryAllocator temp_memory(Span<std::uint8_t>(g_temp_memory, kTempBytes));
  glassbox::Result<runtime::Method> method = runtime::Method::load(
      *program, "forward", &method_memory, &temp_memory, &etdump, &diagnostics);
  if (!method.ok()) return fail("cannot load method forward", diagnostics.message);

  // A ramp in [-1, 1): numbers that exercise every op, the same every run.
  for (std::size_t i = 0; i < kInputFloats; ++i) {
    g_input[i] = static_cast<float>(i % 256) / 128.0f - 1.0f;
  }
  if (method->set_input(0, g_input, sizeof(g_input)) != Error::kOk) {
    return fail("cannot set the input");
  }
  for (int run = 0; run < kExecutions; ++run) {
    if (method->execute(&diagnostics) != Error::kOk) {
      return fail("execution failed", diagnostics.message);
    }
  }

  glassbox::Result<Span<const std::uint8_t>> dump = etdump.get_etdump_data();
  if (!dump.ok()) return fail("cannot serialize the ETDump");
  const int file = semihost_open_write(kETDumpPath);
  if (file < 0) return fail("cannot create", kETDumpPath);
  const bool written = semihost_write(file, dump->data(), dump->size()) == 0;
  if (semihost_close(file) != 0 || !written) return fail("cannot write", kETDumpPath);
  return 0;
}

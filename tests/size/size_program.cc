// The size test program (`make size`, docs/benchmarks.md "Size"): the
// smallest useful device program. It loads a program (.gbx), runs its
// method "forward" once with ETDumpGen on a caller buffer, and writes the
// ETDump:
//
//   size_core_etdump PROGRAM.gbx OUT.etdp
//
// All memory is static (the planned memory a device gives the runtime);
// stdio only reads and writes the two files. Built with -Os, without
// exceptions or RTTI, unused sections dropped and stripped (tests/size/
// CMakeLists.txt), once per variant:
//   - size_core_etdump: core, Program, Method and ETDumpGen; no kernels and
//     no backends (a program of no instructions loads and runs);
//   - size_demo_backend: the same plus the demo delegate's runtime half;
//   - size_demo_model: the same plus the one portable kernel the demo model
//     leaves outside its delegate (tan).
// The differences between variants are what each part costs.

#include <cstdio>
#include <cstring>

#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/runtime/kernel_registry.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#if GLASSBOX_SIZE_DEMO_BACKEND
#include "backends/demo/runtime/demo_runtime.h"
#endif
#if GLASSBOX_SIZE_TAN_KERNEL
#include "src/runtime/portable_ops.h"
#endif

namespace glassbox::runtime {

#if GLASSBOX_SIZE_TAN_KERNEL
constexpr char kTan[] = "tan";
#endif

// This program's kernel table. The portable registry's find_kernel
// (kernel_registry.cc, the table of every portable kernel) is one object
// file of the runtime's static library, so defining the function here keeps
// that object and every kernel it names out of the link: a device build
// picks its kernels this way. Linking both would fail (a duplicate symbol),
// never silently use the big table.
const Kernel* find_kernel(const char* op) {
#if GLASSBOX_SIZE_TAN_KERNEL
  static constexpr Kernel kTanKernel{kTan, portable::prepare_unary_op<kTan>,
                                     portable::run_unary_op<kernels::tan>};
  if (std::strcmp(op, kTan) == 0) return &kTanKernel;
#endif
  (void)op;
  return nullptr;
}

}  // namespace glassbox::runtime

namespace {

using glassbox::Error;
using glassbox::Span;
namespace runtime = glassbox::runtime;

// The demo program (about 22 KB) fits; tests/size/identity.json is tiny.
constexpr std::size_t kProgramBytes = 64 * 1024;
// The demo model's planned activations (4x3x64x64 in, 4x16x64x64 between
// the delegate and tan, 4x32x64x64 out) with room to spare.
constexpr std::size_t kMethodBytes = 8 * 1024 * 1024;
constexpr std::size_t kTempBytes = 64 * 1024;
constexpr std::size_t kETDumpBytes = 64 * 1024;

alignas(64) std::uint8_t g_program[kProgramBytes];
alignas(64) std::uint8_t g_method_memory[kMethodBytes];
alignas(64) std::uint8_t g_temp_memory[kTempBytes];
alignas(64) std::uint8_t g_etdump_memory[kETDumpBytes];

int fail(const char* what) {
  std::fprintf(stderr, "size_program: %s\n", what);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PROGRAM.gbx OUT.etdp\n", argv[0]);
    return 2;
  }
#if GLASSBOX_SIZE_DEMO_BACKEND
  if (glassbox::backends::demo::register_demo_backend_runtime() != Error::kOk) {
    return fail("cannot register the demo backend");
  }
#endif
  std::FILE* in = std::fopen(argv[1], "rb");
  if (in == nullptr) return fail("cannot open the program");
  const std::size_t program_bytes = std::fread(g_program, 1, kProgramBytes, in);
  const bool whole = std::feof(in) != 0;
  std::fclose(in);
  if (!whole) return fail("the program is larger than the program buffer");

  runtime::Diagnostics diagnostics;
  glassbox::Result<runtime::Program> program =
      runtime::Program::load(Span<const std::uint8_t>(g_program, program_bytes), &diagnostics);
  if (!program.ok()) return fail(diagnostics.message);

  glassbox::etdump::ETDumpGen etdump(Span<std::uint8_t>(g_etdump_memory, kETDumpBytes));
  runtime::MemoryAllocator method_memory(Span<std::uint8_t>(g_method_memory, kMethodBytes));
  runtime::MemoryAllocator temp_memory(Span<std::uint8_t>(g_temp_memory, kTempBytes));
  glassbox::Result<runtime::Method> method = runtime::Method::load(
      *program, "forward", &method_memory, &temp_memory, &etdump, &diagnostics);
  if (!method.ok()) return fail(diagnostics.message);
  // Inputs stay as the static buffer left them (zeros): size, not numbers.
  if (method->execute(&diagnostics) != Error::kOk) return fail(diagnostics.message);

  glassbox::Result<Span<const std::uint8_t>> dump = etdump.get_etdump_data();
  if (!dump.ok()) return fail("cannot serialize the ETDump");
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr) return fail("cannot create the ETDump file");
  const bool written = std::fwrite(dump->data(), 1, dump->size(), out) == dump->size();
  if (std::fclose(out) != 0 || !written) return fail("cannot write the ETDump file");
  return 0;
}

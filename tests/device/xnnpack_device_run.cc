// The XNNPACK delegate's runtime half on the device (issue 34): runs one
// model lowered twice on the host, to portable kernels and to XNNPACK, with
// ETDumpGen on a caller buffer, and checks that the delegated run (a) went
// through the delegate (its ETDump has delegate events) and (b) computes
// what the portable kernels compute. Built by the host build and by the
// aarch64 cross build, where it runs under qemu-aarch64 with Debian's arm64
// XNNPACK (scripts/setup_cross_xnnpack.sh); tests/device/CMakeLists.txt
// lowers the model with the host's glassbox.
//
//   xnnpack_device_run PORTABLE.gbx XNNPACK.gbx
//
// Exit 0 when both hold, 1 (with one line) otherwise.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/xnnpack/runtime/xnnpack_runtime.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"

namespace {

using namespace glassbox;

// Planned memory for a small test model and the ETDump's records; a device
// would size them from the program, the test gives plenty.
constexpr std::size_t kMethodBytes = 16 << 20;
constexpr std::size_t kTempBytes = 16 << 20;
constexpr std::size_t kETDumpBytes = 1 << 20;
// Relative to the output's largest magnitude: XNNPACK's kernels sum in
// another order (and fuse multiply-adds) than the portable ones.
constexpr float kTolerance = 1e-4f;

int fail(const std::string& message) {
  std::fprintf(stderr, "xnnpack_device_run: %s\n", message.c_str());
  return 1;
}

bool read_file(const char* path, std::vector<std::uint8_t>* bytes) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path, "rb"), &std::fclose);
  if (!file) return false;
  std::uint8_t chunk[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) {
    bytes->insert(bytes->end(), chunk, chunk + n);
  }
  return std::ferror(file.get()) == 0;
}

// One execution of `path`'s forward method on a fixed ramp input; the
// first output's values, and the ETDump it recorded.
struct Run {
  std::vector<float> output;
  std::vector<std::uint8_t> etdump;
};

bool run_program(const char* path, Run* run, std::string* error) {
  std::vector<std::uint8_t> bytes;
  if (!read_file(path, &bytes)) {
    *error = std::string("cannot read ") + path;
    return false;
  }
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  if (!program.ok()) {
    *error = std::string(path) + ": " + diag.message;
    return false;
  }
  std::vector<std::uint8_t> method_bytes(kMethodBytes);
  std::vector<std::uint8_t> temp_bytes(kTempBytes);
  std::vector<std::uint8_t> etdump_bytes(kETDumpBytes);
  runtime::MemoryAllocator method_memory(method_bytes);
  runtime::MemoryAllocator temp_memory(temp_bytes);
  etdump::ETDumpGen gen(etdump_bytes);
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &method_memory, &temp_memory, &gen, &diag);
  if (!method.ok() || method->num_inputs() != 1 || method->num_outputs() < 1) {
    *error = std::string(path) + ": " +
             (method.ok() ? "expected one input and an output" : diag.message);
    return false;
  }
  const runtime::Tensor& input = method->input(0);
  std::vector<float> values(static_cast<std::size_t>(input.numel()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<float>(static_cast<int>(i % 17) - 8) / 8.0f;
  }
  if (method->set_input(0, values.data(), values.size() * sizeof(float)) != Error::kOk ||
      method->execute(&diag) != Error::kOk) {
    *error = std::string(path) + ": " + diag.message;
    return false;
  }
  const runtime::Tensor& output = method->output(0);
  run->output.assign(output.float_data(), output.float_data() + output.numel());
  Result<Span<const std::uint8_t>> dump = gen.get_etdump_data();
  if (!dump.ok()) {
    *error = std::string(path) + ": no ETDump";
    return false;
  }
  run->etdump.assign(dump->begin(), dump->end());
  return true;
}

std::size_t delegate_events(const std::vector<std::uint8_t>& etdump) {
  StatusOr<etdump::ETDumpFile> file = etdump::parse_etdump(etdump, "<memory>");
  if (!file.ok()) return 0;
  std::size_t n = 0;
  for (const etdump::RunData& run : file->runs) {
    for (const etdump::Event& event : run.events) {
      const etdump::ProfileEvent* p = event.profile();
      if (p != nullptr && (p->delegate_debug_id_int.is_set() || p->delegate_debug_id_str)) ++n;
    }
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: xnnpack_device_run PORTABLE.gbx XNNPACK.gbx");
  if (backends::xnnpack::register_xnnpack_backend_runtime() != Error::kOk) {
    return fail("cannot register the XNNPACK runtime");
  }
  Run portable;
  Run delegated;
  std::string error;
  if (!run_program(argv[1], &portable, &error) || !run_program(argv[2], &delegated, &error)) {
    return fail(error);
  }
  if (delegate_events(portable.etdump) != 0)
    return fail("the portable program logged delegate events");
  const std::size_t events = delegate_events(delegated.etdump);
  if (events == 0) return fail("the XNNPACK program logged no delegate events");
  if (portable.output.size() != delegated.output.size()) return fail("the outputs differ in size");
  float scale = 0.0f;
  for (float v : portable.output) scale = std::fmax(scale, std::fabs(v));
  float worst = 0.0f;
  for (std::size_t i = 0; i < portable.output.size(); ++i) {
    worst = std::fmax(worst, std::fabs(portable.output[i] - delegated.output[i]));
  }
  if (!(worst <= kTolerance * std::fmax(scale, 1.0f))) {
    return fail("XNNPACK's output differs from the portable kernels' by " + std::to_string(worst));
  }
  std::printf("xnnpack_device_run: %zu outputs match (max difference %g), %zu delegate events\n",
              portable.output.size(), static_cast<double>(worst), events);
  return 0;
}

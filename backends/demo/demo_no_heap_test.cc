// No heap on the device path: once a program is loaded, executing it with
// ETDumpGen on a caller buffer (and a buffer data sink for logged values)
// allocates nothing; the executor, the kernels and the demo delegate run
// from the planned memory the caller gave the method's allocators. Every
// allocation of the process goes through the malloc family
// src/testing/count_allocations.h replaces, counted while a run is watched.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "backends/demo/runtime/demo_runtime.h"
#include "glassbox/etdump/data_sink.h"
#include "glassbox/etdump/etdump_gen.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/runtime/method.h"
#include "glassbox/runtime/program.h"
#include "src/testing/count_allocations.h"
#include "src/testing/status_matchers.h"

namespace glassbox::backends::demo {
namespace {

using ::glassbox::testing::allocations_during;
using ::glassbox::testing::IsOk;

// Planned memory for the demo model (4x3x64x64 in, 4x32x64x64 out, the
// activations between, the delegate's copied weights and tables), the
// delegate's per-execution temporaries (its activations and the im2col
// scratch of its second convolution, about 9 MB), the
// ETDump's records and dump, and every logged tensor's bytes of two
// executions (about 11 MB each).
constexpr std::size_t kMethodBytes = 16 << 20;
constexpr std::size_t kTempBytes = 32 << 20;
constexpr std::size_t kETDumpBytes = 1 << 20;
constexpr std::size_t kDebugDataBytes = 32 << 20;

std::vector<std::uint8_t> demo_program(bool delegated, const char* profiling) {
  StatusOr<aot::Graph> graph = build_conv_relu_tan_model();
  EXPECT_THAT(graph, IsOk());
  static DemoBackend backend;
  exporter::Recipe recipe;
  if (delegated) {
    recipe.partitioners.push_back(make_demo_partitioner(backend));
    recipe.compile_specs.push_back(aot::CompileSpec::from_string("profiling", profiling));
  }
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(std::move(*graph), recipe);
  EXPECT_THAT(program, IsOk());
  return program->buffer();
}

// Everything a device gives the runtime, allocated before anything is
// watched.
struct DeviceMemory {
  std::vector<std::uint8_t> method = std::vector<std::uint8_t>(kMethodBytes);
  std::vector<std::uint8_t> temp = std::vector<std::uint8_t>(kTempBytes);
  std::vector<std::uint8_t> etdump = std::vector<std::uint8_t>(kETDumpBytes);
  std::vector<std::uint8_t> debug_data = std::vector<std::uint8_t>(kDebugDataBytes);
  std::vector<float> input = std::vector<float>(4 * 3 * 64 * 64, 0.5f);
};

class NoHeapTest : public ::testing::TestWithParam<std::tuple<bool, const char*>> {
 protected:
  void SetUp() override {
    if (!::glassbox::testing::kCountsAllocations) {
      GTEST_SKIP() << "allocations are counted only without sanitizers, on glibc";
    }
    ASSERT_EQ(register_demo_backend_runtime(), Error::kOk);
  }
};

INSTANTIATE_TEST_SUITE_P(DelegatedOrPortable, NoHeapTest,
                         ::testing::Values(std::make_tuple(true, "posttime"),
                                           std::make_tuple(true, "realtime"),
                                           std::make_tuple(false, "")),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) ? std::string("demo_delegate_") +
                                                                      std::get<1>(param_info.param)
                                                                : std::string("portable_kernels");
                         });

TEST_P(NoHeapTest, ExecuteAndSerializeAllocateNothingAfterLoad) {
  const auto [delegated, profiling] = GetParam();
  const std::vector<std::uint8_t> bytes = demo_program(delegated, profiling);
  DeviceMemory memory;
  runtime::Diagnostics diag;
  Result<runtime::Program> program = runtime::Program::load(bytes, &diag);
  ASSERT_THAT(program, IsOk()) << diag.message;
  Result<etdump::BufferDataSink> sink = etdump::BufferDataSink::create(memory.debug_data);
  ASSERT_THAT(sink, IsOk());
  etdump::ETDumpGen gen(memory.etdump);
  ASSERT_EQ(gen.status(), Error::kOk);
  gen.set_data_sink(&*sink);
  // Every event and every instruction's outputs: the most a run logs.
  gen.set_debug_level(runtime::DebugLevel::kIntermediateOutputs);
  runtime::MemoryAllocator method_memory(memory.method);
  runtime::MemoryAllocator temp_memory(memory.temp);
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &method_memory, &temp_memory, &gen, &diag);
  ASSERT_THAT(method, IsOk()) << diag.message;
  ASSERT_EQ(method->set_input(0, memory.input.data(), memory.input.size() * sizeof(float)),
            Error::kOk);

  Error first = Error::kInternal;
  Error second = Error::kInternal;
  Result<Span<const std::uint8_t>> dump = make_error(Error::kInternal, "not run");
  EXPECT_EQ(allocations_during([&] {
              first = method->execute(&diag);
              second = method->execute(&diag);
              dump = gen.get_etdump_data();
            }),
            0u);
  EXPECT_EQ(first, Error::kOk) << diag.message;
  EXPECT_EQ(second, Error::kOk) << diag.message;
  ASSERT_THAT(dump, IsOk());
  EXPECT_EQ(gen.dropped_events(), 0u);
  EXPECT_EQ(gen.tensor_data_dropped(), 0u);
  EXPECT_GT(dump->size(), 0u);
}

// The count sees the runtime's allocations: the same run with a tracer in
// heap mode allocates its record storage.
TEST_P(NoHeapTest, CountsTheHeapModeTracersAllocations) {
  const auto [delegated, profiling] = GetParam();
  const std::vector<std::uint8_t> bytes = demo_program(delegated, profiling);
  DeviceMemory memory;
  Result<runtime::Program> program = runtime::Program::load(bytes);
  ASSERT_THAT(program, IsOk());
  etdump::ETDumpGen gen;
  runtime::MemoryAllocator method_memory(memory.method);
  runtime::MemoryAllocator temp_memory(memory.temp);
  Result<runtime::Method> method =
      runtime::Method::load(*program, "forward", &method_memory, &temp_memory, &gen);
  ASSERT_THAT(method, IsOk());
  EXPECT_GT(allocations_during([&] {
              (void)method->execute();
              (void)gen.get_etdump_data();
            }),
            0u);
}

}  // namespace
}  // namespace glassbox::backends::demo

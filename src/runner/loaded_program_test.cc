// LoadedProgram / LoadedMethod on the demo model lowered to the demo
// backend: in-memory inputs give the outputs run_program would, bad inputs
// and bad bytes fail with messages naming the program or the input.

#include "glassbox/runner/loaded_program.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "backends/common/backend_plugin.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "src/testing/status_matchers.h"

namespace glassbox::runner {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

std::vector<std::uint8_t> demo_program_bytes() {
  exporter::Recipe recipe;
  EXPECT_THAT(add_to_recipe(*backends::find_backend_plugin("demo"), {}, &recipe), IsOk());
  StatusOr<exporter::ExecutorchProgramManager> program =
      exporter::export_model(backends::demo::build_conv_relu_tan_model().value(), recipe);
  EXPECT_THAT(program, IsOk());
  return program->buffer();
}

HostTensor random_input(const TensorSpec& spec, std::uint32_t seed) {
  std::int64_t n = 1;
  for (std::int64_t d : spec.shape) n *= d;
  std::vector<float> values(static_cast<std::size_t>(n));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (float& v : values) v = uniform(rng);
  HostTensor t{spec.dtype, spec.shape, std::vector<std::uint8_t>(values.size() * 4)};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

TEST(LoadedProgramTest, RunsInMemoryAndRecordsIntoTheTracer) {
  StatusOr<LoadedProgram> program = LoadedProgram::load(demo_program_bytes(), "demo.gbx");
  ASSERT_THAT(program, IsOk());
  etdump::ETDumpGen gen;
  StatusOr<LoadedMethod> method = program->load_method(&gen, {});
  ASSERT_THAT(method, IsOk());
  const std::vector<TensorSpec> specs = method->input_specs();
  ASSERT_EQ(specs.size(), 1u);
  const std::vector<HostTensor> inputs = {random_input(specs[0], 1)};
  ASSERT_THAT(method->set_inputs(inputs), IsOk());
  ASSERT_THAT(method->execute(), IsOk());
  const std::vector<HostTensor> first = method->outputs();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].dtype, ScalarType::kFloat);
  std::int64_t n = 1;
  for (std::int64_t d : first[0].shape) n *= d;
  EXPECT_EQ(first[0].bytes.size(), static_cast<std::size_t>(n) * 4);

  // Same inputs, same outputs; other inputs, other outputs.
  ASSERT_THAT(method->execute(), IsOk());
  EXPECT_EQ(method->outputs()[0].bytes, first[0].bytes);
  const std::vector<HostTensor> other = {random_input(specs[0], 2)};
  ASSERT_THAT(method->set_inputs(other), IsOk());
  ASSERT_THAT(method->execute(), IsOk());
  EXPECT_NE(method->outputs()[0].bytes, first[0].bytes);

  Result<Span<const std::uint8_t>> dump = gen.get_etdump_data();
  ASSERT_TRUE(dump.ok());
  StatusOr<etdump::ETDumpFile> parsed =
      etdump::parse_etdump({dump->data(), dump->size()}, "run.etdp");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->program_fingerprint, std::string(program->fingerprint()));
}

TEST(LoadedProgramTest, RefusesInputsOfAnotherShapeDtypeOrCount) {
  StatusOr<LoadedProgram> program = LoadedProgram::load(demo_program_bytes(), "demo.gbx");
  ASSERT_THAT(program, IsOk());
  StatusOr<LoadedMethod> method = program->load_method(nullptr, {});
  ASSERT_THAT(method, IsOk());
  TensorSpec spec = method->input_specs()[0];
  spec.shape.back() += 1;
  const std::vector<HostTensor> wrong_shape = {random_input(spec, 1)};
  EXPECT_THAT(method->set_inputs(wrong_shape),
              ErrorIs(Error::kInvalidArgument, {"input 0", "the program takes FLOAT"}));
  HostTensor wrong_dtype = random_input(method->input_specs()[0], 1);
  wrong_dtype.dtype = ScalarType::kInt;
  EXPECT_THAT(method->set_inputs({&wrong_dtype, 1}), ErrorIs(Error::kInvalidArgument, {"INT"}));
  EXPECT_THAT(method->set_inputs({}), ErrorIs(Error::kInvalidArgument, {"demo.gbx", "1 input"}));
}

TEST(LoadedProgramTest, BadBytesNameTheSource) {
  std::vector<std::uint8_t> bytes = demo_program_bytes();
  bytes.resize(bytes.size() / 2);
  EXPECT_FALSE(LoadedProgram::load(bytes, "half.gbx").ok());
  EXPECT_THAT(LoadedProgram::load(std::move(bytes), "half.gbx").status().message(),
              ::testing::HasSubstr("half.gbx"));
  EXPECT_THAT(LoadedProgram::load_file("/nonexistent/m.gbx"),
              ErrorIs(Error::kAccessFailed, {"/nonexistent/m.gbx"}));
}

}  // namespace
}  // namespace glassbox::runner

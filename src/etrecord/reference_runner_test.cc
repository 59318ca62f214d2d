#include "glassbox/etrecord/reference_runner.h"

#include <gtest/gtest.h>

#include <cmath>

#include "glassbox/aot/graph_builder.h"
#include "src/etrecord/test_records.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

using testing::ErrorIs;
using testing::IsOk;
using testing::value_of;

constexpr std::uint32_t kSeed = 7;

aot::Graph demo_graph() { return value_of(backends::demo::build_conv_relu_tan_model()); }

TEST(ReferenceRunnerTest, EverySourceOpGetsItsOutput) {
  const aot::Graph graph = demo_graph();
  const std::vector<ReferenceTensor> inputs = value_of(seeded_reference_inputs(graph, kSeed));
  ASSERT_EQ(inputs.size(), 1u);
  const ReferenceRun run = value_of(run_reference(graph, inputs));
  ASSERT_EQ(run.op_outputs.size(), graph.nodes.size());
  for (const aot::Node& node : graph.nodes) {
    const std::vector<ReferenceTensor>& outs = run.op_outputs.at(node.debug_handle);
    ASSERT_EQ(outs.size(), 1u) << node.name;
    EXPECT_EQ(outs[0].sizes, graph.find_value(node.outputs[0])->shape) << node.name;
  }
  // relu (handle 2) is non-negative; tan (the last op) is the model output.
  for (float v : run.op_outputs.at(DebugHandle(2))[0].data) ASSERT_GE(v, 0.f);
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(run.outputs[0], run.op_outputs.at(graph.nodes.back().debug_handle)[0]);
  // relu really is relu of the conv before it.
  const std::vector<float>& conv = run.op_outputs.at(DebugHandle(1))[0].data;
  const std::vector<float>& relu = run.op_outputs.at(DebugHandle(2))[0].data;
  for (std::size_t i = 0; i < conv.size(); i += 997) ASSERT_EQ(relu[i], std::max(conv[i], 0.f));
}

TEST(ReferenceRunnerTest, SeededInputsAreReproducible) {
  const aot::Graph graph = demo_graph();
  EXPECT_EQ(value_of(seeded_reference_inputs(graph, kSeed)),
            value_of(seeded_reference_inputs(graph, kSeed)));
  EXPECT_NE(value_of(seeded_reference_inputs(graph, kSeed)),
            value_of(seeded_reference_inputs(graph, kSeed + 1)));
}

TEST(ReferenceRunnerTest, AttachedReferenceSurvivesTheArchive) {
  const aot::Graph graph = demo_graph();
  ETRecord record = testing::demo_record();
  ASSERT_THAT(attach_reference(graph, value_of(seeded_reference_inputs(graph, kSeed)), &record),
              IsOk());
  EXPECT_EQ(record.reference_op_outputs.size(), 5u);
  EXPECT_EQ(record.reference_outputs.size(), 1u);
  const std::vector<std::uint8_t> bytes = value_of(record.to_bytes());
  const ETRecord loaded = value_of(ETRecord::load_from_memory(bytes, "mem"));
  EXPECT_EQ(loaded, record);
}

TEST(ReferenceRunnerTest, BadInputsAreClearErrors) {
  const aot::Graph graph = demo_graph();
  std::vector<ReferenceTensor> inputs = value_of(seeded_reference_inputs(graph, kSeed));
  EXPECT_THAT(run_reference(graph, {}),
              ErrorIs(Error::kInvalidArgument, {"takes 1 inputs, 0 were given"}));
  inputs[0].sizes[0] = 2;
  EXPECT_THAT(run_reference(graph, inputs),
              ErrorIs(Error::kInvalidArgument,
                      {"shape [2, 3, 64, 64] does not match the model's [4, 3, 64, 64]"}));
  // The ETRecord's stored graph has no weights: refused, not run with zeros.
  const aot::Graph stored = testing::demo_record().edge_graphs.at(std::string(aot::kForwardMethod));
  EXPECT_THAT(run_reference(stored, value_of(seeded_reference_inputs(graph, kSeed))),
              ErrorIs(Error::kInvalidArgument, {"has no data"}));
}

// A model the reference run cannot feed says why, not "cannot set input 0".
TEST(ReferenceRunnerTest, ModelsWithoutInputValuesAreNamedAsSuch) {
  aot::GraphBuilder empty_input;
  empty_input.output(empty_input.relu(empty_input.input("x", ScalarType::kFloat, {2, 0, 3})));
  const aot::Graph zero_dim = value_of(empty_input.build());
  EXPECT_THAT(run_reference(zero_dim, value_of(seeded_reference_inputs(zero_dim, kSeed))),
              ErrorIs(Error::kInvalidArgument,
                      {"reference input 0 ('x'): shape [2, 0, 3] has a zero-size dim"}));
  aot::GraphBuilder constant;
  constant.output(constant.relu(constant.constant("c", {2}, {1.f, -1.f})));
  const aot::Graph no_inputs = value_of(constant.build());
  EXPECT_THAT(run_reference(no_inputs, {}),
              ErrorIs(Error::kInvalidArgument, {"the model has no inputs"}));
}

TEST(ReferenceRunnerTest, ValidateRefusesInconsistentOpOutputs) {
  ETRecord record = testing::demo_record();
  record.reference_op_outputs[DebugHandle(1)] = {ReferenceTensor{{1}, {0.f}}};
  EXPECT_THAT(record.validate(),
              ErrorIs(Error::kInvalidArgument, {"without the reference inputs"}));
  record.reference_inputs = {ReferenceTensor{{1}, {0.f}}};
  EXPECT_THAT(record.validate(), IsOk());
  record.reference_op_outputs[DebugHandle(99)] = {ReferenceTensor{{1}, {0.f}}};
  EXPECT_THAT(record.validate(),
              ErrorIs(Error::kInvalidArgument, {"debug handle 99", "not a node"}));
  record.reference_op_outputs.erase(DebugHandle(99));
  record.reference_op_outputs[DebugHandle(2)] = {};
  EXPECT_THAT(record.validate(), ErrorIs(Error::kInvalidArgument, {"no tensor"}));
  record.reference_op_outputs[DebugHandle(2)] = {ReferenceTensor{{2}, {0.f}}};
  EXPECT_THAT(record.validate(), ErrorIs(Error::kInvalidArgument, {"does not match its sizes"}));
}

// The int8 references (float and isolated op outputs) round-trip through the
// archive and are checked like the simulated ones.
TEST(ReferenceRunnerTest, FloatAndIsolatedOpOutputsRoundTripAndAreChecked) {
  ETRecord record = testing::demo_record();
  record.reference_inputs = {ReferenceTensor{{1}, {0.f}}};
  record.float_op_outputs[DebugHandle(2)] = {ReferenceTensor{{2}, {1.f, 2.f}}};
  record.isolated_op_outputs[DebugHandle(2)] = {ReferenceTensor{{2}, {1.f, 2.5f}}};
  const std::vector<std::uint8_t> bytes = value_of(record.to_bytes());
  const internal::ZipEntries entries = value_of(internal::read_zip(bytes, "mem"));
  EXPECT_TRUE(entries.contains("reference/float_ops/2/0.bin"));
  EXPECT_TRUE(entries.contains("reference/isolated_ops/2/0.json"));
  const ETRecord loaded = value_of(ETRecord::load_from_memory(bytes, "mem"));
  EXPECT_EQ(loaded.float_op_outputs, record.float_op_outputs);
  EXPECT_EQ(loaded.isolated_op_outputs, record.isolated_op_outputs);
  record.isolated_op_outputs[DebugHandle(99)] = {ReferenceTensor{{1}, {0.f}}};
  EXPECT_THAT(record.validate(),
              ErrorIs(Error::kInvalidArgument, {"isolated reference op outputs", "not a node"}));
  record.isolated_op_outputs.erase(DebugHandle(99));
  record.reference_inputs.clear();
  EXPECT_THAT(record.validate(),
              ErrorIs(Error::kInvalidArgument, {"float reference op outputs", "reference inputs"}));
}

// Op-output entries the reader cannot place are refused, never dropped.
TEST(ReferenceRunnerTest, MalformedOpOutputEntriesAreCorruptData) {
  ETRecord record = testing::demo_record();
  record.reference_inputs = {ReferenceTensor{{1}, {0.f}}};
  record.reference_op_outputs[DebugHandle(5)] = {ReferenceTensor{{1}, {1.f}}};
  const internal::ZipEntries good =
      value_of(internal::read_zip(value_of(record.to_bytes()), "mem"));
  ASSERT_TRUE(good.contains("reference/ops/5/0.bin"));
  auto with = [&](const std::string& from, const std::string& to) {
    internal::ZipEntries entries = good;
    auto node = entries.extract(from);
    node.key() = to;
    entries.insert(std::move(node));
    return ETRecord::load_from_memory(value_of(internal::write_zip(entries)), "mem");
  };
  EXPECT_THAT(with("reference/ops/5/0.bin", "reference/ops/x/0.bin"),
              ErrorIs(Error::kCorruptData, {"unexpected entry 'reference/ops/x/0.bin'"}));
  EXPECT_THAT(with("reference/ops/5/0.bin", "reference/ops/05/0.bin"),
              ErrorIs(Error::kCorruptData));
  EXPECT_THAT(with("reference/ops/5/0.json", "reference/ops/5/1.json"),
              ErrorIs(Error::kCorruptData));
  EXPECT_THAT(with("reference/ops/5/0.bin", "reference/ops/9/0.bin"), ErrorIs(Error::kCorruptData));
}

}  // namespace
}  // namespace glassbox::etrecord

#include "glassbox/export/program_manager.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "glassbox/aot/debug_handle_map.h"
#include "glassbox/aot/graph_builder.h"
#include "glassbox/aot/to_backend.h"
#include "src/etrecord/test_records.h"
#include "src/testing/status_matchers.h"

namespace glassbox::exporter {
namespace {

using etrecord::testing::ErrorIs;
using etrecord::testing::export_demo;
using etrecord::testing::IsOk;
using etrecord::testing::value_of;
using ::glassbox::testing::IsOkAndHolds;

const std::string kForward(aot::kForwardMethod);

aot::Graph demo_model() { return value_of(backends::demo::build_conv_relu_tan_model()); }

TEST(ProgramManagerTest, ToEdgeToBackendToExecutorch) {
  backends::demo::DemoBackend backend;
  const aot::Partitioner partitioner = backends::demo::make_demo_partitioner(backend);
  const aot::Graph model = demo_model();
  const EdgeProgramManager edge = value_of(to_edge(model, {.generate_etrecord = true}));
  const EdgeProgramManager lowered = value_of(edge.to_backend(partitioner));
  // The snapshot is a value: lowering changed the graph, not the snapshot.
  EXPECT_EQ(lowered.edge_graph(), model);
  EXPECT_EQ(lowered.graph().nodes.size(), 1u);
  EXPECT_EQ(edge.graph(), model);

  const ExecutorchProgramManager program = value_of(lowered.to_executorch());
  EXPECT_EQ(value_of(aot::fingerprint_of(program.buffer())), program.fingerprint());
  const etrecord::ETRecord record = value_of(program.get_etrecord());
  EXPECT_EQ(record.fingerprint, program.fingerprint());
  EXPECT_EQ(record.debug_handle_map, program.debug_handle_map());
  EXPECT_EQ(record.delegate_map, program.delegate_map());
  EXPECT_EQ(record.instruction_id_to_num_outs_map, program.instruction_id_to_num_outs_map());
  EXPECT_EQ(record.edge_graphs.at(kForward).nodes, model.nodes);
}

TEST(ProgramManagerTest, AllEntryPointsAgree) {
  backends::demo::DemoBackend backend;
  const std::vector<aot::Partitioner> partitioners{backends::demo::make_demo_partitioner(backend)};
  const EdgeProgramManager edge = value_of(to_edge_transform_and_lower(
      demo_model(), partitioners,
      {.compile_specs = {aot::CompileSpec::from_string(backends::kIdentifiersSpecKey, "generated")},
       .generate_etrecord = true}));
  const ExecutorchProgramManager a = value_of(edge.to_executorch());
  const ExecutorchProgramManager b = export_demo();
  EXPECT_EQ(a.buffer(), b.buffer());
  EXPECT_EQ(value_of(a.get_etrecord()), value_of(b.get_etrecord()));
}

TEST(ProgramManagerTest, GetEtrecordWhenNotGeneratedIsAClearError) {
  const ExecutorchProgramManager program = export_demo("generated", /*generate_etrecord=*/false);
  EXPECT_THAT(
      program.get_etrecord(),
      ErrorIs(Error::kInvalidState, {"ETRecord was not generated; pass generate_etrecord=true"}));
}

TEST(ProgramManagerTest, PortableRecipeLowersNothing) {
  const aot::Graph model = demo_model();
  const ExecutorchProgramManager program =
      value_of(export_model(model, Recipe{.generate_etrecord = true}));
  EXPECT_EQ(program.instruction_id_to_num_outs_map().at(kForward).size(), model.nodes.size());
  EXPECT_TRUE(program.delegate_map().at(kForward).empty());
  EXPECT_THAT(program.get_etrecord(), IsOk());
}

TEST(ProgramManagerTest, SaveWritesTheBuffer) {
  const ExecutorchProgramManager program = export_demo();
  const std::string path =
      (std::filesystem::temp_directory_path() / "glassbox_program_manager_test.gbx").string();
  ASSERT_THAT(program.save(path), IsOk());
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                        std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, program.buffer());
  std::filesystem::remove(path);
  EXPECT_THAT(program.save("/nonexistent-dir/p.gbx"), ErrorIs(Error::kAccessFailed));
}

TEST(ProgramManagerTest, InvalidGraphIsRejectedByToEdge) {
  aot::Graph graph = demo_model();
  graph.nodes[1].inputs[0] = aot::ValueId(999);
  EXPECT_THAT(to_edge(graph), ErrorIs(Error::kInvalidArgument));
}

// The delegate call a fault asked for by identifier lands in: the one whose
// map has it, found by int (as text) or string identifier.
TEST(ProgramManagerTest, DelegateCallsWithIdentifierFindsTheDelegateThatHasIt) {
  for (const char* ids : {"int", "string"}) {
    const ExecutorchProgramManager program = export_demo(ids);
    const auto& delegates = program.delegate_map().at(kForward);
    ASSERT_EQ(delegates.size(), 1u);
    const InstructionId call = delegates.begin()->first;
    for (const auto& [id, handles] : *delegates.begin()->second.delegate_map) {
      const std::string text =
          std::holds_alternative<std::string>(id) ? std::get<std::string>(id) : aot::describe(id);
      EXPECT_THAT(delegate_calls_with_identifier(program, text),
                  IsOkAndHolds(std::vector<InstructionId>{call}))
          << ids << " " << text;
    }
  }
}

TEST(ProgramManagerTest, DelegateCallsWithIdentifierRefusesOneNoDelegateHas) {
  EXPECT_THAT(delegate_calls_with_identifier(export_demo("string"), "tan.nope"),
              ErrorIs(Error::kInvalidArgument, {"no delegate operator has this identifier"}));
  // An int identifier beyond the map's, and a program without delegates,
  // which has none at all.
  EXPECT_THAT(delegate_calls_with_identifier(export_demo("int"), "99"),
              ErrorIs(Error::kInvalidArgument));
  const ExecutorchProgramManager portable = value_of(export_model(demo_model(), {}));
  EXPECT_THAT(delegate_calls_with_identifier(portable, "0"), ErrorIs(Error::kInvalidArgument));
}

TEST(ProgramManagerTest, LoweringRunsPaddingOnlyConvsAsOneByOneUnderTheirHandle) {
  // A dilation-24 3x3 conv over 14x14 reads real pixels with its centre
  // tap only: the program gets the 1x1 form, the ETRecord the user's conv.
  aot::GraphBuilder b;
  const aot::ValueId x = b.input("x", ScalarType::kFloat, {1, 2, 14, 14});
  const aot::ValueId w = b.constant("w", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  b.output(b.conv2d(x, w, std::nullopt, {.padding = {24, 24}, .dilation = {24, 24}}));
  const aot::Graph model = value_of(b.build());
  const EdgeProgramManager edge =
      value_of(to_edge_transform_and_lower(model, {}, {.generate_etrecord = true}));
  EXPECT_EQ(edge.edge_graph(), model);
  ASSERT_EQ(edge.graph().nodes.size(), 1u);
  const aot::Node& conv = edge.graph().nodes[0];
  EXPECT_EQ(edge.graph().find_value(conv.inputs[1])->shape,
            (std::vector<std::int64_t>{3, 2, 1, 1}));
  EXPECT_EQ(conv.debug_handle, model.nodes[0].debug_handle);
  const ExecutorchProgramManager program = value_of(edge.to_executorch());
  EXPECT_EQ(program.debug_handle_map().at(kForward).at(InstructionId(0)),
            std::vector<DebugHandle>{model.nodes[0].debug_handle});
  // to_edge alone keeps the graph as given.
  EXPECT_EQ(value_of(to_edge(model)).graph(), model);
}

}  // namespace
}  // namespace glassbox::exporter

#include "glassbox/etrecord/etrecord.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "glassbox/aot/graph_builder.h"
#include "src/etrecord/test_records.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

using testing::demo_record;
using testing::ErrorIs;
using testing::export_demo;
using testing::IsOk;
using testing::value_of;

const std::string kForward(aot::kForwardMethod);

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("glassbox_etrecord_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(ETRecordTest, DemoRecordHoldsTheEdgeGraphAndTheMaps) {
  const ETRecord record = demo_record();
  EXPECT_EQ(record.version, kETRecordVersion);
  EXPECT_EQ(record.fingerprint.size(), aot::kFingerprintLength);
  const aot::Graph& graph = record.edge_graphs.at(kForward);
  ASSERT_EQ(graph.nodes.size(), 5u);  // Before lowering: conv, relu, conv, relu, tan.
  EXPECT_EQ(graph.nodes[4].op, "tan");
  for (const aot::Value& value : graph.values) EXPECT_TRUE(value.data.empty());
  EXPECT_EQ(record.debug_handle_map.at(kForward).at(InstructionId(0)).size(), 5u);
  EXPECT_EQ(record.delegate_map.at(kForward).at(InstructionId(0)).backend,
            backends::demo::kDemoBackendName);
  EXPECT_EQ(record.instruction_id_to_num_outs_map.at(kForward).at(InstructionId(0)), 1);
}

TEST(ETRecordTest, SaveLoadRoundTripKeepsEveryField) {
  for (const char* ids : {"generated", "int", "string"}) {
    ETRecord record = demo_record(ids);
    record.reference_inputs.push_back({{2, 2}, {1.0f, -2.5f, 3.25f, 0.0f}});
    record.reference_outputs.push_back({{3}, {0.5f, 1e-30f, -7.0f}});
    record.reference_outputs.push_back({{}, {42.0f}});
    const std::string path = temp_path(std::string(ids) + ".etrecord");
    ASSERT_THAT(record.save(path), IsOk());
    const ETRecord loaded = value_of(ETRecord::load(path));
    EXPECT_EQ(loaded, record) << ids;
    std::remove(path.c_str());
  }
}

TEST(ETRecordTest, ArchiveHasTheDocumentedEntriesAndIsDeterministic) {
  const ETRecord record = demo_record();
  const std::vector<std::uint8_t> bytes = value_of(record.to_bytes());
  EXPECT_EQ(value_of(record.to_bytes()), bytes);
  const internal::ZipEntries entries = value_of(internal::read_zip(bytes, "test"));
  std::vector<std::string> names;
  for (const auto& [name, data] : entries) names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"debug_handle_map.json", "delegate_map.json", "fingerprint",
                                      "glassbox_etrecord", "instruction_id_to_num_outs_map.json",
                                      "methods/forward/edge_graph.json"}));
  const auto& marker = entries.at("glassbox_etrecord");
  EXPECT_EQ(std::string(marker.begin(), marker.end()), "1");
}

TEST(ETRecordTest, StandaloneGenerateMatchesTheManagers) {
  const auto program = export_demo();
  const aot::Graph edge = value_of(backends::demo::build_conv_relu_tan_model());
  const std::string path = temp_path("standalone.etrecord");
  ASSERT_THAT(generate_etrecord(path, edge, program.emit_result()), IsOk());
  EXPECT_EQ(value_of(ETRecord::load(path)), value_of(program.get_etrecord()));
  std::remove(path.c_str());
}

TEST(ETRecordTest, WrongEdgeGraphIsRejectedAtGeneration) {
  const auto program = export_demo();
  aot::GraphBuilder b;
  b.output(b.relu(b.input("x", ScalarType::kFloat, {2})));
  const aot::Graph other = value_of(b.build());
  EXPECT_THAT(make_etrecord(other, program.emit_result()),
              ErrorIs(Error::kInvalidArgument, {"debug handle", "not a node of the edge graph"}));
}

TEST(ETRecordTest, ValidateCatchesInconsistencies) {
  const ETRecord good = demo_record();
  ETRecord bad = good;
  bad.fingerprint = "XYZ";
  EXPECT_THAT(bad.validate(), ErrorIs(Error::kInvalidArgument, {"fingerprint"}));
  bad = good;
  bad.debug_handle_map[kForward][InstructionId(7)] = {DebugHandle(1)};
  EXPECT_THAT(bad.validate(),
              ErrorIs(Error::kInvalidArgument, {"instruction 7", "no such instruction"}));
  bad = good;
  bad.delegate_map["other"] = {};
  EXPECT_THAT(bad.validate(), ErrorIs(Error::kInvalidArgument, {"'other'", "no edge graph"}));
  bad = good;
  bad.reference_inputs.push_back({{2}, {1.0f}});
  EXPECT_THAT(bad.validate(), ErrorIs(Error::kInvalidArgument, {"reference input 0"}));
  EXPECT_THAT(bad.save(temp_path("never")), ErrorIs(Error::kInvalidArgument));
}

TEST(ETRecordTest, SaveToAnUnwritablePathFails) {
  EXPECT_THAT(demo_record().save("/nonexistent-dir/x.etrecord"),
              ErrorIs(Error::kAccessFailed, {"/nonexistent-dir/x.etrecord"}));
}

}  // namespace
}  // namespace glassbox::etrecord

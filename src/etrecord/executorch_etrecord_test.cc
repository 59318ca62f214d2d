// ExecuTorch's own ETRecords: the fixtures of testdata/executorch (written
// by scripts/make_executorch_etrecord_fixtures.py in ExecuTorch's layout)
// load into the same ETRecord value as ours, and damaged ones give one
// clear error naming the file and the entry.

#include "src/etrecord/executorch_etrecord.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "glassbox/etrecord/etrecord.h"
#include "glassbox/io/file.h"
#include "src/etrecord/executorch_graph.h"
#include "src/etrecord/test_records.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

using internal::ZipEntries;
using ::testing::ElementsAre;
using testing::ErrorIs;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::value_of;

constexpr std::string_view kSource = "et.etrecord";
const std::string kDir = std::string(GLASSBOX_TESTDATA_DIR) + "/executorch/";
constexpr char kUserFile[] = "/home/user/models/conv_relu_tan.py";

std::vector<DebugHandle> handles(std::initializer_list<std::uint32_t> values) {
  std::vector<DebugHandle> out;
  for (std::uint32_t v : values) out.push_back(DebugHandle(v));
  return out;
}

ETRecord load_fixture(const std::string& name) { return value_of(ETRecord::load(kDir + name)); }

ZipEntries fixture_entries(const std::string& name) {
  return value_of(internal::read_zip(value_of(io::read_file(kDir + name)), name));
}

StatusOr<ETRecord> load(const ZipEntries& entries) {
  return ETRecord::load_from_memory(value_of(internal::write_zip(entries)), kSource);
}

std::vector<std::uint8_t> text(std::string_view s) {
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

bool has_note(const ETRecord& record, const std::string& fragment) {
  return std::any_of(record.notes.begin(), record.notes.end(),
                     [&](const std::string& n) { return n.find(fragment) != std::string::npos; });
}

const aot::Node& node(const ETRecord& record, std::size_t i) {
  return record.edge_graphs.at("forward").nodes.at(i);
}

TEST(ExecuTorchETRecordTest, IntIdsFixtureLoadsEveryPiece) {
  const ETRecord record = load_fixture("int_ids.etrecord");
  EXPECT_EQ(record.source, RecordSource::kExecuTorch);
  EXPECT_EQ(record.version, kExecuTorchETRecordVersion);
  EXPECT_TRUE(record.fingerprint.empty());
  ASSERT_EQ(record.edge_graphs.size(), 1u);
  const aot::Graph& graph = record.edge_graphs.at("forward");
  ASSERT_EQ(graph.nodes.size(), 6u);
  std::vector<std::string> ops;
  for (const aot::Node& n : graph.nodes) ops.push_back(n.op);
  EXPECT_THAT(ops, ElementsAre("add", "convolution", "relu", "convolution", "relu", "tan"));
  const aot::Node& conv1 = node(record, 1);
  EXPECT_EQ(conv1.name, "aten_convolution_default");
  EXPECT_EQ(conv1.debug_handle, DebugHandle(2));
  EXPECT_THAT(conv1.module_hierarchy, ElementsAre(aot::ModuleFrame{"conv_layer", "SimpleConvNet"},
                                                  aot::ModuleFrame{"conv_layer.conv1", "Conv2d"}));
  // The innermost user frame, not torch's conv.py below it.
  EXPECT_EQ(conv1.source_location, (aot::SourceLocation{kUserFile, 18, "forward"}));
  EXPECT_TRUE(node(record, 0).module_hierarchy.empty());
  // Tensor names become values linking the nodes.
  EXPECT_EQ(conv1.inputs.size(), 3u);
  EXPECT_EQ(node(record, 2).inputs.at(0), conv1.outputs.at(0));
  EXPECT_EQ(graph.find_value(conv1.outputs.at(0))->shape, (std::vector<std::int64_t>{1, 3, 8, 8}));

  // One handle as a bare int, several as a list.
  EXPECT_EQ(record.debug_handle_map.at("forward").at(InstructionId(0)), handles({1}));
  EXPECT_EQ(record.debug_handle_map.at("forward").at(InstructionId(1)), handles({2, 3, 4, 5, 6}));
  const aot::DelegateMapEntry& delegate = record.delegate_map.at("forward").at(InstructionId(1));
  EXPECT_EQ(delegate.backend, "BackendWithDelegateMappingDemo");
  ASSERT_TRUE(delegate.delegate_map.has_value());
  const aot::DebugHandleMap& map = *delegate.delegate_map;
  EXPECT_EQ(aot::key_kind(map), aot::IdentifierKind::kInt);
  EXPECT_EQ(map.at(std::int64_t{0}), handles({2, 3}));                    // fused conv+relu
  for (std::int64_t id : {2, 3, 4}) EXPECT_EQ(map.at(id), handles({6}));  // decomposed tan
  EXPECT_EQ(record.instruction_id_to_num_outs_map.at("forward").at(InstructionId(1)), 1);
  EXPECT_TRUE(has_note(record, "pickles"));
  EXPECT_THAT(record.validate(), IsOk());
}

TEST(ExecuTorchETRecordTest, StringIdsFixtureWithMethodSuffixAndOldModulePaths) {
  const ETRecord record = load_fixture("string_ids.etrecord");
  ASSERT_TRUE(record.edge_graphs.contains("forward"));
  const aot::DebugHandleMap& map =
      *record.delegate_map.at("forward").at(InstructionId(1)).delegate_map;
  EXPECT_EQ(aot::key_kind(map), aot::IdentifierKind::kString);
  EXPECT_EQ(map.at(std::string("conv1+relu1")), handles({2, 3}));
  EXPECT_EQ(map.at(std::string("tan.div")), handles({6}));
  // "L['self'].conv_layer.conv1" paths, root module item left out.
  EXPECT_THAT(node(record, 3).module_hierarchy,
              ElementsAre(aot::ModuleFrame{"conv_layer", "SimpleConvNet"},
                          aot::ModuleFrame{"conv_layer.conv2", "Conv2d"}));
  EXPECT_TRUE(record.notes.empty());  // Nothing pickled, nothing extra.
}

TEST(ExecuTorchETRecordTest, OldStyleFixture) {
  const ETRecord record = load_fixture("old_style.etrecord");
  EXPECT_TRUE(record.instruction_id_to_num_outs_map.empty());
  EXPECT_TRUE(has_note(record, "aten_dialect_output/forward"));
  EXPECT_FALSE(has_note(record, "et_dialect_graph_module"));
  // Debug handles as JSON ints; modules from source_fn_stack; nodes
  // without a name are named after their output.
  EXPECT_EQ(node(record, 2).debug_handle, DebugHandle(3));
  EXPECT_EQ(node(record, 2).name, "aten_relu_default");
  EXPECT_THAT(node(record, 2).module_hierarchy,
              ElementsAre(aot::ModuleFrame{"conv_layer_relu1", "ReLU"}));
}

TEST(ExecuTorchETRecordTest, IsReadNotWritten) {
  EXPECT_THAT(load_fixture("int_ids.etrecord").to_bytes(),
              ErrorIs(Error::kInvalidArgument, {"ExecuTorch", "not written"}));
}

TEST(ExecuTorchGraphTest, OpNamesFromTargets) {
  EXPECT_EQ(internal::op_from_target("executorch.exir.dialects.edge.ops.aten.convolution.default"),
            "convolution");
  EXPECT_EQ(internal::op_from_target("torch.ops.aten.add.Tensor"), "add");
  EXPECT_EQ(
      internal::op_from_target(
          "executorch.exir.dialects.edge.ops.quantized_decomposed.quantize_per_tensor.default"),
      "quantized_decomposed.quantize_per_tensor");
  EXPECT_EQ(internal::op_from_target("torch.ops.higher_order.executorch_call_delegate"),
            "executorch_call_delegate");
  EXPECT_EQ(internal::op_from_target("_operator.getitem"), "getitem");
}

TEST(ExecuTorchGraphTest, ModuleStacks) {
  EXPECT_THAT(internal::modules_from_nn_module_stack(
                  "L__self__,,m.Model;L__self___layers_0,L['self'].layers[0],torch.nn.Linear"),
              ::testing::Optional(ElementsAre(aot::ModuleFrame{"layers.0", "Linear"})));
  EXPECT_THAT(internal::modules_from_nn_module_stack("a,b"), ::testing::Eq(std::nullopt));
  EXPECT_THAT(internal::modules_from_nn_module_stack("k,p(,t"), ::testing::Eq(std::nullopt));
  EXPECT_THAT(internal::modules_from_source_fn_stack("linear_1,torch.nn.modules.linear.Linear"),
              ::testing::Optional(ElementsAre(aot::ModuleFrame{"linear_1", "Linear"})));
  EXPECT_THAT(internal::modules_from_source_fn_stack("no comma"), ::testing::Eq(std::nullopt));
}

TEST(ExecuTorchGraphTest, StackTraces) {
  const std::string trace =
      "  File \"/w/model.py\", line 7, in forward\n    x = self.block(x)\n"
      "  File \"/w/block.py\", line 12, in forward\n    return self.fc(x)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", line 125, in "
      "forward\n    return F.linear(input, self.weight, self.bias)\n";
  EXPECT_EQ(internal::location_from_stack_trace(trace),
            (aot::SourceLocation{"/w/block.py", 12, "forward"}));
  // Only library frames: the innermost one.
  EXPECT_EQ(
      internal::location_from_stack_trace("  File \"/x/site-packages/torch/a.py\", line 3, in f\n")
          ->line,
      3u);
  EXPECT_EQ(internal::location_from_stack_trace("no frames here"), std::nullopt);
  EXPECT_EQ(internal::location_from_stack_trace("  File \"/a.py\", line x, in f\n"), std::nullopt);
}

// ---- Damaged records ---------------------------------------------------

TEST(ExecuTorchETRecordBadInputTest, MissingDebugHandleMapIsAnError) {
  ZipEntries entries = fixture_entries("int_ids.etrecord");
  entries.erase("debug_handle_map");
  EXPECT_THAT(load(entries),
              ErrorIs(Error::kCorruptData, {kSource, "missing entry", "debug_handle_map"}));
}

TEST(ExecuTorchETRecordBadInputTest, MissingPiecesDegradeWithANote) {
  ZipEntries entries = fixture_entries("int_ids.etrecord");
  entries.erase("edge_dialect_exported_program");
  entries.erase("delegate_map");
  const ETRecord record = value_of(load(entries));
  EXPECT_TRUE(record.edge_graphs.at("forward").nodes.empty());
  EXPECT_TRUE(record.delegate_map.empty());
  EXPECT_TRUE(has_note(record, "no edge program"));
  EXPECT_TRUE(has_note(record, "no delegate_map"));
}

TEST(ExecuTorchETRecordBadInputTest, BadJsonAndWrongTypesNameTheEntry) {
  struct Case {
    std::string entry, content, fragment;
  };
  const std::vector<Case> cases = {
      {"delegate_map", "{not json", "not valid JSON"},
      {"debug_handle_map", "[1, 2]", "expected an object keyed by method name"},
      {"debug_handle_map", R"({"forward": {"0": "one"}})", "forward.0"},
      {"debug_handle_map", R"({"forward": {"x": 1}})", "is not an integer"},
      {"debug_handle_map", R"({"forward": {"0": -3}})", "non-negative"},
      {"delegate_map", R"({"forward": {"1": {"name": 5, "delegate_map": {}}}})", "name"},
      {"delegate_map", R"({"forward": {"1": {"name": "B", "delegate_map": [1]}}})",
       "forward.1.delegate_map"},
      {"instruction_id_to_num_outs_map", R"({"forward": {"1": "one"}})", "forward.1"},
      {"edge_dialect_exported_program", "{}", "graph_module: missing"},
      {"edge_dialect_exported_program", R"({"graph_module": {"graph": {"nodes": 3}}})",
       "graph_module.graph.nodes: expected a list"},
      {"edge_dialect_exported_program",
       R"({"graph_module": {"graph": {"nodes": [{"name": "n", "target": 7}]}}})",
       "nodes[0].target"},
      {"edge_dialect_exported_program",
       R"({"graph_module": {"graph": {"nodes": [{"name": "n", "target": "t",
           "metadata": {"debug_handle": "abc"}}]}}})",
       "metadata.debug_handle"},
      {"edge_dialect_exported_program",
       R"({"graph_module": {"graph": {"nodes": [{"name": "n", "target": "t",
           "metadata": {"stack_trace": 1}}]}}})",
       "metadata.stack_trace"},
  };
  for (const Case& c : cases) {
    ZipEntries entries = fixture_entries("int_ids.etrecord");
    entries[c.entry] = text(c.content);
    EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, c.entry, c.fragment}))
        << c.entry << ": " << c.content;
  }
}

TEST(ExecuTorchETRecordBadInputTest, DeeplyNestedJsonIsRefusedNotACrash) {
  constexpr std::size_t kDepth = 100'000;
  const std::string deep = std::string(kDepth, '[') + std::string(kDepth, ']');
  for (const char* entry : {"debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map",
                            "edge_dialect_exported_program"}) {
    ZipEntries entries = fixture_entries("int_ids.etrecord");
    entries[entry] = text(R"({"graph_module": )" + deep + "}");
    EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData,
                                       {kSource, entry, "JSON nested deeper than 256 levels"}))
        << entry;
  }
}

TEST(ExecuTorchETRecordBadInputTest, UnreadableMetadataDegradesWithOneNote) {
  ZipEntries entries = fixture_entries("int_ids.etrecord");
  entries["edge_dialect_exported_program"] = text(
      R"({"graph_module": {"graph": {"nodes": [
           {"name": "a", "target": "t", "metadata": {"debug_handle": "1", "nn_module_stack": "x"}},
           {"name": "b", "target": "t", "metadata": {"debug_handle": 2, "stack_trace": "?"}}],
         "unknown_field": [1, 2]}}})");
  const ETRecord record = value_of(load(entries));
  EXPECT_TRUE(has_note(record, "1 of 2 nodes have a module stack in an unknown form"));
  EXPECT_TRUE(has_note(record, "1 of 2 nodes have a stack trace"));
}

TEST(ExecuTorchETRecordBadInputTest, HandleListsAreNormalised) {
  ZipEntries entries = fixture_entries("int_ids.etrecord");
  // Nested, unsorted, repeated, and 0 (ExecuTorch's "no handle").
  entries["debug_handle_map"] = text(R"({"forward": {"0": [[3, 1], 3, 0], "1": 0}})");
  entries["delegate_map"] =
      text(R"({"forward": {"1": {"name": "B", "delegate_map": {"7": [6], "x": [5]}}}})");
  const ETRecord record = value_of(load(entries));
  EXPECT_EQ(record.debug_handle_map.at("forward").at(InstructionId(0)), handles({1, 3}));
  EXPECT_FALSE(record.debug_handle_map.at("forward").contains(InstructionId(1)));
  // One non-digit key makes every key a string identifier.
  const aot::DebugHandleMap& map =
      *record.delegate_map.at("forward").at(InstructionId(1)).delegate_map;
  EXPECT_EQ(map.at(std::string("7")), handles({6}));
}

TEST(ExecuTorchETRecordBadInputTest, EmptyOrNullDelegateMapMeansNone) {
  for (const char* value : {"{}", "null"}) {
    ZipEntries entries = fixture_entries("int_ids.etrecord");
    entries["delegate_map"] =
        text(std::string(R"({"forward": {"1": {"name": "B", "delegate_map": )") + value + "}}}");
    const ETRecord record = value_of(load(entries));
    EXPECT_FALSE(record.delegate_map.at("forward").at(InstructionId(1)).delegate_map.has_value());
  }
}

TEST(ExecuTorchETRecordBadInputTest, NeitherMarkerIsRefused) {
  ZipEntries entries = fixture_entries("int_ids.etrecord");
  entries.erase("ETRECORD_V0");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, "not an ETRecord"}));
}

TEST(ExecuTorchETRecordBadInputTest, TruncatedArchive) {
  const std::vector<std::uint8_t> bytes = value_of(io::read_file(kDir + "int_ids.etrecord"));
  for (std::size_t cut : {std::size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    const std::vector<std::uint8_t> truncated(bytes.begin(),
                                              bytes.begin() + static_cast<long>(cut));
    EXPECT_THAT(ETRecord::load_from_memory(truncated, kSource),
                ErrorIs(Error::kCorruptData, {kSource}))
        << "cut at " << cut;
  }
}

TEST(ExecuTorchETRecordBadInputTest, EdgeProgramEntryWithANestedMethodIsRefused) {
  ZipEntries entries = fixture_entries("int_ids.etrecord");
  entries["edge_dialect_exported_program/a/b"] = entries.at("edge_dialect_exported_program");
  EXPECT_THAT(load(entries), ErrorIs(Error::kCorruptData, {kSource, "unexpected entry",
                                                           "edge_dialect_exported_program/a/b"}));
}

}  // namespace
}  // namespace glassbox::etrecord

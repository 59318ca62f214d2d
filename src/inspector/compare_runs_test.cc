// compare_runs on synthetic records: the demo record (conv1+relu1 fused,
// conv2+relu2 fused, tan) against itself, renamed, split and extended.

#include "glassbox/inspector/compare_runs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::ErrorIs;
using testing::demo_dump;
using testing::demo_record;
using testing::DumpBuilder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Ids;
using testing::value_of;

// The demo record with every node renamed, as an int8 model's float twin
// names its ops differently.
etrecord::ETRecord renamed(etrecord::ETRecord record) {
  for (aot::Node& node : record.edge_graphs["forward"].nodes) node.name = "float_" + node.name;
  return record;
}

// The demo record whose delegate times conv1 and relu1 apart (identifier
// 105 for relu1) and also runs an input quantize (handle 6, identifier 106).
etrecord::ETRecord split_and_extended() {
  etrecord::ETRecord record = demo_record(Ids::kInt);
  aot::Node quantize;
  quantize.name = "input_quantize";
  quantize.op = "quantize_linear";
  quantize.debug_handle = DebugHandle(6);
  auto& nodes = record.edge_graphs["forward"].nodes;
  nodes.insert(nodes.begin(), quantize);
  auto& map = *record.delegate_map["forward"][InstructionId(0)].delegate_map;
  map[aot::DelegateDebugIdentifier(std::int64_t{100})] = {DebugHandle(1)};
  map[aot::DelegateDebugIdentifier(std::int64_t{105})] = {DebugHandle(2)};
  map[aot::DelegateDebugIdentifier(std::int64_t{106})] = {DebugHandle(6)};
  return record;
}

// Events for split_and_extended: quantize 50, conv1 600, relu1 100,
// conv2+relu2 1500, tan 300 (one piece), one run.
etdump::ETDumpFile split_dump() {
  DumpBuilder b;
  b.run("Execute")
      .int_event(106, 0, 0, 50)
      .int_event(100, 0, 50, 650)
      .int_event(105, 0, 650, 750)
      .int_event(101, 0, 750, 2250)
      .int_event(102, 0, 2250, 2550)
      .op("DELEGATE_CALL", 0, 0, 2600);
  return b.build();
}

const RunCompareRow* find(const std::vector<RunCompareRow>& rows, const std::string& first_name) {
  for (const RunCompareRow& r : rows) {
    if (!r.op_names.empty() && r.op_names.front() == first_name) return &r;
  }
  return nullptr;
}

TEST(CompareRunsTest, SameNamesJoinByNameLargestChangeFirst) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector a = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record));
  const Inspector b = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  const RunComparison c = value_of(compare_runs({&a, &record, "a.etdp"}, {&b, &record, ""}));
  EXPECT_EQ(c.join, RunJoin::kNames);
  EXPECT_EQ(c.name_a, "a.etdp");
  EXPECT_EQ(c.name_b, "B");
  ASSERT_EQ(c.rows.size(), 3u);
  // Means per execution: conv2 2000 vs 2020 (+20), conv1 1000 vs 1010, tan 600 vs 600.
  EXPECT_THAT(c.rows[0].op_names, ElementsAre("conv2d_1", "relu_1"));
  EXPECT_THAT(c.rows[0].op_types, ElementsAre("conv2d", "relu"));
  EXPECT_EQ(c.rows[0].module, "conv_layer.conv2");
  EXPECT_DOUBLE_EQ(*c.rows[0].mean_ns_a, 2000);
  EXPECT_DOUBLE_EQ(*c.rows[0].mean_ns_b, 2020);
  EXPECT_DOUBLE_EQ(c.rows[0].delta_ns, 20);
  EXPECT_DOUBLE_EQ(*c.rows[0].ratio, 1.01);
  EXPECT_EQ(c.rows[0].backend_a, "DemoBackend");
  EXPECT_THAT(c.rows[1].op_names, ElementsAre("conv2d", "relu"));
  EXPECT_THAT(c.rows[2].op_names, ElementsAre("tan"));
  EXPECT_TRUE(c.only_a.empty());
  EXPECT_TRUE(c.only_b.empty());
  EXPECT_DOUBLE_EQ(c.total_ns_a, 3600);
  EXPECT_DOUBLE_EQ(c.total_ns_b, 3630);
}

TEST(CompareRunsTest, DifferentNamesJoinByStructure) {
  const etrecord::ETRecord record_a = demo_record(Ids::kInt);
  const etrecord::ETRecord record_b = renamed(demo_record(Ids::kInt));
  const Inspector a = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record_a));
  const Inspector b = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record_b));
  const RunComparison c = value_of(compare_runs({&a, &record_a, ""}, {&b, &record_b, ""}));
  EXPECT_EQ(c.join, RunJoin::kStructure);
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_THAT(c.rows[0].op_names, ElementsAre("conv2d_1", "relu_1"));
  EXPECT_THAT(c.rows[0].op_names_b, ElementsAre("float_conv2d_1", "float_relu_1"));
  EXPECT_DOUBLE_EQ(c.rows[0].delta_ns, 20);
}

TEST(CompareRunsTest, OpsOneRunTimesApartAreJoinedAndOneSideOpsListedApart) {
  const etrecord::ETRecord record_a = demo_record(Ids::kInt);
  const etrecord::ETRecord record_b = split_and_extended();
  const Inspector a = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record_a));
  const Inspector b = value_of(Inspector::create(split_dump(), &record_b));
  // Compute names are the same (the quantize is not a compute op): by names.
  const RunComparison c = value_of(compare_runs({&a, &record_a, ""}, {&b, &record_b, ""}));
  EXPECT_EQ(c.join, RunJoin::kNames);
  ASSERT_EQ(c.rows.size(), 3u);
  // conv1+relu1 is one unit in A: B's conv1 600 and relu1 100 are summed.
  const RunCompareRow* conv1 = find(c.rows, "conv2d");
  ASSERT_NE(conv1, nullptr);
  EXPECT_THAT(conv1->op_names, ElementsAre("conv2d", "relu"));
  EXPECT_DOUBLE_EQ(*conv1->mean_ns_b, 700);
  EXPECT_DOUBLE_EQ(conv1->delta_ns, -300);
  // conv2: 2000 -> 1500, the largest change, first.
  EXPECT_THAT(c.rows[0].op_names, ElementsAre("conv2d_1", "relu_1"));
  EXPECT_DOUBLE_EQ(*c.rows[0].ratio, 0.75);
  ASSERT_EQ(c.only_b.size(), 1u);
  EXPECT_THAT(c.only_b[0].op_names, ElementsAre("input_quantize"));
  EXPECT_FALSE(c.only_b[0].mean_ns_a.has_value());
  EXPECT_DOUBLE_EQ(*c.only_b[0].mean_ns_b, 50);
  EXPECT_FALSE(c.only_b[0].ratio.has_value());
  EXPECT_TRUE(c.only_a.empty());

  // Rollups share a unit's time among its ops and count one-side rows.
  const auto type_row = [&](const std::string& key) {
    for (const RunRollupRow& r : c.by_type) {
      if (r.key == key) return r;
    }
    ADD_FAILURE() << "no type " << key;
    return RunRollupRow{};
  };
  EXPECT_EQ(type_row("conv2d").ops, 2u);
  EXPECT_DOUBLE_EQ(type_row("conv2d").mean_ns_a, 500 + 1000);  // halves of 1000 and 2000
  EXPECT_DOUBLE_EQ(type_row("conv2d").mean_ns_b, 350 + 750);
  EXPECT_DOUBLE_EQ(type_row("quantize_linear").mean_ns_b, 50);
  EXPECT_DOUBLE_EQ(type_row("tan").mean_ns_a, 600);
  EXPECT_DOUBLE_EQ(type_row("tan").mean_ns_b, 300);
  bool top_level = false;
  for (const RunRollupRow& r : c.by_module) top_level |= r.key.empty();
  EXPECT_TRUE(top_level);  // tan and the quantize have no module
}

TEST(CompareRunsTest, UnrelatedGraphsAreRefusedSayingWhere) {
  const etrecord::ETRecord record_a = demo_record(Ids::kInt);
  etrecord::ETRecord record_b = renamed(demo_record(Ids::kInt));
  record_b.edge_graphs["forward"].nodes[4].op = "sin";
  const Inspector a = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record_a));
  const Inspector b = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record_b));
  const auto c = compare_runs({&a, &record_a, ""}, {&b, &record_b, ""});
  EXPECT_THAT(c, ErrorIs(Error::kInvalidArgument,
                         {"not of one source model", "at operator 4", "'tan' (tan)"}));
  etrecord::ETRecord no_graph = record_a;
  no_graph.edge_graphs.clear();
  EXPECT_THAT(compare_runs({&a, &no_graph, ""}, {&b, &record_b, ""}),
              ErrorIs(Error::kInvalidArgument, {"of run A has no \"forward\" edge graph"}));
}

TEST(CompareRunsTest, FormatsCarryEverySection) {
  const etrecord::ETRecord record_a = demo_record(Ids::kInt);
  const etrecord::ETRecord record_b = split_and_extended();
  const Inspector a = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record_a));
  const Inspector b = value_of(Inspector::create(split_dump(), &record_b));
  const RunComparison c = value_of(compare_runs({&a, &record_a, "x.etdp"}, {&b, &record_b, ""}));
  const std::string table = value_of(render_run_comparison(c, Format::kTable));
  for (const char* part :
       {"A = x.etdp, B = B", "joined by names", "only in B (1)", "input_quantize",
        "by module:", "(top level)", "by op type:", "conv2d_1+relu_1", "0.75"}) {
    EXPECT_THAT(table, HasSubstr(part));
  }
  const std::string csv = value_of(render_run_comparison(c, Format::kCsv));
  EXPECT_THAT(csv, HasSubstr("section,op_names,op_names_b,op_types,module,ops"));
  EXPECT_THAT(csv, HasSubstr("\nop,conv2d_1;relu_1,conv2d_1;relu_1,conv2d;relu,"));
  EXPECT_THAT(csv, HasSubstr("\nonly_b,input_quantize,"));
  EXPECT_THAT(csv, HasSubstr("\ntype,,,tan,,1,,,600.0,300.0,-300.0,0.5\n"));
  const std::string json = value_of(render_run_comparison(c, Format::kJson));
  for (const char* part : {"\"format\": \"glassbox-compare\"", "\"join\": \"names\"",
                           "\"only_a\": []", "\"only_b\": [", "\"by_module\": [",
                           "\"op_type\": \"tan\"", "\"mean_ns_a\": null", "\"ratio\": 0.75"}) {
    EXPECT_THAT(json, HasSubstr(part));
  }
  EXPECT_THAT(render_run_comparison(c, Format::kChrome), ErrorIs(Error::kInvalidArgument));
}

}  // namespace
}  // namespace glassbox::inspector

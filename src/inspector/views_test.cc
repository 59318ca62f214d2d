#include "glassbox/inspector/views.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"

namespace glassbox::inspector {
namespace {

using testing::demo_dump;
using testing::demo_record;
using testing::DumpBuilder;
using testing::Ids;
using testing::value_of;

const OpRow* find_row(const std::vector<OpRow>& rows, const std::string& label) {
  auto it =
      std::find_if(rows.begin(), rows.end(), [&](const OpRow& r) { return r.label == label; });
  return it == rows.end() ? nullptr : &*it;
}

// Identifier 0 converts conv2d's input (mapped to it; delegate metadata
// "layout: NCHW->NHWC", 10 ticks), 1 is conv2d+relu (30 ticks).
constexpr char kLayout[] = "layout: NCHW->NHWC";
Inspector layout_conversion_inspector(etrecord::ETRecord* record) {
  *record = demo_record(Ids::kInt);
  aot::DebugHandleMap map;
  map[aot::DelegateDebugIdentifier(std::int64_t{0})] = {DebugHandle(1)};
  map[aot::DelegateDebugIdentifier(std::int64_t{1})] = {DebugHandle(1), DebugHandle(2)};
  record->delegate_map["forward"][InstructionId(0)].delegate_map = map;
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").int_event(0, 0, 0, 10).int_event(1, 0, 10, 40).op("DELEGATE_CALL", 0, 0, 40);
  const std::string layout = kLayout;
  std::get<etdump::ProfileEvent>(b.file().runs.back().events[0].data).delegate_debug_metadata =
      std::vector<std::uint8_t>(layout.begin(), layout.end());
  return value_of(Inspector::create(b.build(), record));
}

TEST(OpsViewTest, FusedGroupIsOneRowAndDecompositionIsSummedBack) {
  const etrecord::ETRecord record = demo_record(Ids::kString);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kString, 3), &record));
  const std::vector<OpRow> rows = ops_view(insp);
  ASSERT_EQ(rows.size(), 3u);
  // Sorted by mean: conv2 (2020), conv1 (1010), tan (600).
  EXPECT_EQ(rows[0].label, "conv2d_1+relu_1");
  EXPECT_EQ(rows[1].label, "conv2d+relu");
  EXPECT_TRUE(rows[1].shared);
  EXPECT_EQ(rows[1].op_types, (std::vector<std::string>{"conv2d", "relu"}));
  EXPECT_EQ(rows[1].module_hierarchy,
            (std::vector<std::string>{"conv_layer.conv1", "conv_layer.relu1"}));
  EXPECT_DOUBLE_EQ(rows[1].stats.mean, 1010);

  const OpRow* tan = find_row(rows, "tan");
  ASSERT_NE(tan, nullptr);
  EXPECT_FALSE(tan->shared);
  EXPECT_DOUBLE_EQ(tan->stats.mean, 600);  // sin 300 + cos 200 + div 100
  EXPECT_EQ(tan->stats.count, 3u);
  EXPECT_EQ(tan->occurrences, 9u);
  EXPECT_EQ(tan->delegate_debug_identifiers.size(), 3u);
  EXPECT_TRUE(tan->delegated);
  EXPECT_EQ(tan->backend, "DemoBackend");
}

// Identifiers {0: [1, 2], 1: [2, 3]} of instruction 0: they share op 2.
etrecord::ETRecord overlapping_handles_record() {
  etrecord::ETRecord record = demo_record(Ids::kInt);
  aot::DebugHandleMap map;
  map[aot::DelegateDebugIdentifier(std::int64_t{0})] = {DebugHandle(1), DebugHandle(2)};
  map[aot::DelegateDebugIdentifier(std::int64_t{1})] = {DebugHandle(2), DebugHandle(3)};
  record.delegate_map["forward"][InstructionId(0)].delegate_map = map;
  return record;
}

TEST(OpsViewTest, OverlappingHandlesAreNeverSplit) {
  // The two identifiers share op 2, so one row.
  const etrecord::ETRecord record = overlapping_handles_record();
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").int_event(0, 0, 0, 10).int_event(1, 0, 10, 30).op("DELEGATE_CALL", 0, 0, 40);
  const std::vector<OpRow> rows = ops_view(value_of(Inspector::create(b.build(), &record)));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].label, "conv2d+relu+conv2d_1");
  EXPECT_DOUBLE_EQ(rows[0].stats.mean, 30);
}

// A row's samples are per run, summed over its members, in run order, with
// only the runs some member logged in.
TEST(OpsViewTest, FusedRowSumsItsMembersPerRunInRunOrder) {
  const etrecord::ETRecord record = overlapping_handles_record();
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").int_event(1, 0, 10, 30).op("DELEGATE_CALL", 0, 0, 40);
  b.run("Execute").op("DELEGATE_CALL", 0, 0, 40);  // nothing inside
  b.run("Execute").int_event(0, 0, 0, 10).int_event(1, 0, 10, 30).op("DELEGATE_CALL", 0, 0, 40);
  b.run("Execute").int_event(0, 0, 0, 5).op("DELEGATE_CALL", 0, 0, 40);
  const std::vector<OpRow> rows = ops_view(value_of(Inspector::create(b.build(), &record)));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].sample_runs, (std::vector<std::uint32_t>{0, 2, 3}));
  EXPECT_EQ(rows[0].samples, (std::vector<double>{20, 30, 5}));
  EXPECT_EQ(rows[0].stats.count, 3u);
}

TEST(OpsViewTest, LayoutConversionIsARowOfItsOwn) {
  etrecord::ETRecord record;
  const std::vector<OpRow> rows = ops_view(layout_conversion_inspector(&record));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "conv2d+relu");
  EXPECT_DOUBLE_EQ(rows[0].stats.mean, 30);
  EXPECT_EQ(rows[1].label, "layout: NCHW->NHWC (conv2d)");
  EXPECT_DOUBLE_EQ(rows[1].stats.mean, 10);
}

TEST(OpsViewTest, DelegateWithoutInnerEventsIsOneOpaqueRow) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").op("DELEGATE_CALL", 0, 0, 400).op("Method::execute", -1, 0, 410);
  const std::vector<OpRow> rows = ops_view(value_of(Inspector::create(b.build(), &record)));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].op_names.size(), 5u);
  EXPECT_TRUE(rows[0].shared);
  EXPECT_TRUE(rows[0].delegated);
  // Named by where it runs and what runs it, not by all of its five ops.
  EXPECT_EQ(rows[0].label, "DELEGATE_CALL (instruction 0, DemoBackend)");
  EXPECT_EQ(rows[0].backend, "DemoBackend");
}

TEST(OpsViewTest, OpaqueDelegateCallsOfTwoInstructionsAreTwoRowsNamedApart) {
  DumpBuilder b;
  b.run("Execute").op("DELEGATE_CALL", 0, 0, 400).op("DELEGATE_CALL", 2, 400, 500);
  const std::vector<OpRow> rows = ops_view(value_of(Inspector::create(b.build())));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "DELEGATE_CALL (instruction 0)");
  EXPECT_EQ(rows[1].label, "DELEGATE_CALL (instruction 2)");
}

TEST(OpsViewTest, OperatorCallIsNotCountedTwiceWithTheKernelEvent) {
  // ExecuTorch logs native_call_add.out inside OPERATOR_CALL.
  DumpBuilder b;
  b.run("Execute").op("native_call_add.out", 0, 5, 90).op("OPERATOR_CALL", 0, 0, 100);
  const std::vector<OpRow> rows = ops_view(value_of(Inspector::create(b.build())));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].label, "OPERATOR_CALL");
  EXPECT_DOUBLE_EQ(rows[0].stats.mean, 100);
}

TEST(OpsViewTest, WorksWithoutAnETRecord) {
  const std::vector<OpRow> rows = ops_view(value_of(Inspector::create(demo_dump(Ids::kString))));
  ASSERT_EQ(rows.size(), 5u);  // nothing to merge by
  EXPECT_EQ(rows[0].label, "conv_relu_2");
  EXPECT_FALSE(rows[0].mapped);
}

TEST(ModulesViewTest, TotalsOverTheTreeWithoutDoubleCounting) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  const std::vector<ModuleRow> rows = modules_view(insp);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].path, "");
  EXPECT_DOUBLE_EQ(rows[0].total_mean, 1010 + 2020 + 600);  // not + DELEGATE_CALL
  EXPECT_EQ(rows[1].path, "conv_layer");
  EXPECT_DOUBLE_EQ(rows[1].total_mean, 1010 + 2020);
  EXPECT_DOUBLE_EQ(rows[1].shared_mean, 0);
  EXPECT_EQ(rows[2].path, "conv_layer.conv2");  // the bigger child first
  EXPECT_DOUBLE_EQ(rows[2].total_mean, 2020);
  EXPECT_DOUBLE_EQ(rows[2].shared_mean, 2020);  // fused with relu2
  EXPECT_EQ(rows[2].depth, 2u);
}

const TypeRow* find_type(const std::vector<TypeRow>& rows, const std::string& type) {
  auto it =
      std::find_if(rows.begin(), rows.end(), [&](const TypeRow& r) { return r.type == type; });
  return it == rows.end() ? nullptr : &*it;
}

TEST(TypesViewTest, FusedRowsAreSplitBetweenTheirMembersTypes) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  const std::vector<TypeRow> rows = types_view(insp);
  ASSERT_EQ(rows.size(), 3u);
  // conv2d+relu (1010) and conv2d_1+relu_1 (2020) each give half to both
  // types; the two tie, and tie-break by name.
  EXPECT_EQ(rows[0].type, "conv2d");
  EXPECT_EQ(rows[1].type, "relu");
  EXPECT_EQ(rows[2].type, "tan");
  EXPECT_EQ(rows[0].count, 2u);
  EXPECT_DOUBLE_EQ(rows[0].mean, (1010 + 2020) / 2.0);
  EXPECT_DOUBLE_EQ(rows[0].shared_mean, rows[0].mean);
  // Over the three executions: conv_relu_1 1000+1010+1020, conv_relu_2
  // 2000+2020+2040.
  EXPECT_DOUBLE_EQ(rows[0].total, (3030 + 6060) / 2.0);
  EXPECT_TRUE(rows[0].mapped);
  EXPECT_EQ(rows[0].backends, (std::vector<std::string>{"DemoBackend"}));
  // tan is decomposed (sin, cos, div) but one op, unshared.
  EXPECT_EQ(rows[2].count, 1u);
  EXPECT_DOUBLE_EQ(rows[2].mean, 600);
  EXPECT_DOUBLE_EQ(rows[2].shared_mean, 0);
  EXPECT_NEAR(rows[0].percent + rows[1].percent + rows[2].percent, 100, 1e-9);
  EXPECT_NEAR(rows[2].percent, 100 * 600 / 3630.0, 1e-9);
}

TEST(TypesViewTest, KernelsRunOnPortable) {
  etrecord::ETRecord record = demo_record(Ids::kInt);
  // Instruction 0 is a kernel call of tan, not a delegate.
  record.delegate_map.clear();
  record.debug_handle_map["forward"][InstructionId(0)] = {DebugHandle(5)};
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").op("OPERATOR_CALL", 0, 0, 70);
  const std::vector<TypeRow> rows = types_view(value_of(Inspector::create(b.build(), &record)));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].type, "tan");
  EXPECT_EQ(rows[0].backends, (std::vector<std::string>{"portable"}));
}

TEST(TypesViewTest, OpaqueDelegateCallAndLayoutConversionAreNotSplit) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  DumpBuilder b;
  b.file().program_fingerprint = testing::kFingerprint;
  b.run("Execute").op("DELEGATE_CALL", 0, 0, 400);
  const std::vector<TypeRow> rows = types_view(value_of(Inspector::create(b.build(), &record)));
  ASSERT_EQ(rows.size(), 1u);  // not 1/5 to each of the delegate's ops
  EXPECT_EQ(rows[0].type, "DELEGATE_CALL");
  EXPECT_FALSE(rows[0].mapped);
  EXPECT_DOUBLE_EQ(rows[0].mean, 400);
  EXPECT_EQ(rows[0].backends, (std::vector<std::string>{"DemoBackend"}));

  etrecord::ETRecord layout_record;
  const std::vector<TypeRow> with_layout = types_view(layout_conversion_inspector(&layout_record));
  const TypeRow* conversion = find_type(with_layout, kLayout);
  ASSERT_NE(conversion, nullptr);
  EXPECT_DOUBLE_EQ(conversion->mean, 10);
  ASSERT_NE(find_type(with_layout, "conv2d"), nullptr);
  EXPECT_DOUBLE_EQ(find_type(with_layout, "conv2d")->mean, 15);  // not + the conversion
  EXPECT_EQ(find_type(with_layout, "conv2d")->count, 1u);
}

TEST(TypesViewTest, WithoutAnETRecordTypesAreEventNames) {
  const std::vector<TypeRow> rows =
      types_view(value_of(Inspector::create(demo_dump(Ids::kString))));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].type, "conv_relu_2");
  EXPECT_FALSE(rows[0].mapped);
  EXPECT_EQ(rows[0].count, 1u);
}

TEST(ReconcileViewTest, DelegateGapAndFrameworkGap) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  const std::vector<ReconcileRow> rows = reconcile_view(insp);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].kind, ReconcileKind::kDelegateCall);
  EXPECT_EQ(rows[1].kind, ReconcileKind::kInnerEvents);
  EXPECT_DOUBLE_EQ(rows[1].stats.mean, 3630);
  EXPECT_EQ(rows[2].kind, ReconcileKind::kDelegateGap);
  EXPECT_DOUBLE_EQ(rows[2].stats.mean, 50);
  EXPECT_DOUBLE_EQ(rows[0].stats.mean, 3680);
  EXPECT_EQ(rows[5].kind, ReconcileKind::kFrameworkGap);
  EXPECT_DOUBLE_EQ(rows[5].stats.mean, 25 + 50);  // around the call + inside it
}

TEST(CompareTest, PerOpDeltas) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector base = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record));
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  const std::vector<DeltaRow> rows = compare_ops(base, current);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].label, "conv2d_1+relu_1");
  EXPECT_DOUBLE_EQ(rows[0].delta, 20);
  EXPECT_DOUBLE_EQ(rows[0].delta_percent, 1);
  EXPECT_DOUBLE_EQ(rows[2].delta, 0);
}

}  // namespace
}  // namespace glassbox::inspector

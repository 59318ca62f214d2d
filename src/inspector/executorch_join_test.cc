// The Inspector on ExecuTorch's own ETRecords (testdata/executorch): the
// ops view maps fused and decomposed delegate identifiers, int and string,
// exactly as for ours; without a fingerprint the dump's ids are checked
// against the maps instead, and mismatches are reported, never fatal.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "glassbox/inspector/inspector.h"
#include "glassbox/inspector/numeric.h"
#include "glassbox/inspector/views.h"
#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::ErrorIs;
using testing::DumpBuilder;
using ::testing::ElementsAre;
using testing::has_diagnostic;
using testing::value_of;

const std::string kDir = std::string(GLASSBOX_TESTDATA_DIR) + "/executorch/";

etrecord::ETRecord fixture(const std::string& name) {
  return value_of(etrecord::ETRecord::load(kDir + name));
}

// What ExecuTorch's runtime logs for the fixtures' program: the add kernel
// at instruction 0, the delegate at instruction 1 logging `ids` (fused
// conv+relu twice, then tan as sin, cos, div), framework events at 0.
template <typename Id>
etdump::ETDumpFile executorch_dump(const std::vector<Id>& ids, int runs = 2) {
  DumpBuilder b;
  b.run("Default").op("Method::init", 0, 0, 50);
  for (int r = 0; r < runs; ++r) {
    const Ticks t = 1000 * static_cast<Ticks>(r + 1);
    b.run("Execute")
        .op("native_call_add.out", 0, t + 10, t + 60)
        .op("OPERATOR_CALL", 0, t + 5, t + 65);
    Ticks cursor = t + 100;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const Ticks duration = i < 2 ? 100 : 10;
      if constexpr (std::is_same_v<Id, std::string>) {
        b.str_event(ids[i], 1, cursor, cursor + duration);
      } else {
        b.int_event(ids[i], 1, cursor, cursor + duration);
      }
      cursor += duration;
    }
    b.op("DELEGATE_CALL", 1, t + 90, cursor + 10).op("Method::execute", 0, t, cursor + 20);
  }
  return b.no_extensions().build();
}

const OpRow* row_with(const std::vector<OpRow>& rows, const std::string& op_name) {
  for (const OpRow& row : rows) {
    if (std::find(row.op_names.begin(), row.op_names.end(), op_name) != row.op_names.end()) {
      return &row;
    }
  }
  return nullptr;
}

void expect_mapped_rows(const std::vector<OpRow>& rows) {
  const OpRow* conv1 = row_with(rows, "aten_convolution_default");
  ASSERT_NE(conv1, nullptr);
  EXPECT_THAT(conv1->op_names, ElementsAre("aten_convolution_default", "aten_relu_default"));
  EXPECT_TRUE(conv1->shared);  // Fused: one identifier, two source ops.
  EXPECT_THAT(conv1->module_hierarchy, ElementsAre("conv_layer.conv1", "conv_layer.relu1"));
  EXPECT_EQ(conv1->backend, "BackendWithDelegateMappingDemo");
  const OpRow* tan = row_with(rows, "aten_tan_default");
  ASSERT_NE(tan, nullptr);
  // Decomposed: three identifiers summed back into tan (10 ticks each).
  EXPECT_EQ(tan->delegate_debug_identifiers.size(), 3u);
  EXPECT_THAT(tan->samples, ElementsAre(30, 30));
  EXPECT_FALSE(tan->shared);
  const OpRow* add = row_with(rows, "aten_add_tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(add->delegated);
  EXPECT_THAT(add->op_types, ElementsAre("add"));
}

TEST(ExecuTorchJoinTest, IntIdentifiersMapFusedAndDecomposedRows) {
  const etrecord::ETRecord record = fixture("int_ids.etrecord");
  const Inspector insp = value_of(
      Inspector::create(executorch_dump(std::vector<std::int32_t>{0, 1, 2, 3, 4}), &record));
  expect_mapped_rows(ops_view(insp));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo,
                             "2 of 2 instruction ids and 5 of 5 delegate identifiers found"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "Python pickles"));
  EXPECT_FALSE(has_diagnostic(insp, Severity::kWarning, "missing"));
}

TEST(ExecuTorchJoinTest, StringIdentifiersMapExactly) {
  const etrecord::ETRecord record = fixture("string_ids.etrecord");
  const std::vector<std::string> ids = {"conv1+relu1", "conv2+relu2", "tan.sin", "tan.cos",
                                        "tan.div"};
  const Inspector insp = value_of(Inspector::create(executorch_dump(ids), &record));
  expect_mapped_rows(ops_view(insp));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "5 of 5 delegate identifiers found"));
}

TEST(ExecuTorchJoinTest, MismatchesAreReportedNotFatal) {
  const etrecord::ETRecord record = fixture("int_ids.etrecord");
  etdump::ETDumpFile dump = executorch_dump(std::vector<std::int32_t>{0, 1, 9});
  // An instruction the program does not have.
  DumpBuilder extra;
  extra.run("Execute").op("native_call_mul.out", 7, 10, 20);
  dump.runs.back().events.push_back(extra.file().runs.back().events.front());
  const Inspector insp = value_of(Inspector::create(dump, &record));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning,
                             "instruction ids logged in the ETDump but in none of the ETRecord's "
                             "maps: 7"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning, "missing from its debug handle map: 9"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kWarning,
                             "2 of 3 instruction ids and 2 of 3 delegate identifiers found"));
}

TEST(ExecuTorchJoinTest, DigitStringsAgainstAnIntMapGetAHint) {
  const etrecord::ETRecord record = fixture("int_ids.etrecord");
  const Inspector insp =
      value_of(Inspector::create(executorch_dump(std::vector<std::string>{"0"}), &record));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "does not record whether identifiers"));
}

TEST(ExecuTorchJoinTest, ADumpWithAFingerprintIsNotAMismatch) {
  // A Glassbox-written dump (fingerprint set) joined with ExecuTorch's
  // record: nothing to compare it with, so no refusal.
  const etrecord::ETRecord record = fixture("int_ids.etrecord");
  DumpBuilder b;
  b.run("Execute").op("OPERATOR_CALL", 0, 0, 10);
  ASSERT_TRUE(b.file().program_fingerprint.has_value());
  const Inspector insp = value_of(Inspector::create(b.build(), &record));
  EXPECT_FALSE(has_diagnostic(insp, Severity::kError, "fingerprint"));
  EXPECT_TRUE(has_diagnostic(insp, Severity::kInfo, "1 of 1 instruction ids"));
}

TEST(ExecuTorchJoinTest, WithoutTheEdgeProgramEventsKeepTheirHandles) {
  etrecord::ETRecord record = fixture("int_ids.etrecord");
  record.edge_graphs.at("forward").nodes.clear();
  const Inspector insp =
      value_of(Inspector::create(executorch_dump(std::vector<std::int32_t>{0}), &record));
  for (const EventGroup& g : insp.groups()) {
    if (g.identifier.has_value()) {
      EXPECT_EQ(g.debug_handles.size(), 2u);
      EXPECT_TRUE(g.source_ops.empty());
    }
  }
}

TEST(ExecuTorchJoinTest, NumericSaysThePicklesAreNotRead) {
  const etrecord::ETRecord record = fixture("int_ids.etrecord");
  EXPECT_THAT(compare_numerics(executorch_dump(std::vector<std::int32_t>{0}), record, {}),
              ErrorIs(Error::kInvalidArgument, {"ExecuTorch", "pickles", "not read"}));
}

}  // namespace
}  // namespace glassbox::inspector

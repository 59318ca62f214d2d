// Golden tests: synthetic ETDumps and ETRecords -> the exact table, CSV and
// JSON text in testdata/inspector/. After an intended change, regenerate
// every golden with
//   GLASSBOX_UPDATE_GOLDENS=1 <build>/src/inspector/inspector_test
// and review the diff.

#include "src/testing/golden.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/inspector/formats.h"
#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"

namespace glassbox::inspector {
namespace {

using testing::demo_dump;
using testing::demo_record;
using testing::DumpBuilder;
using testing::Ids;
using testing::value_of;

const std::string kGoldenDir = std::string(GLASSBOX_TESTDATA_DIR) + "/inspector/";

void expect_golden(const std::string& name, const std::string& actual) {
  ::glassbox::testing::expect_golden(kGoldenDir + name, actual);
}

void expect_goldens(const std::string& stem, const Inspector& insp, View view,
                    std::initializer_list<Format> formats) {
  for (Format f : formats) {
    const std::string ext = f == Format::kTable ? "txt" : std::string(to_string(f));
    expect_golden(stem + "." + std::string(to_string(view)) + "." + ext, render(insp, view, f));
  }
}

TEST(GoldenTest, FusionAndDecompositionIntIds) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  expect_goldens("int_ids", insp, View::kOps, {Format::kTable, Format::kCsv, Format::kJson});
  expect_goldens("int_ids", insp, View::kEvents, {Format::kTable, Format::kCsv, Format::kJson});
  expect_goldens("int_ids", insp, View::kModules, {Format::kTable, Format::kCsv, Format::kJson});
  expect_goldens("int_ids", insp, View::kReconcile, {Format::kTable, Format::kCsv, Format::kJson});
  expect_goldens("int_ids", insp, View::kTypes, {Format::kTable, Format::kCsv, Format::kJson});
  expect_goldens("int_ids", insp, View::kOps, {Format::kTsv, Format::kChrome});
}

TEST(GoldenTest, StringIds) {
  const etrecord::ETRecord record = demo_record(Ids::kString);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kString, 3), &record));
  expect_goldens("string_ids", insp, View::kOps, {Format::kTable, Format::kCsv, Format::kJson});
}

TEST(GoldenTest, MissingIdentifiers) {
  // Logs 100..103 and 105: 104 is never logged, 105 is not in the map.
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 2);
  for (etdump::RunData& run : dump.runs) {
    for (etdump::Event& e : run.events) {
      auto* p = std::get_if<etdump::ProfileEvent>(&e.data);
      if (p != nullptr && p->delegate_debug_id_int.value == 104) {
        p->delegate_debug_id_int = DelegateDebugIntId(105);
      }
    }
  }
  const Inspector insp = value_of(Inspector::create(dump, &record));
  expect_goldens("missing_ids", insp, View::kOps, {Format::kTable, Format::kJson});
}

TEST(GoldenTest, SeveralRunsWithWarmUpAndThreads) {
  // Four runs, the first skipped; a loop (id 100 three times per run) and
  // two worker threads logging id 101.
  DumpBuilder b;
  Ticks t = 0;
  for (Ticks r = 0; r < 4; ++r) {
    b.run("Execute");
    const Ticks warm = r == 0 ? 1000 : 0;
    b.int_event(100, 0, t + 10, t + 20 + warm)
        .int_event(100, 0, t + 20 + warm, t + 40 + warm)
        .int_event(100, 0, t + 40 + warm, t + 70 + warm)
        .int_event(101, 0, t + 80 + warm, t + 180 + warm + r, 1)
        .int_event(101, 0, t + 80 + warm, t + 160 + warm, 2)
        .op("DELEGATE_CALL", 0, t + 5, t + 200 + warm)
        .op("Method::execute", -1, t, t + 210 + warm);
    t += 1000 + warm;
  }
  InspectorOptions options;
  options.skip_first_runs = 1;
  const Inspector insp = value_of(Inspector::create(b.build(), nullptr, {}, options));
  expect_goldens("runs_threads", insp, View::kEvents, {Format::kTable, Format::kCsv});
  expect_goldens("runs_threads", insp, View::kOps, {Format::kChrome});
}

TEST(GoldenTest, ExecuTorchStyleFileWithoutExtensions) {
  const etdump::ETDumpFile dump = value_of(etdump::load_etdump_file(
      std::string(GLASSBOX_ETDUMP_FIXTURE_DIR) + "/executorch_style.etdp"));
  ASSERT_FALSE(dump.tick_ratio.has_value());
  const Inspector insp = value_of(Inspector::create(dump));
  EXPECT_EQ(insp.time().source, TimeUnitSource::kAssumedNanoseconds);
  expect_goldens("executorch_style", insp, View::kEvents,
                 {Format::kTable, Format::kCsv, Format::kJson});
  expect_goldens("executorch_style", insp, View::kOps, {Format::kTable});
  // Without an ETRecord the types view says its types are event names.
  expect_goldens("executorch_style", insp, View::kTypes, {Format::kTable});
}

TEST(TableWidthTest, FullNamesForFilesAndATerminalsWidthForTerminals) {
  // No ETRecord: rows are named by the delegate's (long) identifiers.
  const std::string name = "/features/features.7/features.7.1/mlp/mlp.3/Add";
  DumpBuilder b;
  b.run("Execute").str_event(name, 0, 0, 100).str_event(name + "_1", 0, 100, 150);
  const Inspector insp = value_of(Inspector::create(b.build()));
  const std::string cells = render(insp, View::kOps, Format::kTable);
  EXPECT_EQ(cells.find(name), std::string::npos);  // the default: cut
  const std::string full = render(insp, View::kOps, Format::kTable, kTableFullNames);
  EXPECT_NE(full.find(name + "_1"), std::string::npos);
  constexpr std::size_t kTerminal = 80;
  const std::string terminal = render(insp, View::kOps, Format::kTable, kTerminal);
  const std::size_t table = terminal.find("\n\n") + 2;
  for (std::size_t at = table, end; at < terminal.find("\n\n", table); at = end + 1) {
    end = terminal.find('\n', at);
    EXPECT_LE(end - at, kTerminal) << terminal.substr(at, end - at);
  }
  EXPECT_NE(terminal.find("mlp.3/Add_1"), std::string::npos) << terminal;
}

TEST(GroupedTableTest, SaysWhatEveryGroupSaysOnce) {
  std::vector<TagGroup> groups;
  for (const char* value : {"a", "b", "c"}) {
    groups.push_back({value, value_of(Inspector::create(demo_dump(Ids::kString, 1)))});
  }
  const std::string text = value_of(render_grouped(groups, "device", View::kOps, Format::kTable));
  const std::string message = "no ETRecord: events are named";
  const std::size_t first = text.find(message);
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find(message, first + 1), std::string::npos) << text;
  EXPECT_LT(text.find("== device = c =="), text.find("== every device ==")) << text;
  EXPECT_LT(text.find("== every device =="), first);
}

TEST(GoldenTest, Comparison) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector base = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record));
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  expect_golden("compare.txt", value_of(render_comparison(base, current, Format::kTable)));
  expect_golden("compare.csv", value_of(render_comparison(base, current, Format::kCsv)));
}

}  // namespace
}  // namespace glassbox::inspector

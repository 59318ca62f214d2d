#include "glassbox/inspector/export_rows.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "glassbox/inspector/views.h"
#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"

namespace glassbox::inspector {
namespace {

using testing::demo_dump;
using testing::demo_record;
using testing::DumpBuilder;
using testing::Ids;
using testing::value_of;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ExportRowsTest, EveryEventIsOneJsonLineThatReadsBack) {
  DumpBuilder b;
  b.run("Execute").op("quote\" back\\ tab\t \xc3\xa9", 1, 0, 10).op("plain", 2, 10, 35);
  const Inspector insp = value_of(Inspector::create(b.build()));
  std::string text;
  append_export_rows(insp, {"d.etdp", {{"device", "pix\"el"}}}, ExportRows::kEvents,
                     ExportFormat::kNdjson, text);
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_EQ(lines.size(), 2u);
  const nlohmann::json first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["event"], "quote\" back\\ tab\t \xc3\xa9");
  EXPECT_EQ(first["tags"]["device"], "pix\"el");
  EXPECT_EQ(first["schema_version"], kExportSchemaVersion);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["duration_ns"], 25.0);
}

TEST(ExportRowsTest, CsvRowsHaveTheHeadersColumns) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  for (ExportRows rows : {ExportRows::kEvents, ExportRows::kOps}) {
    std::string text = export_header(rows, ExportFormat::kCsv);
    append_export_rows(insp, {"d.etdp", {{"a", "1"}, {"b", "2"}}}, rows, ExportFormat::kCsv, text);
    const std::vector<std::string> lines = lines_of(text);
    ASSERT_GT(lines.size(), 1u);
    const auto columns = std::count(lines[0].begin(), lines[0].end(), ',');
    // The demo's cells hold no comma except inside quoted lists.
    for (const std::string& line : lines) {
      if (line.find('"') == std::string::npos) {
        EXPECT_EQ(std::count(line.begin(), line.end(), ','), columns) << line;
      }
    }
    EXPECT_NE(text.find(",a=1;b=2,"), std::string::npos);
  }
}

// A value holding `;` or `=` forged a second tag before.
TEST(ExportRowsTest, CsvTagsEscapeTheirSeparators) {
  DumpBuilder b;
  b.run("Execute").op("plain", 1, 0, 10);
  const Inspector insp = value_of(Inspector::create(b.build()));
  std::string text;
  append_export_rows(insp, {"d.etdp", {{"device", "pixel;os=14"}, {"a=b", "100%"}}},
                     ExportRows::kEvents, ExportFormat::kCsv, text);
  EXPECT_NE(text.find(",a%3Db=100%25;device=pixel%3Bos%3D14,"), std::string::npos) << text;
}

TEST(ExportRowsTest, OpRowsAreTheOpsViewSamplesByRun) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector insp = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  std::string text;
  append_export_rows(insp, {"d.etdp", {}}, ExportRows::kOps, ExportFormat::kNdjson, text);
  double total = 0;
  std::uint32_t last_run = 0;
  for (const std::string& line : lines_of(text)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    EXPECT_GE(row["run"].get<std::uint32_t>(), last_run);
    last_run = row["run"].get<std::uint32_t>();
    total += row["duration_ns"].get<double>();
  }
  double expected = 0;
  for (const OpRow& row : ops_view(insp)) expected += row.stats.total;
  EXPECT_DOUBLE_EQ(total, expected);
}

}  // namespace
}  // namespace glassbox::inspector

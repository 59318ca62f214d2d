// Golden files for the three map entries of the demo model's ETRecord, one
// per identifier mode of the demo backend. To regenerate after an intended
// change (then review the diff):
//
//   GLASSBOX_UPDATE_GOLDENS=1 build/<dir>/src/etrecord/etrecord_test
//       --gtest_filter='*ETRecordGoldenTest*'       (one command line)

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/etrecord/test_records.h"
#include "src/etrecord/zip_archive.h"

namespace glassbox::etrecord {
namespace {

using testing::demo_record;
using testing::value_of;

// The map entries exactly as stored, re-indented for a readable diff.
std::string maps_document(const std::string& ids) {
  const internal::ZipEntries entries =
      value_of(internal::read_zip(value_of(demo_record(ids).to_bytes()), "golden"));
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (const char* name :
       {"debug_handle_map.json", "delegate_map.json", "instruction_id_to_num_outs_map.json"}) {
    const auto& bytes = entries.at(name);
    doc[name] = nlohmann::ordered_json::parse(bytes.begin(), bytes.end());
  }
  return doc.dump(2) + "\n";
}

class ETRecordGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ETRecordGoldenTest, DemoMapsMatchTheGolden) {
  const std::string path =
      std::string(GLASSBOX_TESTDATA_DIR) + "/etrecord/demo_" + GetParam() + "_maps.json";
  const std::string actual = maps_document(GetParam());
  if (std::getenv("GLASSBOX_UPDATE_GOLDENS") != nullptr) {
    std::ofstream(path) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream file(path);
  ASSERT_TRUE(file) << "missing golden " << path << " (see this file's comment)";
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "regenerate with GLASSBOX_UPDATE_GOLDENS=1 if intended";
}

INSTANTIATE_TEST_SUITE_P(IdentifierModes, ETRecordGoldenTest,
                         ::testing::Values("generated", "int", "string"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace glassbox::etrecord

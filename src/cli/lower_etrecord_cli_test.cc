// `glassbox lower` and `glassbox etrecord show`, driven through the CLI's
// command tree (run_command_line) so the tests see each command's Status.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "glassbox/aot/emitter.h"
#include "glassbox/etrecord/etrecord.h"
#include "nlohmann/json.hpp"
#include "src/cli/run_cli.h"
#include "src/testing/status_matchers.h"

namespace glassbox::cli {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;

using Json = nlohmann::json;

using Outcome = CommandLineOutcome;

Outcome run(const std::vector<std::string>& args) { return run_command_line(args); }

class LowerEtrecordCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_cli_lower_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(file)),
                                   std::istreambuf_iterator<char>());
}

TEST_F(LowerEtrecordCliTest, LowerDemoWritesProgramAndEtrecord) {
  const Outcome lowered = run({"lower", "--model", "demo", "--backend", "demo", "-o",
                               path("demo.gbx"), "--etrecord", path("demo.etrecord")});
  ASSERT_TRUE(lowered.parsed);
  ASSERT_THAT(lowered.status, IsOk());
  EXPECT_NE(lowered.out.find("1 delegate calls"), std::string::npos) << lowered.out;
  EXPECT_NE(lowered.out.find("5 of 5 source operators"), std::string::npos) << lowered.out;

  const StatusOr<std::string> fingerprint = aot::fingerprint_of(read_bytes(path("demo.gbx")));
  ASSERT_THAT(fingerprint, IsOk());
  const StatusOr<etrecord::ETRecord> record = etrecord::ETRecord::load(path("demo.etrecord"));
  ASSERT_THAT(record, IsOk());
  EXPECT_EQ(record->fingerprint, *fingerprint);

  const Outcome shown = run({"etrecord", "show", path("demo.etrecord"), "--format", "json"});
  ASSERT_THAT(shown.status, IsOk());
  const Json j = Json::parse(shown.out);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["fingerprint"], *fingerprint);
  const Json& forward = j["methods"]["forward"];
  ASSERT_EQ(forward["graph"]["nodes"].size(), 5u);
  const Json& conv = forward["graph"]["nodes"][0];
  EXPECT_EQ(conv["op"], "conv2d");
  EXPECT_EQ(conv["debug_handle"], 1);
  EXPECT_EQ(conv["module_hierarchy"].back()["path"], "conv_layer.conv1");
  EXPECT_NE(conv["source_location"]["line"], 0);
  EXPECT_EQ(forward["debug_handle_map"]["0"], Json::parse("[1, 2, 3, 4, 5]"));
  EXPECT_EQ(forward["delegate_map"]["0"]["name"], "DemoBackend");
  EXPECT_EQ(forward["delegate_map"]["0"]["delegate_map"]["0"], Json::parse("[1, 2]"));
  EXPECT_EQ(forward["instruction_id_to_num_outs_map"]["0"], 1);

  const Outcome text = run({"etrecord", "show", path("demo.etrecord")});
  ASSERT_THAT(text.status, IsOk());
  EXPECT_NE(text.out.find("delegate DemoBackend (int ids)"), std::string::npos) << text.out;
}

// Names from the file reach the terminal escaped, as in the Inspector's
// tables: no escape sequence, NUL, line break or bidi override.
TEST_F(LowerEtrecordCliTest, ShowTextEscapesNamesFromTheFile) {
  ASSERT_TRUE(
      run({"lower", "-o", path("h.gbx"), "--etrecord", path("h.etrecord"), "--ids", "string"})
          .status.ok());
  etrecord::ETRecord record = *etrecord::ETRecord::load(path("h.etrecord"));
  aot::Node& node = record.edge_graphs.at("forward").nodes.at(0);
  node.name = std::string("evil\x1b[2J\0\nforged\xe2\x80\xae", 19);
  node.module_hierarchy = {aot::ModuleFrame{"m\x1b]0;t\x07", "T\r"}};
  ASSERT_TRUE(record.save(path("h.etrecord")).ok());
  const Outcome shown = run({"etrecord", "show", path("h.etrecord")});
  ASSERT_THAT(shown.status, IsOk());
  for (const std::string& raw :
       std::vector<std::string>{"\x1b", std::string(1, '\0'), "\x07", "\r", "\xe2\x80\xae"}) {
    EXPECT_EQ(shown.out.find(raw), std::string::npos) << shown.out;
  }
  EXPECT_NE(shown.out.find("evil\\x1b[2J\\x00\\nforged\\u202e"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("in m\\x1b]0;t\\x07 (T\\r)"), std::string::npos) << shown.out;
}

TEST_F(LowerEtrecordCliTest, StringIdentifiersReachTheEtrecord) {
  ASSERT_TRUE(
      run({"lower", "-o", path("s.gbx"), "--etrecord", path("s.etrecord"), "--ids", "string"})
          .status.ok());
  const Outcome shown = run({"etrecord", "show", path("s.etrecord"), "--format", "json"});
  const Json j = Json::parse(shown.out);
  EXPECT_EQ(j["methods"]["forward"]["delegate_map"]["0"]["key_type"], "string");
  EXPECT_TRUE(j["methods"]["forward"]["delegate_map"]["0"]["delegate_map"].contains("tan.sin"));
}

TEST_F(LowerEtrecordCliTest, PortableLowersNothing) {
  const Outcome lowered = run(
      {"lower", "--backend", "portable", "-o", path("p.gbx"), "--etrecord", path("p.etrecord")});
  ASSERT_THAT(lowered.status, IsOk());
  EXPECT_NE(lowered.out.find("5 kernel calls, 0 delegate calls"), std::string::npos) << lowered.out;
  const Json j = Json::parse(run({"etrecord", "show", path("p.etrecord"), "--format", "json"}).out);
  EXPECT_TRUE(j["methods"]["forward"]["delegate_map"].empty());
  EXPECT_EQ(j["methods"]["forward"]["instruction_id_to_num_outs_map"].size(), 5u);
  // Without --etrecord only the program is written.
  ASSERT_TRUE(run({"lower", "--backend", "portable", "-o", path("q.gbx")}).status.ok());
  EXPECT_FALSE(std::filesystem::exists(path("q.etrecord")));
}

TEST_F(LowerEtrecordCliTest, UsageErrors) {
  EXPECT_FALSE(run({"lower", "--backend", "npu", "-o", path("x.gbx")}).parsed);
  EXPECT_FALSE(run({"lower"}).parsed);  // -o is required.
  EXPECT_FALSE(run({"lower", "-o", path("x.gbx"), "--ids", "random"}).parsed);
  const Outcome ids = run({"lower", "--backend", "portable", "--ids", "int", "-o", path("x.gbx")});
  EXPECT_THAT(ids.status, ErrorIs(Error::kInvalidArgument));
}

TEST_F(LowerEtrecordCliTest, ShowMissingFileIsOneClearError) {
  const Outcome shown = run({"etrecord", "show", path("absent.etrecord")});
  EXPECT_THAT(shown.status, ErrorIs(Error::kAccessFailed));
  EXPECT_NE(shown.status.message().find("absent.etrecord"), std::string::npos);
  EXPECT_TRUE(shown.out.empty());
}

TEST_F(LowerEtrecordCliTest, ShowCorruptFileIsOneClearError) {
  ASSERT_TRUE(run({"lower", "-o", path("c.gbx"), "--etrecord", path("c.etrecord")}).status.ok());
  std::vector<std::uint8_t> bytes = read_bytes(path("c.etrecord"));
  bytes.resize(bytes.size() / 2);
  std::ofstream(path("c.etrecord"), std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const Outcome shown = run({"etrecord", "show", path("c.etrecord"), "--format", "json"});
  EXPECT_THAT(shown.status, ErrorIs(Error::kCorruptData));
  EXPECT_NE(shown.status.message().find("c.etrecord"), std::string::npos) << shown.status.message();
  EXPECT_EQ(shown.status.message().find('\n'), std::string::npos);
  EXPECT_TRUE(shown.out.empty());
}

TEST_F(LowerEtrecordCliTest, UnwritableOutputIsAnError) {
  const Outcome lowered = run({"lower", "-o", "/nonexistent-dir/x.gbx"});
  EXPECT_THAT(lowered.status, ErrorIs(Error::kAccessFailed));
}

}  // namespace
}  // namespace glassbox::cli

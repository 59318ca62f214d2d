// `glassbox etrecord show` and `glassbox inspect` on ExecuTorch's own
// ETRecords (testdata/executorch), with ExecuTorch-style ETDumps written by
// hand (testdata/etdump/executorch_style.json and
// testdata/executorch/string_ids_dump.json, built by flatc) and with one
// written here by our ETDumpGen.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "glassbox/etdump/etdump_gen.h"
#include "src/cli/run_cli.h"
#include "src/testing/status_matchers.h"

namespace glassbox::cli {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOk;
using Json = nlohmann::json;

const std::string kRecords = std::string(GLASSBOX_TESTDATA_DIR) + "/executorch/";
const std::string kExecuTorchDump =
    std::string(GLASSBOX_ETDUMP_FIXTURE_DIR) + "/executorch_style.etdp";
const std::string kStringIdsDump = GLASSBOX_EXECUTORCH_STRING_IDS_DUMP;

CommandLineOutcome glassbox(const std::vector<std::string>& args) {
  CommandLineOutcome outcome = run_command_line(args);
  EXPECT_TRUE(outcome.parsed);
  return outcome;
}

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

// The string-id fixture's program run under our ETDumpGen (a Glassbox
// dump: tick ratio, no fingerprint set): the add kernel at instruction 0,
// the delegate's five string identifiers at 1.
std::string write_string_id_dump() {
  etdump::ETDumpGen gen;
  gen.create_event_block("Execute");
  gen.set_chain_instruction(ChainId(0), InstructionId(0));
  gen.end_profiling(gen.start_profiling("OPERATOR_CALL"));
  gen.set_chain_instruction(ChainId(0), InstructionId(1));
  const runtime::EventTracerEntry call = gen.start_profiling("DELEGATE_CALL");
  Ticks t = 100;
  for (const char* id : {"conv1+relu1", "conv2+relu2", "tan.sin", "tan.cos", "tan.div"}) {
    EXPECT_EQ(gen.log_profiling_delegate(id, kUnsetDelegateDebugIntId, t, t + 10), Error::kOk);
    t += 10;
  }
  gen.end_profiling(call);
  auto bytes = gen.get_etdump_data();
  EXPECT_TRUE(bytes.ok());
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("glassbox_et_string_ids_" + std::to_string(::getpid()) + ".etdp"))
                               .string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes->data()),
             static_cast<std::streamsize>(bytes->size()));
  return path;
}

TEST(ExecuTorchCliTest, ShowTextNamesTheSourceAndEveryInstruction) {
  const CommandLineOutcome o = glassbox({"etrecord", "show", kRecords + "int_ids.etrecord"});
  ASSERT_THAT(o.status, IsOk());
  EXPECT_TRUE(contains(o.out, "written by ExecuTorch (ETRECORD_V0)"));
  EXPECT_TRUE(contains(o.out, "note: reference_outputs"));
  EXPECT_TRUE(contains(o.out,
                       "handle 2  convolution  aten_convolution_default  in "
                       "conv_layer.conv1 (Conv2d)  at conv_relu_tan.py:18"));
  // The add kernel is in the debug handle map only: still listed.
  EXPECT_TRUE(contains(o.out, "0: outs ?, handles [1]"));
  EXPECT_TRUE(contains(o.out,
                       "1: outs 1, handles [2, 3, 4, 5, 6], delegate "
                       "BackendWithDelegateMappingDemo (int ids)"));
}

TEST(ExecuTorchCliTest, ShowJsonHasOurShape) {
  const CommandLineOutcome o =
      glassbox({"etrecord", "show", kRecords + "string_ids.etrecord", "--format", "json"});
  ASSERT_THAT(o.status, IsOk());
  const Json j = Json::parse(o.out);
  EXPECT_EQ(j["source"], "executorch");
  EXPECT_TRUE(j["fingerprint"].is_null());
  EXPECT_EQ(j["version"], 0);
  const Json& forward = j["methods"]["forward"];
  EXPECT_EQ(forward["graph"]["nodes"].size(), 6u);
  EXPECT_EQ(forward["graph"]["nodes"][1]["module_hierarchy"][1]["path"], "conv_layer.conv1");
  EXPECT_EQ(forward["delegate_map"]["1"]["key_type"], "string");
  EXPECT_EQ(forward["delegate_map"]["1"]["delegate_map"]["tan.sin"], Json::array({6}));
  EXPECT_EQ(forward["debug_handle_map"]["0"], Json::array({1}));
  EXPECT_TRUE(j["notes"].is_array());
  // Ours has the same keys, with a fingerprint and no notes.
}

TEST(ExecuTorchCliTest, InspectExecuTorchsDumpWithItsRecord) {
  const CommandLineOutcome o = glassbox({"inspect", "--etdump", kExecuTorchDump, "--etrecord",
                                         kRecords + "int_ids.etrecord", "--format", "json"});
  ASSERT_THAT(o.status, IsOk());
  const Json j = Json::parse(o.out);
  bool fused = false, unmapped = false;
  for (const Json& row : j["rows"]) {
    fused |= row["label"] == "aten_convolution_default+aten_relu_default";
    unmapped |= row["label"].get<std::string>().find("Fancy Fusion") != std::string::npos;
  }
  EXPECT_TRUE(fused) << o.out;
  EXPECT_TRUE(unmapped) << o.out;
  EXPECT_TRUE(contains(o.out, "2 of 3 delegate identifiers found"));
}

TEST(ExecuTorchCliTest, InspectStringIdsInEveryView) {
  for (const char* view : {"events", "ops", "modules", "reconcile"}) {
    const CommandLineOutcome o = glassbox({"inspect", "--etdump", kStringIdsDump, "--etrecord",
                                           kRecords + "string_ids.etrecord", "--view", view});
    EXPECT_THAT(o.status, IsOk()) << view;
    EXPECT_TRUE(contains(o.out, "2 of 2 instruction ids and 5 of 5 delegate identifiers found"))
        << view << "\n"
        << o.out;
  }
  const CommandLineOutcome ops = glassbox({"inspect", "--etdump", kStringIdsDump, "--etrecord",
                                           kRecords + "string_ids.etrecord", "--format", "json"});
  ASSERT_THAT(ops.status, IsOk());
  // tan decomposed into sin, cos, div: 30 and 36 ns in the two runs.
  bool tan = false;
  const Json parsed = Json::parse(ops.out);
  for (const Json& row : parsed["rows"]) {
    if (row["label"] != "aten_tan_default") continue;
    tan = true;
    EXPECT_EQ(row["delegate_debug_identifiers"].size(), 3u) << row.dump();
    EXPECT_EQ(row["mean_ns"], 33.0) << row.dump();
  }
  EXPECT_TRUE(tan) << ops.out;
  const CommandLineOutcome chrome =
      glassbox({"inspect", "--etdump", kStringIdsDump, "--etrecord",
                kRecords + "string_ids.etrecord", "--format", "chrome"});
  ASSERT_THAT(chrome.status, IsOk());
  EXPECT_TRUE(contains(chrome.out, "aten_tan_default"));
}

TEST(ExecuTorchCliTest, InspectOurOwnDumpWithExecuTorchsRecord) {
  const std::string dump = write_string_id_dump();
  const CommandLineOutcome o =
      glassbox({"inspect", "--etdump", dump, "--etrecord", kRecords + "string_ids.etrecord"});
  std::filesystem::remove(dump);
  ASSERT_THAT(o.status, IsOk());
  EXPECT_TRUE(contains(o.out, "5 of 5 delegate identifiers found")) << o.out;
  EXPECT_TRUE(contains(o.out, "conv_layer.{conv1,relu1}")) << o.out;
}

TEST(ExecuTorchCliTest, NumericSaysThePicklesAreNotRead) {
  const CommandLineOutcome o =
      glassbox({"inspect", "--etdump", kExecuTorchDump, "--etrecord", kRecords + "int_ids.etrecord",
                "--numeric", "--debug-data", kExecuTorchDump});
  EXPECT_THAT(o.status, ErrorIs(Error::kInvalidArgument, {"pickles", "not read"}));
}

}  // namespace
}  // namespace glassbox::cli

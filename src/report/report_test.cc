// The report data (golden, against testdata/report/), the timeline's
// choice of execution, sampling and nesting, and the page's embedding.
// After an intended change to the data, regenerate the goldens with
//   GLASSBOX_UPDATE_GOLDENS=1 <build>/src/report/report_test
// and review the diff.

#include "glassbox/report/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "src/inspector/test_inputs.h"
#include "src/inspector/test_util.h"
#include "src/testing/golden.h"
#include "src/testing/status_matchers.h"

namespace glassbox::report {
namespace {

using ::glassbox::testing::ErrorIs;
using inspector::Inspector;
using inspector::testing::demo_dump;
using inspector::testing::demo_record;
using inspector::testing::DumpBuilder;
using inspector::testing::Ids;
using inspector::testing::value_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kGoldenDir = std::string(GLASSBOX_TESTDATA_DIR) + "/report/";

void expect_golden(const std::string& name, const std::string& actual) {
  ::glassbox::testing::expect_golden(kGoldenDir + name, actual);
}

nlohmann::json data_of(const ReportInputs& inputs, const ReportOptions& options = {}) {
  return nlohmann::json::parse(value_of(report_data(inputs, options)));
}

// The numeric comparison of the demo with its cos perturbed: conv+relu
// rows pass, the tan decomposition (sin, cos, div) is the first failure.
inspector::NumericReport faulty_tan_report() {
  inspector::NumericReport report;
  report.comparators = {inspector::Comparator::kMaxAbs};
  report.threshold = 1e-3;
  auto row = [](std::uint32_t order, std::vector<aot::DelegateDebugIdentifier> ids,
                std::vector<std::string> ops, double value) {
    inspector::NumericRow r;
    r.kind = inspector::NumericRowKind::kDelegateInternal;
    r.order = order;
    r.instruction = InstructionId(0);
    r.backend = "DemoBackend";
    r.identifiers = std::move(ids);
    r.op_names = std::move(ops);
    // The demo graph's handles: conv2d 1, relu 2, conv2d_1 3, relu_1 4, tan 5.
    const std::map<std::string, std::uint32_t> handle{
        {"conv2d", 1}, {"relu", 2}, {"conv2d_1", 3}, {"relu_1", 4}, {"tan", 5}};
    for (const std::string& name : r.op_names)
      r.debug_handles.push_back(DebugHandle(handle.at(name)));
    if (!r.op_names.empty()) r.reference_op = r.op_names.back();
    r.threshold_value = value;
    r.exceeds = value > 1e-3;
    return r;
  };
  report.rows.push_back(row(0, {std::int64_t{100}}, {"conv2d", "relu"}, 0));
  report.rows.push_back(row(1, {std::int64_t{101}}, {"conv2d_1", "relu_1"}, 2.5e-7));
  report.rows.push_back(
      row(2, {std::int64_t{102}, std::int64_t{103}, std::int64_t{104}}, {"tan"}, 0.066));
  report.rows.back().first_failure = true;
  report.first_failure = 2;
  inspector::NumericRow output = row(5, {}, {}, 0.066);
  output.kind = inspector::NumericRowKind::kProgramOutput;
  output.backend.clear();
  output.instruction = InstructionId();
  report.rows.push_back(output);
  inspector::NumericRow unmapped = row(6, {std::int64_t{105}}, {}, 0);
  unmapped.status = inspector::NumericStatus::kUnmapped;
  unmapped.note = "identifier 105 is not in the delegate map";
  report.rows.push_back(unmapped);
  // The delegate call seen from outside holds every op: it must not paint
  // them all with tan's error (the graph's shading).
  inspector::NumericRow call = row(7, {}, {"conv2d", "relu", "conv2d_1", "relu_1", "tan"}, 0.066);
  call.kind = inspector::NumericRowKind::kDelegateCall;
  report.rows.push_back(call);
  return report;
}

TEST(ReportDataTest, DemoGolden) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 3), &record));
  ReportOptions options;
  options.title = "ConvReLUTanModel";
  expect_golden("demo.data.json", value_of(report_data({.current = &current}, options)));
}

TEST(ReportDataTest, DemoWithNumericAndBaselineGolden) {
  const etrecord::ETRecord record = demo_record(Ids::kString);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kString, 3), &record));
  const Inspector baseline = value_of(Inspector::create(demo_dump(Ids::kString, 1), &record));
  const inspector::NumericReport numeric = faulty_tan_report();
  ReportOptions options;
  options.title = "ConvReLUTanModel";
  options.execution = 0;
  expect_golden(
      "demo_numeric_baseline.data.json",
      value_of(report_data(
          {.current = &current, .baseline = &baseline, .numeric = &numeric, .etrecord = &record},
          options)));
}

TEST(ReportDataTest, GraphHasEveryNodeItsRowItsDelegateCallAndItsError) {
  etrecord::ETRecord record = demo_record(Ids::kString);
  // Chain the demo graph's nodes through values, as the exporter does.
  std::vector<aot::Node>& nodes = record.edge_graphs.at("forward").nodes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].outputs = {aot::ValueId(static_cast<std::int32_t>(i))};
    if (i > 0) nodes[i].inputs = {aot::ValueId(static_cast<std::int32_t>(i - 1))};
  }
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kString, 2), &record));
  const inspector::NumericReport numeric = faulty_tan_report();
  EXPECT_TRUE(data_of({.current = &current})["graph"].is_null()) << "no ETRecord, no graph";
  const nlohmann::json data =
      data_of({.current = &current, .numeric = &numeric, .etrecord = &record});
  const nlohmann::json& graph = data["graph"];
  ASSERT_EQ(graph["nodes"].size(), record.edge_graphs.at("forward").nodes.size());
  EXPECT_EQ(graph["method"], "forward");
  ASSERT_EQ(graph["partitions"].size(), 1u);
  EXPECT_EQ(graph["partitions"][0]["backend"], "DemoBackend");
  // A chain: conv2d -> relu -> conv2d_1 -> relu_1 -> tan.
  EXPECT_EQ(graph["edges"], nlohmann::json({{0, 1}, {1, 2}, {2, 3}, {3, 4}}));
  for (const nlohmann::json& node : graph["nodes"]) {
    EXPECT_EQ(node["partition"], 0) << node["name"];
    const nlohmann::json& row = data["ops"][node["row"].get<std::size_t>()];
    EXPECT_THAT(row["op_names"].get<std::vector<std::string>>(),
                ::testing::Contains(node["name"].get<std::string>()));
    // The fault is tan's alone: the delegate call's row, which holds every
    // op, does not paint the others.
    EXPECT_EQ(node["exceeds"], node["name"] == "tan") << node["name"];
  }
  EXPECT_EQ(graph["error_metric"], data["numeric"]["metric"]);
}

TEST(ReportDataTest, OpsMarkFusedAndDecomposedRows) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 2), &record));
  const nlohmann::json data = data_of({.current = &current});
  int fused = 0;
  for (const nlohmann::json& row : data["ops"]) {
    if (row["fused"]) {
      ++fused;
      EXPECT_FALSE(row["decomposed"]);
      EXPECT_EQ(row["identifiers"].size(), 1u);
    }
    if (row["label"] == "tan") {
      EXPECT_TRUE(row["decomposed"]);
      EXPECT_EQ(row["identifiers"], nlohmann::json({102, 103, 104}));
    }
  }
  EXPECT_EQ(fused, 2);
}

// Delegate counters become the ops table's columns: every row lists the
// dump's counters in order (sum over the runs, mean per execution); a dump
// without counters has no such key (the goldens above).
TEST(ReportDataTest, OpsCarryTheDumpsCountersInOrder) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 2);
  dump.counter_names = {"cycles", "macs"};
  std::int64_t logged = 0;
  for (etdump::RunData& run : dump.runs) {
    for (etdump::Event& event : run.events) {
      auto* p = std::get_if<etdump::ProfileEvent>(&event.data);
      if (p == nullptr || p->delegate_debug_id_int != DelegateDebugIntId(100)) continue;
      p->counters = {{0, 100}, {1, 7}};
      ++logged;
    }
  }
  ASSERT_GT(logged, 0);
  const Inspector current = value_of(Inspector::create(dump, &record));
  const nlohmann::json data = data_of({.current = &current});
  bool found = false;
  for (const nlohmann::json& row : data["ops"]) {
    ASSERT_EQ(row["counters"].size(), 2u);
    EXPECT_EQ(row["counters"][0]["name"], "cycles");
    EXPECT_EQ(row["counters"][1]["name"], "macs");
    if (row["identifiers"] != nlohmann::json({100})) {
      EXPECT_EQ(row["counters"][0]["sum"], 0);
      continue;
    }
    found = true;
    EXPECT_EQ(row["counters"][0]["sum"], 100 * logged);
    EXPECT_EQ(row["counters"][1]["sum"], 7 * logged);
    EXPECT_DOUBLE_EQ(row["counters"][1]["mean"].get<double>(),
                     7.0 * static_cast<double>(logged) / row["n"].get<double>());
  }
  EXPECT_TRUE(found);
}

TEST(ReportDataTest, ModulesKnowTheirParentAndOpsTheirModules) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 2), &record));
  const nlohmann::json data = data_of({.current = &current});
  const nlohmann::json& modules = data["modules"];
  ASSERT_GE(modules.size(), 2u);
  EXPECT_EQ(modules[0]["path"], "");
  EXPECT_EQ(modules[0]["parent"], -1);
  for (std::size_t i = 1; i < modules.size(); ++i) {
    const nlohmann::json& parent = modules[modules[i]["parent"].get<std::size_t>()];
    EXPECT_EQ(parent["depth"].get<int>() + 1, modules[i]["depth"].get<int>()) << modules[i];
  }
  // Each row lists the model and every module its ops sit in; tan has none.
  for (const nlohmann::json& row : data["ops"]) {
    std::vector<std::string> paths;
    for (std::size_t m : row["in_modules"]) paths.push_back(modules[m]["path"]);
    if (row["label"] == "tan") {
      EXPECT_THAT(paths, ElementsAre(""));
    } else {
      EXPECT_THAT(paths, ::testing::Contains("conv_layer")) << row["label"];
    }
  }
}

TEST(ReportDataTest, TypesSplitFusedGroupsBetweenTheirOpsTypes) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 2), &record));
  const nlohmann::json data = data_of({.current = &current});
  const nlohmann::json& types = data["types"];
  ASSERT_EQ(types.size(), 3u) << types;
  // conv2d+relu and conv2d_1+relu_1 give half of their time to each type;
  // tan (sin + cos + div, 600 ticks) is one op.
  EXPECT_EQ(types[0]["type"], "conv2d");
  EXPECT_EQ(types[1]["type"], "relu");
  EXPECT_EQ(types[0]["mean"], types[1]["mean"]);
  EXPECT_EQ(types[0]["count"], 2);
  EXPECT_EQ(types[2]["type"], "tan");
  EXPECT_EQ(types[2]["mean"], 600.0);
  EXPECT_EQ(types[2]["backends"], nlohmann::json::array({"DemoBackend"}));
  EXPECT_TRUE(types[2]["mapped"]);
}

TEST(ReportTimelineTest, DefaultsToTheMedianExecution) {
  // demo_dump's executions get longer run by run: the median is the middle.
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 5)));
  EXPECT_EQ(value_of(timeline_execution(current, {})), 2u);
  const nlohmann::json data = data_of({.current = &current});
  EXPECT_EQ(data["timeline"]["execution"], 2);
  EXPECT_EQ(data["timeline"]["chosen"], "median");
}

TEST(ReportTimelineTest, TakesTheGivenExecutionAndRefusesMissingOrSkippedOnes) {
  inspector::InspectorOptions skip;
  skip.skip_first_runs = 1;
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 3), nullptr, {}, skip));
  ReportOptions options;
  options.execution = 2;
  EXPECT_EQ(value_of(timeline_execution(current, options)), 2u);
  options.execution = 3;
  EXPECT_THAT(timeline_execution(current, options),
              ErrorIs(Error::kInvalidArgument, {"has 3 executions"}));
  options.execution = 0;
  EXPECT_THAT(timeline_execution(current, options), ErrorIs(Error::kInvalidArgument, {"warm-up"}));
  EXPECT_THAT(report_data({.current = &current}, options), ErrorIs(Error::kInvalidArgument));
}

TEST(ReportTimelineTest, NestsDelegateEventsUnderTheirCall) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record));
  const nlohmann::json t = data_of({.current = &current})["timeline"];
  ASSERT_EQ(t["events"].size(), 7u);  // Method::execute, DELEGATE_CALL, 5 delegate events
  for (const nlohmann::json& e : t["events"]) {
    const std::string role = t["groups"][e[1].get<std::size_t>()]["role"];
    const int expected = role == "framework" ? 0 : role == "delegate_call" ? 1 : 2;
    EXPECT_EQ(e[4].get<int>(), expected) << role;
  }
  // Starts are relative to the execution's first event.
  EXPECT_EQ(t["events"][0][2], 0.0);
  // Method::execute: 10 before the call, the call (20 + 3600 of events + 25 + 5), 15 after.
  EXPECT_EQ(t["extent"], 3675.0);
}

TEST(ReportTimelineTest, ShowsDelegateMetadataAsTextOrHex) {
  etdump::ETDumpFile dump = demo_dump(Ids::kInt, 1);
  for (etdump::Event& e : dump.runs[1].events) {
    auto* p = std::get_if<etdump::ProfileEvent>(&e.data);
    if (p == nullptr) continue;
    if (p->delegate_debug_id_int.value == 100) {
      p->delegate_debug_metadata = std::vector<std::uint8_t>{'c', 'o', 'n', 'v'};
    }
    if (p->delegate_debug_id_int.value == 101) {
      p->delegate_debug_metadata = std::vector<std::uint8_t>{0x01, 0xab};
    }
  }
  const Inspector current = value_of(Inspector::create(dump));
  std::map<std::string, std::string> metadata;
  const nlohmann::json data = data_of({.current = &current});
  for (const nlohmann::json& g : data["timeline"]["groups"]) {
    metadata[g["name"].get<std::string>()] = g["metadata"].get<std::string>();
  }
  EXPECT_EQ(metadata["100"], "conv");
  EXPECT_EQ(metadata["101"], "0x01ab");
  EXPECT_EQ(metadata["102"], "");
}

TEST(ReportTimelineTest, KeepsTheLongestEventsOfAHugeExecution) {
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 1)));
  ReportOptions options;
  options.timeline_event_limit = 3;
  const nlohmann::json t = data_of({.current = &current}, options)["timeline"];
  EXPECT_EQ(t["events_in_execution"], 7);
  EXPECT_EQ(t["events_shown"], 3);
  std::vector<std::string> names;
  for (const nlohmann::json& e : t["events"]) {
    names.push_back(t["groups"][e[1].get<std::size_t>()]["name"]);
  }
  // The two framework blocks and the longest delegate event (id 101).
  EXPECT_THAT(names, ElementsAre("Method::execute", "DELEGATE_CALL", "101"));
}

TEST(ReportTimelineTest, NoExecutionGivesNoTimeline) {
  DumpBuilder b;
  b.run("Default").op("Method::init", -1, 10, 510);
  const Inspector current = value_of(Inspector::create(b.build()));
  EXPECT_TRUE(data_of({.current = &current})["timeline"].is_null());
}

TEST(ReportDataTest, BaselineRowsPutRegressionsFirst) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector slow = value_of(Inspector::create(demo_dump(Ids::kInt, 5), &record));
  const Inspector fast = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record));
  const nlohmann::json rows = data_of({.current = &slow, .baseline = &fast})["baseline"]["rows"];
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i - 1]["delta"].get<double>(), rows[i]["delta"].get<double>());
  }
  EXPECT_EQ(rows[0]["label"], "conv2d_1+relu_1");  // 2000+20r grows the most
}

TEST(ReportDataTest, NumericKeepsNonFiniteValuesAsText) {
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 1)));
  inspector::NumericReport numeric = faulty_tan_report();
  numeric.rows[2].threshold_value = std::numeric_limits<double>::infinity();
  const nlohmann::json n = data_of({.current = &current, .numeric = &numeric})["numeric"];
  EXPECT_EQ(n["rows"][2]["value"], "inf");
  EXPECT_EQ(n["first_failure"], 2);
  EXPECT_EQ(n["scale"], "log");
  EXPECT_TRUE(n["rows"][4]["value"].is_null());  // not compared
}

TEST(ReportDataTest, QuantChartOnlyForInt8RunsWithItsRowsInOrder) {
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 1)));
  EXPECT_FALSE(data_of({.current = &current}).contains("quant"));  // other reports unchanged
  inspector::QuantReport quant;
  quant.rows.resize(2);
  quant.rows[0].op_names = {"/layer1/conv", "/layer1/relu"};
  quant.rows[0].isolated_sqnr_db = 4.5;
  quant.rows[0].sqnr_db = 3.0;
  quant.rows[1].op_names = {"/layer2/conv"};
  quant.rows[1].isolated_sqnr_db = 41.0;
  const nlohmann::json q = data_of({.current = &current, .quant = &quant})["quant"];
  ASSERT_EQ(q["rows"].size(), 2u);
  EXPECT_EQ(q["rows"][0]["label"], "/layer1/conv+/layer1/relu");
  EXPECT_EQ(q["rows"][0]["isolated_sqnr_db"], 4.5);
  EXPECT_TRUE(q["rows"][1]["sqnr_db"].is_null());  // no run output
}

TEST(ReportDataTest, GraphNodesCarryTheirInt8Sqnr) {
  const etrecord::ETRecord record = demo_record(Ids::kInt);
  const Inspector current = value_of(Inspector::create(demo_dump(Ids::kInt, 1), &record));
  inspector::QuantReport quant;
  quant.rows.resize(2);
  quant.rows[0].handle = DebugHandle(5);  // tan: its isolated SQNR, the op's own loss
  quant.rows[0].isolated_sqnr_db = 12.5;
  quant.rows[0].sqnr_db = 3.0;
  quant.rows[1].handle = DebugHandle(1);  // conv2d: no isolated side, the run's SQNR
  quant.rows[1].sqnr_db = 30.0;
  const nlohmann::json graph =
      data_of({.current = &current, .quant = &quant, .etrecord = &record})["graph"];
  std::map<std::string, nlohmann::json> sqnr;
  for (const nlohmann::json& node : graph["nodes"]) sqnr[node["name"]] = node["sqnr_db"];
  EXPECT_EQ(sqnr["tan"], 12.5);
  EXPECT_EQ(sqnr["conv2d"], 30.0);
  EXPECT_TRUE(sqnr["relu"].is_null());
}

TEST(ReportPageTest, EmbedsCssJsAndDataWithoutMarkersLeft) {
  const std::string page = report_page("{\"format\":\"glassbox-report\"}");
  EXPECT_THAT(page, HasSubstr("<!doctype html>"));
  EXPECT_THAT(page, HasSubstr("{\"format\":\"glassbox-report\"}</script>"));
  EXPECT_THAT(page, HasSubstr("glassboxReport"));   // the JS
  EXPECT_THAT(page, HasSubstr("glassboxGraph"));    // the graph's JS
  EXPECT_THAT(page, HasSubstr("--delegate-call"));  // the CSS
  EXPECT_THAT(page, Not(HasSubstr("@GLASSBOX_")));
  EXPECT_THAT(page, HasSubstr("default-src 'none'"));  // nothing fetched at view time
}

TEST(ReportPageTest, NamesFromTheDumpCannotCloseTheDataBlock) {
  DumpBuilder b;
  const std::string hostile = "</script><script>alert(1)</script><!--";
  b.run("Execute").op(hostile, 0, 10, 20);
  const Inspector current = value_of(Inspector::create(b.build()));
  const std::string page = value_of(render_report({.current = &current}, {}));
  EXPECT_THAT(page, Not(HasSubstr("<script>alert")));
  const std::size_t begin = page.find("id=\"glassbox-data\">") + 19;
  const std::size_t end = page.find("</script>", begin);
  const nlohmann::json data = nlohmann::json::parse(page.substr(begin, end - begin));
  EXPECT_EQ(data["ops"][0]["label"], hostile);
}

TEST(ReportPageTest, InvalidUtf8NamesAreReplacedNotThrown) {
  DumpBuilder b;
  b.run("Execute").op(std::string("bad\xff\xfe name"), 0, 10, 20);
  const Inspector current = value_of(Inspector::create(b.build()));
  EXPECT_THAT(render_report({.current = &current}, {}), ::glassbox::testing::IsOk());
}

}  // namespace
}  // namespace glassbox::report

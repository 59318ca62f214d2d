// Integration test across layers: the demo model (backends/demo/aot)
// lowered with the demo backend through export_model, run by the runner
// with ETDumpGen recording (as `glassbox run` does), then inspected.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "backends/demo/aot/demo_backend.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/etdump/etdump_reader.h"
#include "glassbox/export/program_manager.h"
#include "glassbox/inspector/formats.h"
#include "glassbox/inspector/views.h"
#include "glassbox/runner/program_runner.h"
#include "src/inspector/test_util.h"
#include "src/testing/status_matchers.h"

namespace glassbox::inspector {
namespace {

using ::glassbox::testing::IsOk;

using testing::value_of;

struct Case {
  std::string ids;        // the demo backend's "identifiers" compile spec
  std::string profiling;  // realtime or posttime delegate logging
};

class DemoPipelineTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("glassbox_inspector_demo_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_P(DemoPipelineTest, FiveSourceOpsWithFusionAndDecomposition) {
  static backends::demo::DemoBackend backend;
  exporter::Recipe recipe;
  recipe.partitioners.push_back(backends::demo::make_demo_partitioner(backend));
  recipe.compile_specs.push_back(
      aot::CompileSpec::from_string(backends::kIdentifiersSpecKey, GetParam().ids));
  recipe.generate_etrecord = true;
  const exporter::ExecutorchProgramManager program = value_of(
      exporter::export_model(value_of(backends::demo::build_conv_relu_tan_model()), recipe));
  const etrecord::ETRecord record = value_of(program.get_etrecord());
  const std::string program_path = (dir_ / "demo.gbx").string();
  ASSERT_THAT(program.save(program_path), IsOk());

  runner::RunOptions run;
  run.program_path = program_path;
  run.etdump_path = (dir_ / "demo.etdp").string();
  run.iterations = 3;
  run.delegate_profiling = GetParam().profiling;
  ASSERT_THAT(runner::run_program(run), IsOk());

  const etdump::ETDumpFile dump = value_of(etdump::load_etdump_file(run.etdump_path));
  const Inspector insp = value_of(Inspector::create(dump, &record));
  EXPECT_EQ(insp.time().source, TimeUnitSource::kDump);
  EXPECT_EQ(insp.mapped_identifiers(), 5u);
  EXPECT_EQ(insp.logged_identifiers(), 5u);
  for (const Diagnostic& d : insp.diagnostics()) {
    EXPECT_NE(d.severity, Severity::kError) << d.message;
    EXPECT_NE(d.severity, Severity::kWarning) << d.message;
  }

  const std::vector<OpRow> rows = ops_view(insp);
  ASSERT_EQ(rows.size(), 3u);
  std::set<std::string> labels, op_names;
  for (const OpRow& row : rows) {
    labels.insert(row.label);
    op_names.insert(row.op_names.begin(), row.op_names.end());
    EXPECT_TRUE(row.delegated);
    EXPECT_TRUE(row.mapped);
    EXPECT_EQ(row.stats.count, 3u);
    EXPECT_GT(row.stats.mean, 0);
    if (row.label == "tan") {
      EXPECT_EQ(row.delegate_debug_identifiers.size(), 3u);  // sin, cos, div summed back
      EXPECT_EQ(row.occurrences, 9u);
      EXPECT_FALSE(row.shared);
      EXPECT_EQ(row.module_hierarchy, std::vector<std::string>{""});
    } else {
      EXPECT_TRUE(row.shared);
      EXPECT_EQ(row.op_types, (std::vector<std::string>{"conv2d", "relu"}));
      EXPECT_EQ(row.delegate_debug_identifiers.size(), 1u);
    }
  }
  EXPECT_EQ(labels, (std::set<std::string>{"conv2d+relu", "conv2d_1+relu_1", "tan"}));
  EXPECT_EQ(op_names.size(), 5u);

  const std::vector<ModuleRow> modules = modules_view(insp);
  std::set<std::string> paths;
  for (const ModuleRow& m : modules) paths.insert(m.path);
  EXPECT_EQ(paths, (std::set<std::string>{"", "conv_layer", "conv_layer.conv1", "conv_layer.relu1",
                                          "conv_layer.conv2", "conv_layer.relu2"}));

  const std::vector<ReconcileRow> reconcile = reconcile_view(insp);
  ASSERT_EQ(reconcile.size(), 6u);
  EXPECT_GE(reconcile[0].stats.mean, reconcile[1].stats.mean);  // the call holds its events
  EXPECT_FALSE(render(insp, View::kOps, Format::kTable).empty());
}

INSTANTIATE_TEST_SUITE_P(Ids, DemoPipelineTest,
                         ::testing::Values(Case{"generated", "realtime"}, Case{"int", "realtime"},
                                           Case{"string", "realtime"}, Case{"string", "posttime"}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return param_info.param.ids + "_" + param_info.param.profiling;
                         });

}  // namespace
}  // namespace glassbox::inspector

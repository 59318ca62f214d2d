// check_backend end to end on the built-in backends (each must pass), and
// its failures: a backend whose partitioner takes nothing, a delegate whose
// intermediate outputs are wrong.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "glassbox/aot/partitioner.h"
#include "glassbox/conformance/conformance.h"
#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::conformance {
namespace {

using ::testing::HasSubstr;

BackendCheckOptions options_for(const std::string& backend) {
  BackendCheckOptions options;
  options.backend = backend;
  // Time is not what these tests check: the fewest executions that work.
  options.iterations = 1;
  options.cost_executions = 1;
  return options;
}

std::string report(const std::vector<RuleResult>& results) { return render_table(results); }

const RuleResult* find(const std::vector<RuleResult>& results, const std::string& name) {
  for (const RuleResult& r : results) {
    if (r.rule == name) return &r;
  }
  return nullptr;
}

// `results` (may be null) receives the report.
void expect_backend_passes(const std::string& backend,
                           std::vector<RuleResult>* results_out = nullptr) {
  if (backends::find_backend_plugin(backend) == nullptr) {
    GTEST_SKIP() << backend << " is not built in this configuration";
  }
  StatusOr<std::vector<RuleResult>> results = check_backend(options_for(backend));
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_TRUE(all_passed(*results)) << report(*results);
  // Every rule reported, both log modes run (no built-in refuses one).
  for (const char* name :
       {"lower", "log_mode.realtime", "log_mode.posttime", "coverage.logged_in_map",
        "coverage.map_logged", "ids.set", "events.balanced", "time.monotonic", "metadata.limits",
        "profiling_level.method", "profiling_level.none", "numerics", "hooks.cost"}) {
    const RuleResult* r = find(*results, name);
    ASSERT_NE(r, nullptr) << name << " missing:\n" << report(*results);
    if (std::string(name).starts_with("log_mode")) {
      EXPECT_EQ(r->outcome, Outcome::kPass) << name;
    }
  }
  EXPECT_EQ(find(*results, "hooks.cost")->outcome, Outcome::kInfo);
  if (results_out != nullptr) *results_out = *results;
}

TEST(BackendCheckTest, DemoPassesComparingItsIntermediateOutputs) {
  std::vector<RuleResult> results;
  expect_backend_passes("demo", &results);
  const RuleResult* numerics = find(results, "numerics");
  ASSERT_NE(numerics, nullptr);
  EXPECT_EQ(numerics->outcome, Outcome::kPass) << numerics->detail;
  EXPECT_THAT(numerics->detail, HasSubstr("3 logged intermediate outputs match"));
}
TEST(BackendCheckTest, XnnpackPasses) { expect_backend_passes("xnnpack"); }
TEST(BackendCheckTest, OnednnPasses) { expect_backend_passes("onednn"); }

TEST(BackendCheckTest, AWrongIntermediateOutputFailsNumericsNamingIt) {
  // The deliberate fault of numeric debugging: operator "tan.cos" of the
  // demo delegate adds 0.05 to its output.
  BackendCheckOptions options = options_for("demo");
  options.identifiers = "string";
  options.perturb = "tan.cos";
  StatusOr<std::vector<RuleResult>> results = check_backend(options);
  ASSERT_TRUE(results.ok()) << results.status().message();
  const RuleResult* numerics = find(*results, "numerics");
  ASSERT_NE(numerics, nullptr);
  EXPECT_EQ(numerics->outcome, Outcome::kFail) << numerics->detail;
  EXPECT_THAT(numerics->detail, HasSubstr("tan.cos"));
  EXPECT_FALSE(all_passed(*results));
}

// A backend whose partitioner takes no operator (the demo's AOT half with
// an empty op set), registered as a plug-in would be.
StatusOr<aot::Partitioner> take_nothing() {
  GLASSBOX_ASSIGN_OR_RETURN(aot::Partitioner demo,
                            backends::find_backend_plugin("demo")->make_partitioner());
  return aot::Partitioner(demo.backend(), {});
}
Status prepare_nothing(const backends::RunSettings&) { return Status(); }
const backends::BackendPlugin kTakesNothing{
    .name = "conformance_takes_nothing",
    .summary = "a partitioner that takes nothing",
    .make_partitioner = &take_nothing,
    .partition_report = nullptr,
    .prepare_runtime = &prepare_nothing,
};

TEST(BackendCheckTest, APartitionerThatTakesNothingFailsLowerWithTheReason) {
  ASSERT_TRUE(backends::register_backend_plugin(
                  {backends::kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, &kTakesNothing}, "test")
                  .ok());
  StatusOr<std::vector<RuleResult>> results =
      check_backend(options_for("conformance_takes_nothing"));
  ASSERT_TRUE(results.ok()) << results.status().message();
  ASSERT_EQ(results->size(), 1u) << report(*results);
  EXPECT_EQ((*results)[0].rule, "lower");
  EXPECT_EQ((*results)[0].outcome, Outcome::kFail);
  EXPECT_THAT((*results)[0].detail, HasSubstr("takes no operator of"));
}

// The demo declaring it supports real-time logging only, as a backend
// does: its prepare_runtime refuses post time with kNotSupported. Only
// while a test asks (every load prepares every registered backend).
bool refuse_posttime = false;
StatusOr<aot::Partitioner> demo_partitioner() {
  return backends::find_backend_plugin("demo")->make_partitioner();
}
Status prepare_realtime_only(const backends::RunSettings& settings) {
  if (refuse_posttime && settings.log_mode == runtime::DelegateLogMode::kPostTime) {
    return Status(Error::kNotSupported, "this delegate logs in real time only");
  }
  return backends::find_backend_plugin("demo")->prepare_runtime(settings);
}
const backends::BackendPlugin kRealTimeOnly{
    .name = "conformance_realtime_only",
    .summary = "the demo, refusing post-time logging",
    .make_partitioner = &demo_partitioner,
    .partition_report = nullptr,
    .prepare_runtime = &prepare_realtime_only,
};

TEST(BackendCheckTest, AModeTheBackendRefusesIsSkippedWithItsReason) {
  ASSERT_TRUE(backends::register_backend_plugin(
                  {backends::kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, &kRealTimeOnly}, "test")
                  .ok());
  refuse_posttime = true;
  StatusOr<std::vector<RuleResult>> results =
      check_backend(options_for("conformance_realtime_only"));
  refuse_posttime = false;
  ASSERT_TRUE(results.ok()) << results.status().message();
  EXPECT_TRUE(all_passed(*results)) << report(*results);
  const RuleResult* posttime = find(*results, "log_mode.posttime");
  ASSERT_NE(posttime, nullptr);
  EXPECT_EQ(posttime->outcome, Outcome::kSkip);
  EXPECT_THAT(posttime->detail, HasSubstr("logs in real time only"));
  EXPECT_EQ(find(*results, "log_mode.realtime")->outcome, Outcome::kPass);
  // The rules ran on the real-time dump alone.
  EXPECT_THAT(find(*results, "coverage.map_logged")->detail, HasSubstr("(realtime)"));
}

TEST(BackendCheckTest, AnUnknownBackendIsAnError) {
  EXPECT_FALSE(check_backend(options_for("no_such_backend")).ok());
}

TEST(BackendCheckTest, TheJsonReportSaysWhetherEveryRulePassed) {
  const std::vector<RuleResult> results = {{"a", Outcome::kPass, "fine"},
                                           {"b", Outcome::kFail, "broken \"x\""}};
  EXPECT_EQ(render_json(results),
            "{\n  \"passed\": false,\n  \"rules\": [\n    {\n      \"rule\": \"a\",\n      "
            "\"outcome\": \"PASS\",\n      \"detail\": \"fine\"\n    },\n    {\n      \"rule\": "
            "\"b\",\n      \"outcome\": \"FAIL\",\n      \"detail\": \"broken \\\"x\\\"\"\n    "
            "}\n  ]\n}\n");
  EXPECT_THAT(render_table(results), HasSubstr("FAIL  b  broken \"x\"\n"));
  EXPECT_THAT(render_table(results), HasSubstr("1 rule(s) failed"));
}

}  // namespace
}  // namespace glassbox::conformance

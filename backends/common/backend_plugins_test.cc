#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backends/common/backend_plugin.h"
#include "backends/demo/aot/demo_model.h"
#include "glassbox/runtime/backend.h"
#include "src/testing/status_matchers.h"

namespace glassbox::backends {
namespace {

using ::glassbox::testing::IsOk;
using ::testing::Contains;
using ::testing::Field;

TEST(BackendPluginsTest, EveryBuiltInBackendIsFoundByItsName) {
  ASSERT_FALSE(backend_plugins().empty());
  for (const BackendPlugin* plugin : backend_plugins()) {
    EXPECT_EQ(find_backend_plugin(plugin->name), plugin);
    EXPECT_FALSE(plugin->summary.empty()) << plugin->name;
    EXPECT_NE(plugin->make_partitioner, nullptr) << plugin->name;
    EXPECT_NE(plugin->prepare_runtime, nullptr) << plugin->name;
  }
  EXPECT_NE(find_backend_plugin("demo"), nullptr);
  EXPECT_EQ(find_backend_plugin("portable"), nullptr) << "portable is no delegation";
  EXPECT_EQ(find_backend_plugin("Demo"), nullptr);
}

TEST(BackendPluginsTest, AddToRecipeAddsThePartitionerAndTheSpecs) {
  exporter::Recipe recipe;
  ASSERT_THAT(add_to_recipe(*find_backend_plugin("demo"), {.identifiers = "string", .perturb = "x"},
                            &recipe),
              IsOk());
  EXPECT_EQ(recipe.partitioners.size(), 1u);
  EXPECT_THAT(recipe.compile_specs,
              Contains(aot::CompileSpec::from_string("identifiers", "string")));
  EXPECT_THAT(recipe.compile_specs, Contains(aot::CompileSpec::from_string("perturb", "x")));
  exporter::Recipe plain;
  ASSERT_THAT(add_to_recipe(*find_backend_plugin("demo"), {}, &plain), IsOk());
  EXPECT_THAT(plain.compile_specs,
              ::testing::Not(Contains(Field(&aot::CompileSpec::key, "perturb"))));
}

TEST(BackendPluginsTest, EveryRuntimeHalfIsRegisteredUnderTheNameItsAotHalfRecords) {
  ASSERT_THAT(prepare_backend_runtimes({}), IsOk());
  ASSERT_THAT(
      prepare_backend_runtimes({.log_mode = runtime::DelegateLogMode::kPostTime, .threads = 0}),
      IsOk());
  for (const BackendPlugin* plugin : backend_plugins()) {
    StatusOr<aot::Partitioner> partitioner = plugin->make_partitioner();
    ASSERT_THAT(partitioner, IsOk());
    EXPECT_NE(runtime::find_backend(partitioner->backend().name().c_str()), nullptr)
        << plugin->name;
  }
  ASSERT_THAT(prepare_backend_runtimes({}), IsOk());
}

}  // namespace
}  // namespace glassbox::backends

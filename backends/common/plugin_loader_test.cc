#include "backends/common/plugin_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends/common/backend_plugin.h"
#include "src/testing/status_matchers.h"

namespace glassbox::backends {
namespace {

using ::glassbox::testing::IsOk;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string message_of(const Status& status) { return std::string(status.message()); }

TEST(PluginLoaderTest, LoadsAPluginAfterTheBuiltInsAndFindsItByName) {
  const std::size_t built_in = backend_plugins().size();
  ASSERT_THAT(load_backend_plugin(TEST_PLUGIN_VALID), IsOk());
  const BackendPlugin* plugin = find_backend_plugin("loader_test_backend");
  ASSERT_NE(plugin, nullptr);
  EXPECT_EQ(backend_plugins().back(), plugin);
  EXPECT_EQ(backend_plugins().size(), built_in + 1);
  // Its functions are the plug-in's own, called through the table.
  EXPECT_FALSE(plugin->make_partitioner().ok());
  EXPECT_THAT(plugin->prepare_runtime({}), IsOk());
  // The same library again (--plugin and GLASSBOX_PLUGINS both name it).
  EXPECT_THAT(load_backend_plugin(TEST_PLUGIN_VALID), IsOk());
  EXPECT_EQ(backend_plugins().size(), built_in + 1);
}

TEST(PluginLoaderTest, RefusesAnotherAbiVersionNamingBoth) {
  const Status status = load_backend_plugin(TEST_PLUGIN_WRONG_ABI);
  EXPECT_EQ(status.error(), Error::kVersionMismatch);
  EXPECT_THAT(message_of(status),
              AllOf(HasSubstr(TEST_PLUGIN_WRONG_ABI), HasSubstr("ABI version 999"),
                    HasSubstr("loads version " + std::to_string(kPluginAbiVersion))));
}

TEST(PluginLoaderTest, RefusesAnotherBuildTagNamingBoth) {
  const Status status = load_backend_plugin(TEST_PLUGIN_WRONG_TAG);
  EXPECT_EQ(status.error(), Error::kVersionMismatch);
  EXPECT_THAT(message_of(status), AllOf(HasSubstr("'gcc-1 libstdc++-1 glassbox-0.0.0'"),
                                        HasSubstr(std::string("'") + GLASSBOX_PLUGIN_BUILD_TAG)));
  EXPECT_EQ(find_backend_plugin("loader_test_backend_tag"), nullptr);
}

TEST(PluginLoaderTest, RefusesALibraryWithoutTheEntryPointNamingIt) {
  const Status status = load_backend_plugin(TEST_PLUGIN_NO_ENTRY);
  EXPECT_EQ(status.error(), Error::kNotFound);
  EXPECT_THAT(message_of(status), HasSubstr("no symbol glassbox_plugin_entry"));
}

TEST(PluginLoaderTest, RefusesAFileThatIsNotASharedLibraryWithDlopensText) {
  // This test's own source: a text file.
  const Status status = load_backend_plugin(__FILE__);
  EXPECT_EQ(status.error(), Error::kAccessFailed);
  EXPECT_THAT(message_of(status),
              AllOf(HasSubstr(std::string("plug-in ") + __FILE__ + ": cannot load: "),
                    HasSubstr(__FILE__ ": ")));
}

TEST(PluginLoaderTest, RefusesAMissingFile) {
  const Status status = load_backend_plugin("/nonexistent/libnothing.so");
  EXPECT_EQ(status.error(), Error::kAccessFailed);
  EXPECT_THAT(message_of(status), HasSubstr("No such file"));
}

TEST(PluginLoaderTest, RefusesABackendNameThatIsAlreadyRegistered) {
  const Status status = load_backend_plugin(TEST_PLUGIN_CLASH);
  EXPECT_EQ(status.error(), Error::kInvalidArgument);
  EXPECT_THAT(message_of(status), HasSubstr("backend 'demo' is already registered (built in)"));
  EXPECT_NE(find_backend_plugin("demo")->summary, "a plug-in for plugin_loader_test");
}

// The built-ins take the loader's path: the same checks apply to an entry
// registered directly.
TEST(PluginLoaderTest, RegistrationChecksEveryEntryAlike) {
  const BackendPlugin* demo = find_backend_plugin("demo");
  ASSERT_NE(demo, nullptr);
  EXPECT_THAT(
      register_backend_plugin(PluginEntry{kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, demo}, "x"),
      IsOk())
      << "registering a registered backend again is a no-op";
  EXPECT_EQ(register_backend_plugin(PluginEntry{kPluginAbiVersion + 1, nullptr, demo}, "x").error(),
            Error::kVersionMismatch);
  EXPECT_EQ(register_backend_plugin(PluginEntry{kPluginAbiVersion, "other", demo}, "x").error(),
            Error::kVersionMismatch);
  BackendPlugin portable = *demo;
  portable.name = "portable";
  EXPECT_EQ(register_backend_plugin(
                PluginEntry{kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, &portable}, "x")
                .error(),
            Error::kInvalidArgument);
  BackendPlugin no_runtime = *demo;
  no_runtime.name = "no_runtime";
  no_runtime.prepare_runtime = nullptr;
  EXPECT_EQ(register_backend_plugin(
                PluginEntry{kPluginAbiVersion, GLASSBOX_PLUGIN_BUILD_TAG, &no_runtime}, "x")
                .error(),
            Error::kInvalidArgument);
  EXPECT_EQ(find_backend_plugin("no_runtime"), nullptr);
}

TEST(PluginLoaderTest, CommandLinePluginsLoadOnlyForCommandsThatTakeThem) {
  const char* show[] = {"glassbox", "etdump", "show", "--plugin", "/nonexistent/a.so"};
  EXPECT_THAT(load_command_line_plugins(5, show), IsOk());
  // The commands that read dumps load them for their raw-trace decoders.
  for (const char* command : {"inspect", "report", "export", "compare"}) {
    const char* argv[] = {"glassbox", command, "--plugin", "/nonexistent/d.so"};
    EXPECT_THAT(message_of(load_command_line_plugins(4, argv)), HasSubstr("/nonexistent/d.so"))
        << command;
  }
  const char* lower[] = {"glassbox", "lower", "--backend", "x", "--plugin=/nonexistent/b.so"};
  EXPECT_THAT(message_of(load_command_line_plugins(5, lower)),
              HasSubstr("plug-in /nonexistent/b.so: cannot load"));
  const char* run[] = {"glassbox", "run", "--plugin", "/nonexistent/c.so"};
  EXPECT_THAT(message_of(load_command_line_plugins(4, run)), HasSubstr("/nonexistent/c.so"));
}

TEST(PluginLoaderTest, EnvironmentPathsAreColonSeparatedAndLoadFirst) {
  ASSERT_EQ(setenv(kPluginsEnvironmentVariable, "/nonexistent/d.so::/nonexistent/e.so:", 1), 0);
  EXPECT_EQ(plugin_paths_from_environment(),
            (std::vector<std::string>{"/nonexistent/d.so", "/nonexistent/e.so"}));
  const char* demo[] = {"glassbox", "demo", "--plugin", "/nonexistent/f.so"};
  EXPECT_THAT(message_of(load_command_line_plugins(4, demo)), HasSubstr("/nonexistent/d.so"));
  ASSERT_EQ(unsetenv(kPluginsEnvironmentVariable), 0);
  EXPECT_TRUE(plugin_paths_from_environment().empty());
}

}  // namespace
}  // namespace glassbox::backends

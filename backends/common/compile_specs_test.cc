#include "backends/common/compile_specs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "src/testing/status_matchers.h"

namespace glassbox::backends {
namespace {

using ::glassbox::testing::ErrorIs;
using ::glassbox::testing::IsOkAndHolds;

std::vector<aot::CompileSpec> specs(std::initializer_list<std::pair<const char*, const char*>> kv) {
  std::vector<aot::CompileSpec> out;
  for (const auto& [key, value] : kv) out.push_back(aot::CompileSpec::from_string(key, value));
  return out;
}

TEST(AotCompileSpecsTest, IdentifierModes) {
  EXPECT_THAT(parse_aot_compile_specs({}), IsOkAndHolds(IdentifierMode::kGenerated));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"identifiers", "int"}})),
              IsOkAndHolds(IdentifierMode::kInt));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"identifiers", "string"}, {"other", "x"}})),
              IsOkAndHolds(IdentifierMode::kString));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"identifiers", "names"}})),
              ErrorIs(Error::kInvalidArgument, {"identifiers", "names"}));
}

// The runtime's specs are checked ahead of time by the runtime's parser.
TEST(AotCompileSpecsTest, RuntimeSpecsAreCheckedAtExport) {
  EXPECT_THAT(parse_aot_compile_specs(specs({{"profiling", "posttime"}, {"threads", "4"}})),
              IsOkAndHolds(IdentifierMode::kGenerated));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"profiling", "sometimes"}})),
              ErrorIs(Error::kInvalidArgument, {"profiling", "realtime or posttime"}));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"threads", "0"}})),
              ErrorIs(Error::kInvalidArgument, {"threads", "[1, 64]"}));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"threads", "65"}})),
              ErrorIs(Error::kInvalidArgument, {"threads"}));
  EXPECT_THAT(parse_aot_compile_specs(specs({{"perturb", ""}})),
              ErrorIs(Error::kInvalidArgument, {"perturb"}));
}

}  // namespace
}  // namespace glassbox::backends

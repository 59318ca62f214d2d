#include "glassbox/runtime/delegate_specs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace glassbox::runtime {
namespace {

struct Specs {
  std::vector<std::string> values;
  std::vector<CompileSpecView> views;
  Specs(std::initializer_list<std::pair<const char*, const char*>> kv) {
    values.reserve(kv.size());
    for (const auto& [key, value] : kv) {
      values.emplace_back(value);
      const std::string& v = values.back();
      views.push_back({key, Span<const std::uint8_t>(
                                reinterpret_cast<const std::uint8_t*>(v.data()), v.size())});
    }
  }
};

TEST(DelegateSpecsTest, DefaultsWithoutSpecs) {
  const Result<DelegateSpecs> parsed = parse_delegate_specs({});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->log_mode, DelegateLogMode::kPostTime);
  EXPECT_EQ(parsed->threads, 1u);
  EXPECT_FALSE(parsed->perturbs(DelegateDebugIntId(0), nullptr));
}

TEST(DelegateSpecsTest, ReadsEveryCommonSpec) {
  const Specs specs{{"profiling", "posttime"}, {"threads", "64"}, {"perturb", "12"}, {"x", "y"}};
  const Result<DelegateSpecs> parsed = parse_delegate_specs(specs.views);
  ASSERT_TRUE(parsed.ok()) << parsed.error_info().message;
  EXPECT_EQ(parsed->log_mode, DelegateLogMode::kPostTime);
  EXPECT_EQ(parsed->threads, 64u);
}

TEST(DelegateSpecsTest, PerturbMatchesIntAndStringIdentifiersExactly) {
  const Specs ints{{"perturb", "12"}};
  const DelegateSpecs by_int = *parse_delegate_specs(ints.views);
  EXPECT_TRUE(by_int.perturbs(DelegateDebugIntId(12), nullptr));
  EXPECT_FALSE(by_int.perturbs(DelegateDebugIntId(1), nullptr));
  EXPECT_FALSE(by_int.perturbs(DelegateDebugIntId(120), nullptr));
  EXPECT_FALSE(by_int.perturbs(kUnsetDelegateDebugIntId, "12x"));
  EXPECT_TRUE(by_int.perturbs(kUnsetDelegateDebugIntId, "12")) << "a string id spelled 12";
  const Specs names{{"perturb", "tan.cos"}};
  const DelegateSpecs by_name = *parse_delegate_specs(names.views);
  EXPECT_TRUE(by_name.perturbs(kUnsetDelegateDebugIntId, "tan.cos"));
  EXPECT_FALSE(by_name.perturbs(kUnsetDelegateDebugIntId, "tan.co"));
  EXPECT_FALSE(by_name.perturbs(DelegateDebugIntId(0), nullptr));
  const Specs negative{{"perturb", "-3"}};
  EXPECT_TRUE(parse_delegate_specs(negative.views)->perturbs(DelegateDebugIntId(-3), nullptr));
}

TEST(DelegateSpecsTest, BadValuesAreRefusedNamingTheSpec) {
  for (const auto& [key, value] :
       std::vector<std::pair<const char*, const char*>>{{"profiling", "RealTime"},
                                                        {"threads", "0"},
                                                        {"threads", "65"},
                                                        {"threads", "4x"},
                                                        {"threads", ""},
                                                        {"threads", "99999999999"},
                                                        {"perturb", ""}}) {
    const Specs specs{{key, value}};
    const Result<DelegateSpecs> parsed = parse_delegate_specs(specs.views);
    ASSERT_FALSE(parsed.ok()) << key << "=" << value;
    EXPECT_EQ(parsed.error_info().code, Error::kInvalidArgument);
    EXPECT_NE(std::strstr(parsed.error_info().message, key), nullptr)
        << parsed.error_info().message;
  }
}

}  // namespace
}  // namespace glassbox::runtime

#include "glassbox/core/result.h"

#include <gtest/gtest.h>

#include <string>

#include "glassbox/core/status.h"

namespace glassbox {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return make_error(Error::kInvalidArgument, "not positive");
  return v;
}

Result<int> doubled(int v) {
  GLASSBOX_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

StatusOr<std::string> describe(int v) {
  GLASSBOX_ASSIGN_OR_RETURN(int x, doubled(v));
  return std::to_string(x);
}

Status check_all(int a, int b) {
  GLASSBOX_RETURN_IF_ERROR(describe(a));
  GLASSBOX_RETURN_IF_ERROR(parse_positive(b));
  return Status();
}

TEST(ResultTest, HoldsValue) {
  Result<int> r = parse_positive(3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
  EXPECT_EQ(r.error(), Error::kOk);
}

TEST(ResultTest, HoldsErrorWithMessage) {
  Result<int> r = parse_positive(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::kInvalidArgument);
  EXPECT_STREQ(r.message(), "not positive");
}

TEST(ResultTest, MacrosPropagateAcrossResultKinds) {
  EXPECT_EQ(*describe(4), "8");
  StatusOr<std::string> bad = describe(0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::kInvalidArgument);
  EXPECT_EQ(bad.message(), "not positive");

  EXPECT_TRUE(check_all(1, 1).ok());
  Status s = check_all(1, -5);
  EXPECT_EQ(s.error(), Error::kInvalidArgument);
}

TEST(StatusTest, ContextPrefixesMessage) {
  Status s(Error::kCorruptData, "bad byte");
  EXPECT_EQ(s.with_context("run.etdp").message(), "run.etdp: bad byte");
  EXPECT_TRUE(Status().with_context("x").ok());
}

TEST(ErrorTest, EveryCodeHasAName) {
  EXPECT_EQ(to_string(Error::kOutOfResources), "OutOfResources");
  EXPECT_EQ(to_string(Error::kCorruptData), "CorruptData");
}

TEST(ResultDeathTest, ValueOfErrorIsABug) {
  Result<int> r = parse_positive(0);
  EXPECT_DEATH((void)r.value(), "internal check failed");
}

}  // namespace
}  // namespace glassbox

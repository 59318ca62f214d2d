#include "src/testing/status_matchers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "glassbox/core/result.h"
#include "glassbox/core/status.h"

namespace glassbox::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::Gt;
using ::testing::HasSubstr;
using ::testing::Not;

const Status kCorrupt(Error::kCorruptData, "record 3 truncated at byte 12");

TEST(StatusMatchersTest, IsOkMatchesEveryResultKind) {
  EXPECT_THAT(Status(), IsOk());
  EXPECT_THAT(StatusOr<int>(1), IsOk());
  EXPECT_THAT(Result<int>(1), IsOk());
  EXPECT_THAT((ErrorInfo{Error::kOk, ""}), IsOk());

  EXPECT_THAT(kCorrupt, Not(IsOk()));
  EXPECT_THAT(StatusOr<int>(kCorrupt), Not(IsOk()));
  EXPECT_THAT(Result<int>(make_error(Error::kNotFound, "x")), Not(IsOk()));
  EXPECT_THAT(make_error(Error::kNotFound, "x"), Not(IsOk()));
}

TEST(StatusMatchersTest, IsOkExplainsTheError) {
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(IsOk(), kCorrupt, &listener));
  EXPECT_EQ(listener.str(), "which failed with CorruptData: record 3 truncated at byte 12");
}

TEST(StatusMatchersTest, IsOkAndHoldsMatchesTheValue) {
  EXPECT_THAT(StatusOr<int>(3), IsOkAndHolds(3));
  EXPECT_THAT(StatusOr<int>(3), IsOkAndHolds(Gt(2)));
  EXPECT_THAT(Result<int>(3), IsOkAndHolds(Gt(2)));
  EXPECT_THAT(StatusOr<std::vector<int>>(std::vector<int>{1, 2}), IsOkAndHolds(ElementsAre(1, 2)));

  EXPECT_THAT(StatusOr<int>(3), Not(IsOkAndHolds(4)));
  EXPECT_THAT(StatusOr<int>(kCorrupt), Not(IsOkAndHolds(3)));
  EXPECT_THAT(Result<int>(make_error(Error::kNotFound, "x")), Not(IsOkAndHolds(Gt(0))));
}

TEST(StatusMatchersTest, ErrorIsChecksCodeAndEveryFragment) {
  EXPECT_THAT(kCorrupt, ErrorIs(Error::kCorruptData));
  EXPECT_THAT(kCorrupt, ErrorIs(Error::kCorruptData, {"record 3", "byte 12"}));
  EXPECT_THAT(StatusOr<int>(kCorrupt), ErrorIs(Error::kCorruptData, {"truncated"}));
  EXPECT_THAT(Result<int>(make_error(Error::kNotFound, "no such id")),
              ErrorIs(Error::kNotFound, {"no such"}));
  EXPECT_THAT(make_error(Error::kNotFound, "no such id"), ErrorIs(Error::kNotFound));

  EXPECT_THAT(Status(), Not(ErrorIs(Error::kCorruptData)));
  EXPECT_THAT(StatusOr<int>(1), Not(ErrorIs(Error::kCorruptData)));
  EXPECT_THAT(kCorrupt, Not(ErrorIs(Error::kNotFound)));
  EXPECT_THAT(kCorrupt, Not(ErrorIs(Error::kCorruptData, {"record 3", "byte 13"})));
}

TEST(StatusMatchersTest, ErrorIsExplainsTheMismatch) {
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(ErrorIs(Error::kCorruptData, {"byte 13"}), kCorrupt,
                                             &listener));
  EXPECT_THAT(listener.str(), HasSubstr("lacks \"byte 13\""));
  EXPECT_EQ(::testing::DescribeMatcher<const Status&>(ErrorIs(Error::kCorruptData, {"byte 13"})),
            "fails with CorruptData and a message containing \"byte 13\"");
}

TEST(StatusMatchersTest, PrintsResultsAsCodeAndMessage) {
  EXPECT_EQ(::testing::PrintToString(kCorrupt), "CorruptData: record 3 truncated at byte 12");
  EXPECT_EQ(::testing::PrintToString(StatusOr<int>(5)), "OK");
  EXPECT_EQ(::testing::PrintToString(Result<int>(make_error(Error::kNotFound, "x"))),
            "NotFound: x");
}

}  // namespace
}  // namespace glassbox::testing

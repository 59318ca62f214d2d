#include "glassbox/core/ids.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <unordered_set>

namespace glassbox {
namespace {

TEST(IdsTest, DefaultIsTheNamedUnsetValue) {
  EXPECT_FALSE(DebugHandle().is_set());
  EXPECT_EQ(DebugHandle().value, 0u);
  EXPECT_EQ(ChainId().value, -1);
  EXPECT_EQ(InstructionId().value, -1);
  EXPECT_EQ(DelegateDebugIntId().value, -1);
  EXPECT_EQ(AllocatorId().value, 0u);
}

TEST(IdsTest, InstructionZeroIsSetUnlikeExecuTorch) {
  EXPECT_TRUE(InstructionId(0).is_set());
  EXPECT_NE(InstructionId(0), kUnsetInstructionId);
}

TEST(IdsTest, DistinctTypesDoNotMix) {
  static_assert(!std::is_convertible_v<ChainId, InstructionId>);
  static_assert(!std::is_convertible_v<int, DebugHandle>);
  static_assert(sizeof(DebugHandle) == sizeof(std::uint32_t));
}

TEST(IdsTest, OrderedAndHashable) {
  EXPECT_LT(DebugHandle(1), DebugHandle(2));
  std::unordered_set<DebugHandle> set{DebugHandle(3), DebugHandle(3)};
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace glassbox

#include "glassbox/core/internal/large_buffer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "src/testing/huge_pages.h"

namespace glassbox::internal {
namespace {

using ::glassbox::testing::advised_huge;
using ::glassbox::testing::kernel_has_huge_pages;

using Pages = LargeBuffer::Pages;
using Fill = LargeBuffer::Fill;

bool all_zero(const LargeBuffer& b) {
  return std::all_of(b.data(), b.data() + b.size(), [](std::uint8_t v) { return v == 0; });
}

TEST(LargeBufferTest, FreshHugePagesAreZeroAlignedAndWritable) {
  LargeBuffer buffer;
  // Not a multiple of the huge page: the tail is ordinary pages.
  const std::size_t bytes = LargeBuffer::kHugePageBytes + 12345;
  ASSERT_TRUE(buffer.allocate(bytes, Pages::kFreshHuge, Fill::kZero));
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), bytes);
#if defined(__linux__)
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % LargeBuffer::kHugePageBytes, 0u)
      << "only aligned ranges can be huge pages";
#endif
  EXPECT_TRUE(all_zero(buffer));
  std::fill(buffer.data(), buffer.data() + bytes, std::uint8_t{0xab});
  EXPECT_EQ(buffer.data()[bytes - 1], 0xab);
  buffer.release();
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(LargeBufferTest, ReusableZeroFillIsZeroEvenOverUsedMemory) {
  LargeBuffer buffer;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(buffer.allocate(64 * 1024, Pages::kReusable, Fill::kZero));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % 16, 0u);
    EXPECT_TRUE(all_zero(buffer)) << "round " << round;
    std::fill(buffer.data(), buffer.data() + buffer.size(), std::uint8_t{0xcd});
  }
}

TEST(LargeBufferTest, AllocatingAgainReplacesAndZeroBytesIsEmpty) {
  LargeBuffer buffer;
  ASSERT_TRUE(buffer.allocate(LargeBuffer::kHugePageBytes, Pages::kFreshHuge, Fill::kAny));
  ASSERT_TRUE(buffer.allocate(100, Pages::kReusable, Fill::kAny));
  EXPECT_EQ(buffer.size(), 100u);
  ASSERT_TRUE(buffer.allocate(0, Pages::kReusable, Fill::kZero));
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(LargeBufferTest, OnlyFreshHugeBuffersAreAdvisedForHugePages) {
  if (!kernel_has_huge_pages()) GTEST_SKIP() << "no transparent huge pages here";
  LargeBuffer huge;
  LargeBuffer reusable;
  ASSERT_TRUE(huge.allocate(LargeBuffer::kHugePageBytes, Pages::kFreshHuge, Fill::kZero));
  ASSERT_TRUE(reusable.allocate(LargeBuffer::kHugePageBytes, Pages::kReusable, Fill::kZero));
  EXPECT_EQ(advised_huge(huge.data()), std::optional<bool>(true));
  EXPECT_EQ(advised_huge(reusable.data()), std::optional<bool>(false));
}

}  // namespace
}  // namespace glassbox::internal

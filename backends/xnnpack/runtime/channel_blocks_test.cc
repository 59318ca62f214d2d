#include "backends/xnnpack/runtime/channel_blocks.h"

#include <gtest/gtest.h>

namespace glassbox::backends::xnnpack {
namespace {

// squeezenet1_1's classifier: 512 inputs and a bias per channel, 1000
// channels (2 MB), 13x13 pixels: blocks of whole tiles within the budget.
TEST(ChannelBlocksTest, WeightsBeyondTheBudgetSplitIntoWholeTiles) {
  const std::size_t block = channels_per_block(1000, 513, 169);
  EXPECT_EQ(block, 240u);
  EXPECT_EQ(block % kChannelBlockQuantum, 0u);
  EXPECT_LE(block * 513 * sizeof(float), kChannelBlockBytes);
  EXPECT_GT((block + kChannelBlockQuantum) * 513 * sizeof(float), kChannelBlockBytes);
}

TEST(ChannelBlocksTest, WeightsWithinTheBudgetOrOneTileOfPixelsStayWhole) {
  EXPECT_EQ(channels_per_block(256, 65, 3136), 256u);  // 65 KB
  // Exactly the budget: one block.
  EXPECT_EQ(channels_per_block(256, kChannelBlockBytes / 256 / sizeof(float), 169), 256u);
  // 7 pixels or fewer: one tile reads the weights once anyway.
  EXPECT_EQ(channels_per_block(1000, 513, 7), 1000u);
  EXPECT_EQ(channels_per_block(1000, 513, 1), 1000u);
  EXPECT_EQ(channels_per_block(1000, 513, 8), 240u);
}

// A channel whose weights alone exceed the budget: one tile's worth of
// channels a block, never zero; and never more than the channels there are.
TEST(ChannelBlocksTest, BlocksAreAtLeastOneTileAndAtMostTheChannels) {
  EXPECT_EQ(channels_per_block(100, 200000, 49), kChannelBlockQuantum);
  EXPECT_EQ(channels_per_block(10, 200000, 49), 10u);
  EXPECT_EQ(channels_per_block(300, 2000, 49), 64u);
}

}  // namespace
}  // namespace glassbox::backends::xnnpack

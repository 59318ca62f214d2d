#include "backends/onednn/runtime/blocked_channel_binary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace glassbox::backends::onednn {
namespace {

// x[n][c][p] for 2 images of 12 channels over 2 x 3 pixels, in blocks of
// 8 (the second block half padding, filled with garbage that must not
// leak), and s[n][c].
struct Blocked {
  static constexpr std::int64_t kDims[4] = {2, 12, 2, 3};
  static constexpr std::int64_t kBlock = 8, kBlocks = 2, kPixels = 6;
  std::vector<float> x = std::vector<float>(2 * kBlocks * kPixels * kBlock, 99.f);
  std::vector<float> s = std::vector<float>(2 * 12);
  static float value(std::int64_t n, std::int64_t c, std::int64_t p) {
    return static_cast<float>(n * 100 + c * 7 - p) * 0.5f;
  }
  static std::size_t at(std::int64_t n, std::int64_t c, std::int64_t p) {
    return static_cast<std::size_t>(((n * kBlocks + c / kBlock) * kPixels + p) * kBlock +
                                    c % kBlock);
  }
  Blocked() {
    for (std::int64_t n = 0; n < 2; ++n) {
      for (std::int64_t c = 0; c < 12; ++c) {
        s[static_cast<std::size_t>(n * 12 + c)] =
            static_cast<float>(c + 1) - 0.25f * static_cast<float>(n);
        for (std::int64_t p = 0; p < kPixels; ++p) x[at(n, c, p)] = value(n, c, p);
      }
    }
  }
};

TEST(BlockedChannelBinaryTest, EachLaneMeetsItsImageAndChannelsValue) {
  for (DnnBinary op : {DnnBinary::kMul, DnnBinary::kSub, DnnBinary::kMax}) {
    Blocked b;
    std::vector<float> y(b.x.size(), -1.f);
    blocked_channel_binary(op, Blocked::kDims, Blocked::kBlock, b.x.data(), b.s.data(), y.data());
    for (std::int64_t n = 0; n < 2; ++n) {
      for (std::int64_t c = 0; c < 12; ++c) {
        const float s = b.s[static_cast<std::size_t>(n * 12 + c)];
        for (std::int64_t p = 0; p < Blocked::kPixels; ++p) {
          const float x = Blocked::value(n, c, p);
          const float want = op == DnnBinary::kMul   ? x * s
                             : op == DnnBinary::kSub ? x - s
                                                     : std::max(x, s);
          EXPECT_EQ(y[Blocked::at(n, c, p)], want) << "n " << n << " c " << c << " p " << p;
        }
      }
      for (std::int64_t c = 12; c < 16; ++c) {  // the padding lanes
        for (std::int64_t p = 0; p < Blocked::kPixels; ++p) {
          EXPECT_EQ(y[Blocked::at(n, c, p)], 0.f) << "padding n " << n << " c " << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace glassbox::backends::onednn

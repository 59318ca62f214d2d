#include "backends/onednn/runtime/broadcast_dims.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace glassbox::backends::onednn {
namespace {

struct Merged {
  std::vector<std::int64_t> x, y;
};

Merged merge(const std::vector<std::int64_t>& x, const std::vector<std::int64_t>& y) {
  std::int64_t xm[6] = {}, ym[6] = {};
  const int rank = merge_broadcast_dims(x.data(), y.data(), static_cast<int>(x.size()), xm, ym);
  return {std::vector<std::int64_t>(xm, xm + rank), std::vector<std::int64_t>(ym, ym + rank)};
}

using Dims = std::vector<std::int64_t>;

TEST(MergeBroadcastDimsTest, MiddleBroadcastBecomesThreeDims) {
  const Merged m = merge({1, 64, 3, 49, 49}, {1, 64, 1, 49, 49});
  EXPECT_EQ(m.x, (Dims{64, 3, 2401}));
  EXPECT_EQ(m.y, (Dims{64, 1, 2401}));
}

TEST(MergeBroadcastDimsTest, DimsOfOneOnBothSidesAreDropped) {
  const Merged m = merge({4, 1, 5}, {1, 1, 5});
  EXPECT_EQ(m.x, (Dims{4, 5}));
  EXPECT_EQ(m.y, (Dims{1, 5}));
}

TEST(MergeBroadcastDimsTest, NeighboursOfOneKindMerge) {
  const Merged scalar = merge({2, 3, 4}, {1, 1, 1});
  EXPECT_EQ(scalar.x, (Dims{24}));
  EXPECT_EQ(scalar.y, (Dims{1}));
  const Merged same = merge({2, 3}, {2, 3});
  EXPECT_EQ(same.x, (Dims{6}));
  EXPECT_EQ(same.y, (Dims{6}));
  const Merged alternating = merge({2, 3, 4, 5}, {2, 1, 4, 1});
  EXPECT_EQ(alternating.x, (Dims{2, 3, 4, 5}));
  EXPECT_EQ(alternating.y, (Dims{2, 1, 4, 1}));
}

TEST(MergeBroadcastDimsTest, AllOnesIsOneDim) {
  const Merged m = merge({1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(m.x, (Dims{1}));
  EXPECT_EQ(m.y, (Dims{1}));
}

}  // namespace
}  // namespace glassbox::backends::onednn

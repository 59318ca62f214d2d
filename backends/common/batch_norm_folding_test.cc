#include "backends/common/batch_norm_folding.h"

#include <gtest/gtest.h>

#include <cmath>

namespace glassbox::backends {
namespace {

TEST(BatchNormFoldingTest, FoldsScaleAndShiftPerOutputChannel) {
  // Two output channels of two weights each.
  ConvWeights conv{2, {1.f, 2.f, 3.f, 4.f}, {0.5f, -1.f}};
  const float mean[] = {0.25f, 1.f}, var[] = {3.f, 0.f}, gamma[] = {2.f, -1.f},
              beta[] = {0.1f, 0.2f};
  constexpr double kEps = 1.0;  // large, so var + eps is easy to reason about
  ASSERT_TRUE(fold_batch_norm({mean, var, gamma, beta, kEps}, &conv).ok());
  const float s0 = 2.f / 2.f, s1 = -1.f / 1.f;  // gamma / sqrt(var + eps)
  EXPECT_FLOAT_EQ(conv.weight[0], 1.f * s0);
  EXPECT_FLOAT_EQ(conv.weight[3], 4.f * s1);
  EXPECT_FLOAT_EQ(conv.bias[0], (0.5f - 0.25f) * s0 + 0.1f);
  EXPECT_FLOAT_EQ(conv.bias[1], (-1.f - 1.f) * s1 + 0.2f);
}

TEST(BatchNormFoldingTest, RejectsMismatchedSizesAndNonPositiveVariance) {
  ConvWeights conv{2, {1.f, 2.f}, {0.f, 0.f}};
  const float two[] = {1.f, 1.f}, one[] = {1.f};
  EXPECT_EQ(fold_batch_norm({one, two, two, two, 0.0}, &conv).error(), Error::kInvalidArgument);
  const float negative[] = {-1.f, 1.f};
  EXPECT_EQ(fold_batch_norm({two, negative, two, two, 0.0}, &conv).error(),
            Error::kInvalidArgument);
}

}  // namespace
}  // namespace glassbox::backends

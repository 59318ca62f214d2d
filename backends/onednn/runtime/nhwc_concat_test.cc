#include "backends/onednn/runtime/nhwc_concat.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace glassbox::backends::onednn {
namespace {

// Three inputs of 3, 16 and 5 channels over 2 x 4 x 3 pixels, each element
// distinct: every output element comes from the right input, pixel and
// channel.
TEST(NhwcConcatTest, EveryChannelComesFromItsInput) {
  constexpr std::int64_t kPixels = 2 * 4 * 3;
  const std::int64_t channels[] = {3, 16, 5};
  std::vector<std::vector<float>> inputs;
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<float> x(static_cast<std::size_t>(kPixels * channels[k]));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(1000 * k + i);
    inputs.push_back(x);
  }
  const float* pointers[] = {inputs[0].data(), inputs[1].data(), inputs[2].data()};
  std::vector<float> y(kPixels * 24, -1.0f);
  nhwc_concat(kPixels, 3, pointers, channels, y.data());
  for (std::int64_t p = 0; p < kPixels; ++p) {
    std::int64_t first = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      for (std::int64_t c = 0; c < channels[k]; ++c) {
        ASSERT_EQ(y[static_cast<std::size_t>(p * 24 + first + c)],
                  inputs[k][static_cast<std::size_t>(p * channels[k] + c)])
            << "pixel " << p << " input " << k << " channel " << c;
      }
      first += channels[k];
    }
  }
}

}  // namespace
}  // namespace glassbox::backends::onednn

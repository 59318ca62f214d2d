#include "backends/demo/aot/demo_model.h"

#include <cmath>
#include <random>

#include "glassbox/aot/graph_builder.h"

namespace glassbox::backends::demo {
namespace {

constexpr std::int64_t kBatch = 4;
constexpr std::int64_t kInChannels = 3;
constexpr std::int64_t kImageSize = 64;
constexpr std::int64_t kConv1Channels = 16;
constexpr std::int64_t kConv2Channels = 32;
constexpr std::int64_t kKernel = 3;
constexpr std::int64_t kSamePadding = 1;  // Keeps 64x64 with a 3x3 kernel.

// std::uniform_real_distribution's output is implementation-defined; the
// engine's is not, so convert its 32-bit output ourselves.
std::vector<float> uniform(std::mt19937& engine, std::int64_t count, float bound) {
  static constexpr int kMantissaBits = 24;
  static constexpr float kScale = 1.0f / static_cast<float>(1u << kMantissaBits);
  std::vector<float> values(static_cast<std::size_t>(count));
  for (float& v : values) {
    const float unit = static_cast<float>(engine() >> (32 - kMantissaBits)) * kScale;  // [0, 1)
    v = (2.0f * unit - 1.0f) * bound;
  }
  return values;
}

// conv(in -> out, kKernel, padding kSamePadding) with PyTorch-like init.
aot::ValueId conv(aot::GraphBuilder& b, std::mt19937& engine, const std::string& path,
                  aot::ValueId x, std::int64_t in, std::int64_t out) {
  const std::int64_t fan_in = in * kKernel * kKernel;
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  aot::ValueId weight = b.constant(path + ".weight", {out, in, kKernel, kKernel},
                                   uniform(engine, out * fan_in, bound));
  aot::ValueId bias = b.constant(path + ".bias", {out}, uniform(engine, out, bound));
  auto scope = b.module(path, "Conv2d");
  return b.conv2d(x, weight, bias, {.padding = {kSamePadding, kSamePadding}});
}

}  // namespace

StatusOr<aot::Graph> build_conv_relu_tan_model(std::uint32_t seed) {
  std::mt19937 engine(seed);
  aot::GraphBuilder b;
  aot::ValueId x = b.input("x", ScalarType::kFloat, {kBatch, kInChannels, kImageSize, kImageSize});
  {
    auto conv_layer = b.module("conv_layer", "SimpleConvNet");
    x = conv(b, engine, "conv_layer.conv1", x, kInChannels, kConv1Channels);
    {
      auto relu1 = b.module("conv_layer.relu1", "ReLU");
      x = b.relu(x);
    }
    x = conv(b, engine, "conv_layer.conv2", x, kConv1Channels, kConv2Channels);
    {
      auto relu2 = b.module("conv_layer.relu2", "ReLU");
      x = b.relu(x);
    }
  }
  b.output(b.tan(x));
  return b.build();
}

}  // namespace glassbox::backends::demo

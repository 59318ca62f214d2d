#include "backends/xnnpack/testing/xnnpack_test_models.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "glassbox/aot/graph_builder.h"

namespace glassbox::backends::xnnpack {
namespace {

using aot::GraphBuilder;
using aot::ValueId;

class Weights {
 public:
  explicit Weights(std::uint32_t seed) : rng_(seed) {}
  std::vector<float> uniform(std::int64_t n, float bound) {
    // Our own mapping from 32-bit draws, so every platform gets the same.
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) {
      const double unit = static_cast<double>(rng_()) / 4294967295.0;
      x = static_cast<float>((2 * unit - 1) * bound);
    }
    return v;
  }

 private:
  std::mt19937 rng_;
};

struct Net {
  GraphBuilder& b;
  Weights& w;

  ValueId conv(ValueId x, std::int64_t cin, std::int64_t cout, std::int64_t k, std::int64_t stride,
               std::int64_t groups, const std::string& name, bool bias = false) {
    auto scope = b.module(name, "Conv2d");
    const std::int64_t fan_in = cin / groups * k * k;
    const float bound = 1.f / std::sqrt(static_cast<float>(fan_in));
    const ValueId weight =
        b.constant(name + ".weight", {cout, cin / groups, k, k}, w.uniform(cout * fan_in, bound));
    std::optional<ValueId> b_id;
    if (bias) b_id = b.constant(name + ".bias", {cout}, w.uniform(cout, bound));
    return b.conv2d(x, weight, b_id,
                    {.stride = {stride, stride}, .padding = {k / 2, k / 2}, .groups = groups});
  }

  ValueId bn(ValueId x, std::int64_t c, const std::string& name) {
    auto scope = b.module(name, "BatchNorm2d");
    std::vector<float> var = w.uniform(c, 0.5f);
    for (float& v : var) v += 1.0f;  // positive variances
    return b.batch_norm(x, b.constant(name + ".running_mean", {c}, w.uniform(c, 0.2f)),
                        b.constant(name + ".running_var", {c}, var),
                        b.constant(name + ".weight", {c}, w.uniform(c, 1.0f)),
                        b.constant(name + ".bias", {c}, w.uniform(c, 0.2f)), 1e-5);
  }

  ValueId linear(ValueId x, std::int64_t in, std::int64_t out, const std::string& name) {
    auto scope = b.module(name, "Linear");
    const float bound = 1.f / std::sqrt(static_cast<float>(in));
    return b.linear(x, b.constant(name + ".weight", {out, in}, w.uniform(out * in, bound)),
                    b.constant(name + ".bias", {out}, w.uniform(out, bound)));
  }
};

}  // namespace

StatusOr<aot::Graph> build_resnet_like(const ResNetLikeOptions& options) {
  GraphBuilder b;
  Weights w(options.seed);
  Net net{b, w};
  ValueId x =
      b.input("x", ScalarType::kFloat, {options.batch, 3, options.image_size, options.image_size});
  std::int64_t c = options.base_channels;
  x = b.relu(net.bn(net.conv(x, 3, c, 3, 2, 1, "conv1"), c, "bn1"));
  x = b.max_pool2d(
      x, {.kernel = {3, 3}, .stride = std::array<std::int64_t, 2>{2, 2}, .padding = {1, 1}});
  for (int stage = 0; stage < 4; ++stage) {
    const std::string name = "layer" + std::to_string(stage + 1) + ".0";
    auto scope = b.module(name, "BasicBlock");
    const std::int64_t out = stage == 0 ? c : c * 2;
    const std::int64_t stride = stage == 0 ? 1 : 2;
    ValueId y =
        b.relu(net.bn(net.conv(x, c, out, 3, stride, 1, name + ".conv1"), out, name + ".bn1"));
    y = net.bn(net.conv(y, out, out, 3, 1, 1, name + ".conv2"), out, name + ".bn2");
    ValueId shortcut = x;
    if (stride != 1 || out != c) {
      auto ds = b.module(name + ".downsample", "Sequential");
      shortcut = net.bn(net.conv(x, c, out, 1, stride, 1, name + ".downsample.0"), out,
                        name + ".downsample.1");
    }
    x = b.relu(b.add(y, shortcut));
    c = out;
  }
  x = b.flatten(b.global_avg_pool2d(x), 1, -1);
  b.output(net.linear(x, c, options.classes, "fc"));
  return b.build();
}

StatusOr<aot::Graph> build_mobile_like(std::int64_t batch, std::int64_t image_size,
                                       std::uint32_t seed) {
  GraphBuilder b;
  Weights w(seed);
  Net net{b, w};
  ValueId x = b.input("x", ScalarType::kFloat, {batch, 3, image_size, image_size});
  x = b.hardswish(net.bn(net.conv(x, 3, 16, 3, 2, 1, "features.0.0"), 16, "features.0.1"));
  // Depthwise with a channel multiplier of 2, then relu6.
  x = b.relu6(net.bn(net.conv(x, 16, 32, 3, 1, 16, "features.1.dw"), 32, "features.1.bn"));
  {
    auto scope = b.module("features.1.se", "SqueezeExcitation");
    ValueId s = b.global_avg_pool2d(x);
    s = b.relu(net.conv(s, 32, 8, 1, 1, 1, "features.1.se.fc1", true));
    s = b.hardsigmoid(net.conv(s, 8, 32, 1, 1, 1, "features.1.se.fc2", true), 1.0 / 6.0, 0.5);
    x = b.mul(x, s);
  }
  const ValueId a = b.relu(net.conv(x, 32, 16, 1, 1, 4, "features.2.grouped", true));
  const ValueId c = b.sigmoid(net.conv(x, 32, 8, 3, 1, 1, "features.2.branch", true));
  x = b.concat({a, c}, 1);
  x = b.avg_pool2d(x, {.kernel = {2, 2}});
  x = b.sub(x, b.clamp(x, -0.5, 0.5));
  x = b.flatten(x, 1, -1);
  const std::int64_t features = 24 * (image_size / 4) * (image_size / 4);
  x = b.div(net.linear(x, features, 10, "classifier"),
            b.sigmoid(net.linear(x, features, 10, "gate")));
  b.output(b.softmax(x, -1));
  return b.build();
}

StatusOr<aot::Graph> build_decoder_like(std::int64_t batch, std::int64_t image_size,
                                        std::uint32_t seed) {
  GraphBuilder b;
  Weights w(seed);
  Net net{b, w};
  using Attrs = aot::AttributeMap;
  using Ints = std::vector<std::int64_t>;
  const std::int64_t s = image_size / 2;
  ValueId x = b.input("x", ScalarType::kFloat, {batch, 3, image_size, image_size});
  x = b.op("elu", {net.conv(x, 3, 16, 3, 2, 1, "stem", true)}, Attrs{{"alpha", 1.0}});
  x = b.op("prelu", {x, b.constant("stem.prelu", {16, 1, 1}, w.uniform(16, 0.3f))}, {});
  const ValueId d = b.op("depth_to_space", {net.conv(x, 16, 32, 1, 1, 1, "to_space")},
                         Attrs{{"blocksize", std::int64_t{2}}, {"mode", std::string("DCR")}});
  const ValueId r = b.op("resize", {x},
                         Attrs{{"sizes", Ints{batch, 16, 2 * s, 2 * s}},
                               {"mode", std::string("linear")},
                               {"coordinate_transformation_mode", std::string("half_pixel")},
                               {"nearest_mode", std::string("floor")}});
  const ValueId t =
      b.relu(b.op("conv_transpose2d",
                  {x, b.constant("up.weight", {16, 8, 2, 2}, w.uniform(16 * 8 * 4, 0.25f)),
                   b.constant("up.bias", {8}, w.uniform(8, 0.25f))},
                  Attrs{{"stride", Ints{2, 2}},
                        {"padding", Ints{0, 0, 0, 0}},
                        {"output_padding", Ints{0, 0}},
                        {"dilation", Ints{1, 1}},
                        {"groups", std::int64_t{1}}}));
  ValueId y = b.op("min", {b.op("max", {d, t}, {}), net.conv(r, 16, 8, 1, 1, 1, "mix")}, {});
  y = b.op("pad", {y},
           Attrs{{"pads", Ints{0, 0, 1, 1, 0, 0, 1, 1}},
                 {"mode", std::string("constant")},
                 {"value", 0.1}});
  y = b.op("leaky_relu", {y}, Attrs{{"alpha", 0.2}});
  const auto unary = [&](std::string_view op, ValueId v) { return b.op(op, {v}, {}); };
  const ValueId u =
      b.add(b.add(unary("abs", y), unary("neg", y)), b.add(unary("floor", y), unary("ceil", y)));
  const ValueId v = b.add(unary("round", y), unary("sqrt", unary("abs", y)));
  y = b.add(u, b.op("pow", {v, b.constant("two", {}, {2.f})}, {}));
  const ValueId hw =
      b.op("reduce_mean", {y}, Attrs{{"axes", Ints{2, 3}}, {"keepdims", std::int64_t{0}}});
  ValueId last = b.op("reduce_mean", {y}, Attrs{{"axes", Ints{-1}}, {"keepdims", std::int64_t{0}}});
  last = b.op("reduce_mean", {last}, Attrs{{"axes", Ints{-1}}, {"keepdims", std::int64_t{0}}});
  b.output(b.add(hw, last));
  return b.build();
}

}  // namespace glassbox::backends::xnnpack

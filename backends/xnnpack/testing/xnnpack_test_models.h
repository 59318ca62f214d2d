#pragma once
/// @file
/// Models for the XNNPACK backend's tests and benchmark, built with
/// GraphBuilder (no ONNX zoo needed). Weights are uniform in
/// +-1/sqrt(fan_in) from std::mt19937 with a fixed seed; batch norm
/// statistics are non-trivial so folding is really exercised.
///
/// resnet_like (ResNet-18 in miniature):
///   stem: conv 3x3/2 + bn + relu, max_pool 3x3/2 pad 1
///   4 stages of BasicBlock: conv+bn+relu, conv+bn, (1x1/2 conv+bn
///   downsample when the shape changes), add, relu
///   global_avg_pool, flatten, linear
///
/// mobile_like (MobileNetV3-flavoured): conv+bn+hardswish, depthwise
/// conv+bn+relu6, squeeze-excite (global pool, 1x1 convs, hardsigmoid,
/// mul with broadcast), grouped conv, concat, avg_pool, flatten, linear,
/// softmax.
///
/// decoder_like (a segmentation decoder in miniature, every operator of
/// format 1.1): conv+elu, per-channel prelu, depth_to_space (DCR), linear
/// resize, conv_transpose+relu, max/min, constant pad, leaky_relu, abs,
/// neg, floor, ceil, round, sqrt, pow 2, and means over H, W and over the
/// last axis.

#include <cstdint>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::backends::xnnpack {

struct ResNetLikeOptions {
  std::int64_t batch = 1;
  std::int64_t image_size = 64;     ///< Square input, 3 channels.
  std::int64_t base_channels = 16;  ///< Doubles per stage after the first.
  std::int64_t classes = 10;
  std::uint32_t seed = 7;
};

StatusOr<aot::Graph> build_resnet_like(const ResNetLikeOptions& options = {});

StatusOr<aot::Graph> build_mobile_like(std::int64_t batch = 1, std::int64_t image_size = 32,
                                       std::uint32_t seed = 11);

StatusOr<aot::Graph> build_decoder_like(std::int64_t batch = 1, std::int64_t image_size = 16,
                                        std::uint32_t seed = 13);

}  // namespace glassbox::backends::xnnpack

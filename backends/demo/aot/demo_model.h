#pragma once
/// @file
/// The demo model (ExecuTorch's ConvReLUTanModel from its delegate-debugging
/// guide), built with
/// GraphBuilder:
///
///   ConvReLUTanModel
///     conv_layer: SimpleConvNet
///       conv1: Conv2d(3 -> 16, kernel 3, padding 1)   handle 1
///       relu1: ReLU                                    handle 2
///       conv2: Conv2d(16 -> 32, kernel 3, padding 1)  handle 3
///       relu2: ReLU                                    handle 4
///     tan (torch.tan in forward, so no module of its own) handle 5
///
/// Input "x" is FLOAT [4, 3, 64, 64]; output is FLOAT [4, 32, 64, 64].
/// Weights and biases are uniform in +-1/sqrt(fan_in) (PyTorch's default
/// Conv2d init), drawn from std::mt19937 with a fixed seed through our own
/// float conversion, so they are identical on every platform.

#include <cstdint>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::backends::demo {

inline constexpr std::uint32_t kDemoModelSeed = 20240501;

/// The model above; the same `seed` always gives the same weights.
StatusOr<aot::Graph> build_conv_relu_tan_model(std::uint32_t seed = kDemoModelSeed);

}  // namespace glassbox::backends::demo

#pragma once
// Direct convolution for weight.c == 1 (depthwise and channel multipliers)
// (private to conv.cc). Shapes are already validated.

#include "glassbox/runtime/kernels/conv.h"

namespace glassbox::runtime::kernels::internal {

void conv2d_depthwise(const float* input, Shape4 in, const float* weight, Shape4 w,
                      const float* bias, const Conv2dParams& p, float* output, Shape4 out);

}  // namespace glassbox::runtime::kernels::internal

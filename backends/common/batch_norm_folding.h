#pragma once
/// @file
/// Folds an eval-mode batch norm into the convolution before it:
///
///   bn(conv(x)) = scale * (W x + b - mean) + beta,  scale = gamma / sqrt(var + eps)
///              = (scale * W) x + (scale * (b - mean) + beta)
///
/// so the delegate's convolution computes both with new weights and bias
/// (XNNPACK and oneDNN alike).

#include <cstdint>
#include <span>
#include <vector>

#include "glassbox/aot/graph.h"
#include "glassbox/core/status.h"

namespace glassbox::backends {

/// A convolution's parameters in the graph's OIHW order.
struct ConvWeights {
  std::int64_t out_channels = 0;
  std::vector<float> weight;  ///< out_channels blocks of equal size.
  std::vector<float> bias;    ///< out_channels values (zeros if none).
};

/// The batch norm's per-channel constants, each out_channels long; views,
/// only read during the call.
struct BatchNormConstants {
  std::span<const float> mean;
  std::span<const float> var;
  std::span<const float> gamma;
  std::span<const float> beta;
  double eps = 1e-5;
};

/// Rewrites `conv` in place (computing in double, then rounding once).
/// kInvalidArgument when sizes disagree or var + eps <= 0.
Status fold_batch_norm(const BatchNormConstants& bn, ConvWeights* conv);

/// The constants of the batch_norm node `bn` of `graph`: views of its
/// inputs 1 to 4 (float constants with data, as the partitioners require)
/// and its eps.
BatchNormConstants batch_norm_constants(const aot::Graph& graph, const aot::Node& bn);

/// A batch norm with no convolution to fold into, over `channels`
/// channels, as a depthwise 1x1 convolution: weight the per-channel scale,
/// bias the shift (the identity convolution, folded).
StatusOr<ConvWeights> batch_norm_as_depthwise(const BatchNormConstants& bn, std::int64_t channels);

}  // namespace glassbox::backends

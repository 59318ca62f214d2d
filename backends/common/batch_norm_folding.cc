#include "backends/common/batch_norm_folding.h"

#include <cmath>
#include <string>

#include "backends/common/node_attributes.h"

namespace glassbox::backends {

Status fold_batch_norm(const BatchNormConstants& bn, ConvWeights* conv) {
  const auto channels = static_cast<std::size_t>(conv->out_channels);
  if (channels == 0 || conv->bias.size() != channels || conv->weight.size() % channels != 0 ||
      bn.mean.size() != channels || bn.var.size() != channels || bn.gamma.size() != channels ||
      bn.beta.size() != channels) {
    return Status(Error::kInvalidArgument, "batch norm folding: parameter sizes do not match " +
                                               std::to_string(channels) + " output channels");
  }
  const std::size_t block = conv->weight.size() / channels;
  for (std::size_t o = 0; o < channels; ++o) {
    const double denominator = double(bn.var[o]) + bn.eps;
    if (!(denominator > 0)) {
      return Status(Error::kInvalidArgument,
                    "batch norm folding: var + eps <= 0 for channel " + std::to_string(o));
    }
    const double scale = double(bn.gamma[o]) / std::sqrt(denominator);
    for (std::size_t i = 0; i < block; ++i) {
      float& w = conv->weight[o * block + i];
      w = static_cast<float>(double(w) * scale);
    }
    conv->bias[o] = static_cast<float>((double(conv->bias[o]) - bn.mean[o]) * scale + bn.beta[o]);
  }
  return Status();
}

BatchNormConstants batch_norm_constants(const aot::Graph& graph, const aot::Node& bn) {
  auto data = [&](std::size_t input) -> std::span<const float> {
    return graph.find_value(bn.inputs[input])->data;
  };
  return {data(1), data(2), data(3), data(4), float_attr(bn, "eps").value_or(1e-5)};
}

StatusOr<ConvWeights> batch_norm_as_depthwise(const BatchNormConstants& bn, std::int64_t channels) {
  const auto c = static_cast<std::size_t>(channels);
  ConvWeights weights{channels, std::vector<float>(c, 1.f), std::vector<float>(c, 0.f)};
  GLASSBOX_RETURN_IF_ERROR(fold_batch_norm(bn, &weights));
  return weights;
}

}  // namespace glassbox::backends

#pragma once
// Folding by evaluation: an IR op whose inputs are all constants is run at
// import on the portable kernels, the same ones the runtime runs, so the
// folded values are exactly what the runtime would compute and no second
// implementation of any op exists.

#include <span>
#include <string_view>

#include "frontends/onnx/tensor_proto.h"
#include "glassbox/aot/graph.h"
#include "glassbox/aot/ops.h"

namespace glassbox::frontends::onnx {

/// Runs `op` with `attributes` on `inputs` (constants with data; only read)
/// whose output type is `out`. Errors (kInvalidArgument) carry the
/// kernel's message.
StatusOr<HostTensor> evaluate_with_kernels(std::string_view op,
                                           std::span<const aot::Value* const> inputs,
                                           const aot::AttributeMap& attributes,
                                           const aot::TensorType& out);

/// A constant's data as a host tensor (float, int64 or bool).
HostTensor host_tensor_of(const aot::Value& constant);

}  // namespace glassbox::frontends::onnx

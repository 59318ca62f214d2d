#pragma once
// Whole-model checks made before any node is converted, so that a model we
// cannot import is refused with every reason at once where possible.

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/converters.h"
#include "frontends/onnx/importer.h"

namespace onnx {
class GraphProto;
class ModelProto;
class ValueInfoProto;
}  // namespace onnx

namespace glassbox::frontends::onnx {

/// The model's default-domain opset; kNotSupported outside
/// [kMinOpset, kMaxOpset], kCorruptData if the model imports none.
StatusOr<std::int64_t> default_opset(const ::onnx::ModelProto& model, const std::string& source);

/// OK if every node has a converter; otherwise one kNotSupported error
/// listing each unsupported op type (sorted) with the nodes that use it.
Status check_supported_ops(const ::onnx::GraphProto& graph, const ConverterTable& table,
                           const std::string& source);

/// The static shape of graph input `input`: from `options` if it names the
/// input, else from the model, where every dim must be a known value.
/// Errors name the input and the offending dim.
StatusOr<std::vector<std::int64_t>> static_input_shape(const ::onnx::ValueInfoProto& input,
                                                       const ImportOptions& options,
                                                       const std::string& source);

}  // namespace glassbox::frontends::onnx

#pragma once
// The table of ONNX op converters. Each converter reads the current node
// from the context, emits IR nodes or folds host tensors, and binds every
// output it produces; errors name the node (ImportContext::label()).

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "frontends/onnx/import_context.h"

namespace glassbox::frontends::onnx {

using Converter = Status (*)(ImportContext& context);
using ConverterTable = std::map<std::string, Converter, std::less<>>;

/// Every converter by ONNX op type (default domain).
const ConverterTable& converters();

// Each family adds its converters (one file each).
void add_elementwise_converters(ConverterTable* table);   // convert_elementwise.cc
void add_nn_converters(ConverterTable* table);            // convert_nn.cc
void add_shape_converters(ConverterTable* table);         // convert_shape.cc
void add_folding_converters(ConverterTable* table);       // constant_folding.cc
void add_math_converters(ConverterTable* table);          // convert_math.cc
void add_reduce_converters(ConverterTable* table);        // convert_reduce.cc
void add_data_converters(ConverterTable* table);          // convert_data.cc
void add_quantization_converters(ConverterTable* table);  // convert_quantize.cc
void add_recurrent_converters(ConverterTable* table);     // convert_recurrent.cc
void add_sequence_converters(ConverterTable* table);      // convert_sequence.cc
void add_detection_converters(ConverterTable* table);     // convert_detection.cc
void add_dynamic_converters(ConverterTable* table);       // convert_dynamic.cc

/// Emits IR op `op` on input 0 as output 0 (convert_math.cc).
Status emit_unary(ImportContext& context, std::string_view op, aot::AttributeMap attributes = {});

/// Conv (NCHW) of inputs {x, w, b?} and MatMul with the current node's
/// attributes (convert_nn.cc): the quantized forms (QLinearConv,
/// ConvInteger, ...) build their float op with them.
StatusOr<aot::ValueId> emit_conv(ImportContext& context, std::vector<aot::ValueId> inputs);
StatusOr<aot::ValueId> emit_matmul(ImportContext& context, aot::ValueId a, aot::ValueId b);

/// Gather and Slice on run-time tensors (their folding converters hand
/// these what is not known at import).
Status convert_runtime_gather(ImportContext& context);
Status convert_runtime_slice(ImportContext& context);

/// ONNX Shape's start and end attributes for an input of `rank` dims,
/// normalised and clamped: 0 <= start <= end <= rank (constant_folding.cc).
struct ShapeRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
};
StatusOr<ShapeRange> shape_range(ImportContext& context, std::size_t rank);

/// Unsqueeze/Squeeze axes: an attribute before opset 13, input 1 since
/// (convert_shape.cc; shape_values.cc reads them too).
StatusOr<std::optional<std::vector<std::int64_t>>> axes_of(ImportContext& context);

}  // namespace glassbox::frontends::onnx

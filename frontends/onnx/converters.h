#pragma once
// The table of ONNX op converters. Each converter reads the current node
// from the context, emits IR nodes or folds host tensors, and binds every
// output it produces; errors name the node (ImportContext::label()).

#include <map>
#include <string>
#include <string_view>

#include "frontends/onnx/import_context.h"

namespace glassbox::frontends::onnx {

using Converter = Status (*)(ImportContext& context);
using ConverterTable = std::map<std::string, Converter, std::less<>>;

/// Every converter by ONNX op type (default domain).
const ConverterTable& converters();

// Each family adds its converters (one file each).
void add_elementwise_converters(ConverterTable* table);  // convert_elementwise.cc
void add_nn_converters(ConverterTable* table);           // convert_nn.cc
void add_shape_converters(ConverterTable* table);        // convert_shape.cc
void add_folding_converters(ConverterTable* table);      // constant_folding.cc

}  // namespace glassbox::frontends::onnx
